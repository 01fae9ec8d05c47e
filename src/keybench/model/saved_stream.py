"""A saved key stream read a block of writes at a time (SavedKeyStream), so that the model
replays a stream of any length in bounded memory."""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from keybench.model.keystream import KeyStream, reading
from keybench.model.writeblocks import check_lengths, check_values, write_block

_WRITE_ARRAY = re.compile(r"w\d+_[tknu]")  # the arrays that grow with the writes: read a block at a time
SAVED_BLOCK = 1 << 20  # writes read from a saved stream at a time


def _npy_header(file) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and type of the .npy array `file` starts with, leaving it at the data."""
    version = np.lib.format.read_magic(file)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(file)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(file)
    else:
        raise ValueError(f".npy version {version} is not one numpy.savez writes")
    if dtype.hasobject:
        raise ValueError("object arrays cannot be read without pickle")
    return shape, dtype


class _SavedArray:
    """An array of a saved stream known by its header, read a block of items at a time."""

    def __init__(self, archive: zipfile.ZipFile, member: str):
        self.archive, self.member = archive, member
        with archive.open(member) as file:
            self.shape, self.dtype = _npy_header(file)

    def __len__(self) -> int:
        return self.shape[0]

    def blocks(self, items: int):
        with self.archive.open(self.member) as file:
            _npy_header(file)
            for start in range(0, len(self), items):
                size = min(items, len(self) - start) * self.dtype.itemsize
                data = file.read(size)
                if len(data) != size:
                    raise EOFError(f"array {self.member[:-4]!r} ends after {start:,} items")
                yield np.frombuffer(data, dtype=self.dtype)


class SavedKeyStream:
    """A saved key stream (`KeyStream.save`) whose writes are read a block at a time, so a
    space's writes are never all in memory; its initial rows and reads are (`rest`, a
    KeyStream without writes), as the model takes them up front. The .npz members are read
    in order through the zip archive, stored or compressed alike. A truncated, corrupt or
    foreign file is one KeybenchError, when opened or when a block is read."""

    def __init__(self, path: str | Path, block: int | None = None):
        self.path, self.block = Path(path), block or SAVED_BLOCK
        with reading(self.path):
            self.archive = zipfile.ZipFile(self.path)
            try:
                data: dict[str, Any] = {}  # names -> numpy arrays, or _SavedArray for the writes
                for member in self.archive.namelist():
                    name = member.removesuffix(".npy")
                    if _WRITE_ARRAY.fullmatch(name):
                        data[name] = _SavedArray(self.archive, member)
                    else:
                        with self.archive.open(member) as file:
                            data[name] = np.lib.format.read_array(file, allow_pickle=False)
                self.rest = KeyStream._from_arrays(data, with_writes=False)
            except BaseException:
                self.archive.close()
                raise
        self.data = data
        self.spaces = [str(s) for s in data["spaces"]]

    def __enter__(self) -> SavedKeyStream:
        return self

    def __exit__(self, *exc) -> None:
        self.archive.close()

    def write_spaces(self) -> list[tuple[int, str, int]]:
        """(index, space, writes) of each space that has writes, in the file's order."""
        return [(i, space, len(self.data[f"w{i}_t"])) for i, space in enumerate(self.spaces)
                if f"w{i}_t" in self.data and len(self.data[f"w{i}_t"])]

    def writes(self, i: int):
        """Space i's writes in the file's order, a block at a time: (times, keys, key
        lengths, split-unit lengths), each block's values checked as a whole file's are."""
        names = [f"w{i}_t", f"w{i}_k", f"w{i}_n"] + ([f"w{i}_u"] if f"w{i}_u" in self.data else [])
        with reading(self.path):
            for arrays in zip(*(self.data[name].blocks(self.block) for name in names), strict=True):
                for name, array in zip(names, arrays, strict=True):
                    check_values(name, array)
                check_lengths(names[:3], arrays[1], arrays[2:3])
                if len(arrays) > 3:
                    check_lengths([names[1], names[3]], arrays[1], arrays[3:])
                yield write_block(*arrays)

    def writes_in_time_order(self, i: int):
        """Space i's writes in time order, writes at the same time in the file's order (a
        stable sort): the file's blocks as they are when it is in time order, as a stream
        recorded by one process is. Otherwise (workers' streams merged one after the other)
        the writes read so far are held until nothing left to read can come before them:
        memory holds as many writes as the file has out of order."""
        times = self.data[f"w{i}_t"]
        minima, in_order, last = [], True, -math.inf
        with reading(self.path):
            for block in times.blocks(self.block):
                check_values(f"w{i}_t", block)
                minima.append(float(block.min()))
                in_order = in_order and block[0] >= last and bool((np.diff(block) >= 0).all())
                last = float(block[-1])
        if in_order:
            yield from self.writes(i)
            return
        later = [*np.minimum.accumulate(minima[::-1])[::-1][1:], math.inf]  # the least time in the blocks after each
        held = None
        for b, block in enumerate(self.writes(i)):
            held = block if held is None else tuple(np.concatenate(pair) for pair in zip(held, block, strict=True))
            order = np.argsort(held[0], kind="stable")
            ready = int(np.searchsorted(held[0][order], later[b], side="right"))
            if ready:
                yield tuple(column[order[:ready]] for column in held)
            kept = np.sort(order[ready:])  # the file's order, for the next block's stable sort
            held = tuple(column[kept] for column in held)
