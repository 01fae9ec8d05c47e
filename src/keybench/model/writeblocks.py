"""Blocks of writes, the way a key stream keeps them: (times, keys, key lengths, split-unit
lengths) as numpy arrays, keys as a fixed-width bytes array with their true lengths beside.

`WriteBlocks` takes writes one at a time or a block at a time; those taken one at a time
become a block every `BLOCK_WRITES`, written to an unlinked temporary file and mapped back,
so a long stage's keys are on disk rather than in its process."""

from __future__ import annotations

import io
import tempfile
from typing import IO

import numpy as np

BLOCK_WRITES = 65_536  # writes of a space kept as Python objects before they become a block on disk


def check_values(name: str, array: np.ndarray) -> None:
    """Times must be finite, counts and indexes not negative (ValueError naming the array)."""
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError(f"array {name!r} holds a non-finite number")
    if array.dtype.kind == "i" and len(array) and array.min() < 0:
        raise ValueError(f"array {name!r} holds a negative number")


def check_lengths(names, keys, widths) -> None:
    """A key's true length is at most its array's width."""
    if any(len(w) and w.max() > keys.dtype.itemsize for w in widths):
        raise ValueError(f"arrays {', '.join(names)}: a length exceeds the key width")


def as_key_array(keys) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-width bytes array and true lengths: numpy drops trailing NUL bytes when it
    hands an item back, so the lengths keep what the width cannot."""
    if isinstance(keys, np.ndarray) and keys.dtype.kind == "S":
        # Without lengths, a key is taken to end at its last non-NUL byte.
        return keys, np.char.str_len(keys).astype(np.uint16)
    keys = list(keys)
    lengths = np.fromiter((len(k) for k in keys), dtype=np.uint16, count=len(keys))
    return np.array(keys, dtype=f"S{max(1, int(lengths.max(initial=1)))}"), lengths


def write_block(times, keys, lengths=None, units=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A block of writes as the model takes them: (times, keys, key lengths, split-unit
    lengths); without lengths a key ends at its last non-NUL byte, without units every
    key is its own unit."""
    keys, default_lengths = as_key_array(keys)
    lengths = default_lengths if lengths is None else np.asarray(lengths, dtype=np.uint16)
    return np.asarray(times, dtype=np.float64), keys, lengths, lengths if units is None else np.asarray(units,
                                                                                                        dtype=np.uint16)


class WriteBlocks:
    """Arrays appended in pieces and joined on first use: one add per write stays cheap.
    A block is (times, keys, key lengths, split-unit lengths).

    Writes added one at a time become a block every `BLOCK_WRITES`, and that block goes to a
    temporary file, mapped back into memory once: a long stage's keys are on disk, not in its
    process (the system keeps in memory what it has room for, and drops it under pressure)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.keys: list[bytes] = []
        self.units: list[int] = []
        self.blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._spill: IO[bytes] | None = None  # unlinked at once: it goes when the process goes

    def add_one(self, time_s: float, key: bytes, unit_length: int) -> None:
        self.times.append(time_s)
        self.keys.append(key)
        self.units.append(unit_length)
        if len(self.keys) >= BLOCK_WRITES:
            self.blocks.append(self._spilled(self._pending()))
            self.times, self.keys, self.units = [], [], []

    def _pending(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The writes added one at a time since the last block, as a block."""
        keys, lengths = as_key_array(self.keys)
        return np.array(self.times, dtype=np.float64), keys, lengths, np.array(self.units, dtype=np.uint16)

    def flush(self) -> None:
        if self.keys:
            self.blocks.append(self._pending())
            self.times, self.keys, self.units = [], [], []

    def _spilled(self, block: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`block` written to the spill file and mapped back read only, in one map: each array
        starts on an 8-byte boundary."""
        if self._spill is None:
            self._spill = tempfile.TemporaryFile(prefix="keybench-keys-")
        spill = self._spill
        base = spill.seek(0, io.SEEK_END)
        starts = []
        for array in block:
            spill.write(bytes(-spill.tell() % 8))
            starts.append(spill.tell() - base)
            spill.write(array.tobytes())
        spill.flush()
        mapped = np.memmap(spill, dtype=np.uint8, mode="r", offset=base, shape=(spill.tell() - base,))
        times, keys, lengths, units = (mapped[at:at + a.nbytes].view(a.dtype).reshape(a.shape)
                                       for at, a in zip(starts, block, strict=True))
        return times, keys, lengths, units

    def add(self, times, keys, lengths=None, units=None) -> None:
        self.flush()
        self.blocks.append(write_block(times, keys, lengths, units))

    def __len__(self) -> int:
        return sum(len(block[0]) for block in self.blocks) + len(self.keys)

    def after(self, start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The writes after the first `start`, copying only those. The writes not yet in a block
        stay as they are: a watcher that asks every few seconds leaves no small blocks behind."""
        parts, offset = [], 0
        for block in [*self.blocks, *([self._pending()] if self.keys else [])]:
            end = offset + len(block[0])
            if end > start:
                parts.append(tuple(a[max(0, start - offset):] for a in block))
            offset = end
        if len(parts) == 1:
            return parts[0]  # type: ignore[return-value]  # four arrays, as every block
        return WriteBlocks.joined(parts) if parts else WriteBlocks().arrays()

    @staticmethod
    def joined(parts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        times, keys, lengths, units = (np.concatenate(c) for c in zip(*parts, strict=True))
        return times, keys, lengths, units

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every write as one block. Joined blocks are kept only when none is on disk: a
        spilled stream's copy is the caller's, not held for the rest of the run."""
        self.flush()
        if not self.blocks:
            return np.zeros(0, np.float64), np.zeros(0, "S1"), np.zeros(0, np.uint16), np.zeros(0, np.uint16)
        if len(self.blocks) == 1:
            return self.blocks[0]
        joined = WriteBlocks.joined(self.blocks)
        if self._spill is None:
            self.blocks = [joined]
        return joined
