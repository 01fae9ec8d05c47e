"""Bounded structures the streaming split model keeps between windows (splitmodel.py).

Keys are numpy 'S' arrays (fixed width, trailing NUL bytes ignored, as numpy compares them).
Nothing here grows with the stream: a sample of distinct keys, and a sample of rows with
their exact write counts, each thinned by a hash threshold once it passes its capacity.
Both are exact while the stream has no more distinct keys (rows) than their capacity, and a
uniform random sample of the distinct keys (rows) after that (results/README.md, "The split
model", states the error this leaves).
"""

from __future__ import annotations

import numpy as np

from keybench.design.hashing import mix_rows
from keybench.model.keyorder import quantile_positions, same_width
from keybench.model.positions import sorted_positions
from keybench.model.textcolumns import row_field, row_items

_ALL = np.uint64(2**64 - 1)


HASH_BLOCK = 1 << 14  # keys hashed at a time: the block's words and temporaries stay in cache


def key_hashes(keys: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each key, the same whatever the array's width (a zero word adds
    nothing). Two distinct keys share a hash with probability about 2^-64."""
    width, count = keys.dtype.itemsize, len(keys)
    out = np.zeros(count, dtype=np.uint64)
    if not count:
        return out
    matrix = np.ascontiguousarray(keys).view(np.uint8).reshape(count, width)
    words_per_key = -(-width // 8)
    block = min(HASH_BLOCK, count)
    padded = np.zeros((block, 8 * words_per_key), dtype=np.uint8)  # a key padded with NULs to whole words
    x, shifted = np.empty(block, dtype=np.uint64), np.empty(block, dtype=np.uint64)
    for lo in range(0, count, block):
        n = min(block, count - lo)
        row_field(padded[:n], 0, width)[:] = row_items(matrix[lo:lo + n])  # a row at a time, not byte by byte
        words, x_, shifted_, out_ = padded[:n].view(np.uint64), x[:n], shifted[:n], out[lo:lo + n]
        for i in range(words_per_key):
            # splitmix64's finaliser of word * an odd constant per position: 0 stays 0
            np.multiply(words[:, i], np.uint64(0x9E3779B97F4A7C15 + 2 * i), out=x_)
            mix_rows(x_, shifted_)
            out_ ^= x_
    return out


def hash_groups(hashes: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                              np.ndarray]:
    """Each distinct hash, ascending, with the index of its first and of its last occurrence
    and its count: np.unique's, from one sort that need not be stable (np.unique sorts stably
    to find the first occurrence, several times slower); `order`: np.argsort(hashes), if the
    caller has it."""
    if not len(hashes):
        return hashes, np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0, np.intp)
    order = np.argsort(hashes) if order is None else order
    ordered = hashes[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, len(hashes)))
    return ordered[starts], np.minimum.reduceat(order, starts), np.maximum.reduceat(order, starts), counts


class _HashThinned:
    """A sample that keeps what hashes at or below `threshold`, halved as often as the
    sample passes its capacity: every key (row) is kept with the same chance, `fraction`."""

    threshold = _ALL

    @property
    def thinned(self) -> bool:
        return self.threshold != _ALL

    @property
    def fraction(self) -> float:
        """The share of the distinct keys (rows) the sample holds."""
        return (float(self.threshold) + 1) / 2**64


class DistinctSample(_HashThinned):
    """Distinct keys seen so far, or, once there are more than `capacity`, those whose hash
    falls under a threshold halved as often as needed: a uniform random sample of the
    distinct keys (the same key is always in or always out). Kept sorted, for quantiles.

    The hashes `add` takes are `key_hashes` of the keys (the same whatever the array's width):
    a set of them tells a new key from one held, and thinning hashes the held keys again.
    The keys of recent windows wait in a small sorted array of their own, merged into the big
    one once they are an eighth of it: a quantile reads the two as one, so the big array is
    not copied for every window (the figures are those of one array)."""

    MERGE_SHARE = 8  # the fresh keys are merged once they are 1/MERGE_SHARE of the others

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.threshold = _ALL  # a key is kept when its hash is at or below it
        self._main = np.zeros(0, dtype="S1")  # sorted
        self._fresh = np.zeros(0, dtype="S1")  # sorted; none of them in _main
        self._fresh_at = np.zeros(0, dtype=np.int64)  # where each fresh key would go in _main
        self._held: set[int] = set()  # the hashes of the keys held

    def __len__(self) -> int:
        return len(self._main) + len(self._fresh)

    @property
    def keys(self) -> np.ndarray:
        """Every key held, sorted."""
        self._merge()
        return self._main

    def _merge(self) -> None:
        if len(self._fresh):
            main, fresh = same_width(self._main, self._fresh)
            self._main = np.insert(main, self._fresh_at, fresh)
            self._fresh, self._fresh_at = fresh[:0], self._fresh_at[:0]

    def add(self, keys: np.ndarray, hashes: np.ndarray, order: np.ndarray | None = None) -> None:
        """Keys and their hashes (`order`: np.argsort(hashes), if at hand)."""
        kept = np.flatnonzero(hashes <= self.threshold) if self.thinned else None
        if kept is not None:
            keys, hashes, order = keys[kept], hashes[kept], None
        if not len(keys):
            return
        distinct, first, _, _ = hash_groups(hashes, order)
        held = self._held
        new = np.fromiter((h not in held for h in distinct.tolist()), dtype=bool, count=len(distinct))
        if not new.any():
            return
        distinct, first = distinct[new], first[new]
        held.update(distinct.tolist())
        new_keys = np.sort(keys[first])
        if new_keys.dtype.itemsize > self._main.dtype.itemsize:  # the arrays must compare alike: widen them now
            self._merge()
            self._main, new_keys = same_width(self._main, new_keys)
        width = self._main.dtype
        fresh, new_keys = self._fresh.astype(width, copy=False), new_keys.astype(width, copy=False)
        at = np.searchsorted(fresh, new_keys)
        self._fresh = np.insert(fresh, at, new_keys)
        self._fresh_at = np.insert(self._fresh_at, at, np.searchsorted(self._main, new_keys))
        if len(self._fresh) * self.MERGE_SHARE > len(self._main):
            self._merge()
        while len(self) > self.capacity:
            self._merge()
            self.threshold >>= np.uint64(1)
            self._main = self._main[key_hashes(self._main) <= self.threshold]
            limit = int(self.threshold)
            self._held = held = {h for h in held if h <= limit}

    def quantile_cuts(self, pieces: int) -> np.ndarray:
        """Keys that cut the sample into `pieces` equal counts (fewer with fewer keys)."""
        ranks = quantile_positions(len(self), pieces)
        if not len(self._fresh):
            return self._main[ranks]
        main, fresh = self._main, self._fresh
        # Where each fresh key stands among all the keys, as the merge would put it.
        places = self._fresh_at + np.arange(len(fresh))
        before = np.searchsorted(places, ranks)  # fresh keys ahead of each rank
        is_fresh = (before < len(places)) & (places[np.minimum(before, len(places) - 1)] == ranks)
        return np.where(is_fresh, fresh[np.minimum(before, len(fresh) - 1)],
                        main[np.clip(ranks - before, 0, max(len(main) - 1, 0))])


def _held_at(held: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `hashes` is or would go among `held` (ascending, not empty), clamped to
    its last index, and whether it is there."""
    at = np.minimum(np.searchsorted(held, hashes), len(held) - 1)
    return at, held[at] == hashes


class RowSample(_HashThinned):
    """Exact write counts, first and last write times of every row, or, once there are more
    than `capacity` rows, of a uniform random sample of them (by hash, as DistinctSample).
    Rows it drops that were written more than once go to a table of the `heavy` most
    written rows, which then also takes any row written twice within one window: the
    busiest row is found even once the sample no longer holds it."""

    def __init__(self, capacity: int, heavy: int = 1024):
        self.capacity, self.heavy_capacity = capacity, heavy
        self.threshold = _ALL
        self.hashes = np.zeros(0, dtype=np.uint64)  # sorted
        self.keys = np.zeros(0, dtype="S1")
        self.counts = np.zeros(0, dtype=np.int64)
        self.first = np.zeros(0, dtype=np.float64)
        self.last = np.zeros(0, dtype=np.float64)
        self.heavy = self._empty()
        # Rows first written since the last merge, a small table of their own: merged into
        # the big one once they are 1/MERGE_SHARE of it, so that its arrays are not copied
        # for every window (a row is in one of the two; the figures are those of one table).
        self.fresh = self._empty()
        self.writes = 0
        self._buffer: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # windows not yet counted
        self._buffered = 0

    MERGE_SHARE = 8

    def __len__(self) -> int:
        return len(self.hashes) + len(self.fresh["hashes"])

    def _merge(self) -> None:
        fresh, self.fresh = self.fresh, self._empty()
        self._insert(self.__dict__, *(fresh[name] for name in self.FIELDS))

    # a table's arrays, each row's figures at one index, and their types
    _TYPES: dict[str, np.dtype] = {name: np.dtype(kind) for name, kind in (
        ("hashes", np.uint64), ("keys", "S1"), ("counts", np.int64), ("first", np.float64), ("last", np.float64))}
    FIELDS = tuple(_TYPES)

    @classmethod
    def _empty(cls) -> dict[str, np.ndarray]:
        return {name: np.zeros(0, dtype) for name, dtype in cls._TYPES.items()}

    def add(self, keys: np.ndarray, hashes: np.ndarray, times: np.ndarray, ordered: np.ndarray | None = None) -> None:
        """One window's writes, in time order (`ordered`: their hashes sorted, if at hand).
        While every row fits, windows wait in a buffer and are counted together (the same
        figures: counts add up, a row's first and last write are the buffer's first and last),
        so the table is not rebuilt for every window."""
        if not self.thinned and len(self) + self._buffered + len(hashes) <= self.capacity:
            self._buffer.append((keys, hashes, times))
            self._buffered += len(hashes)
            return
        self.settle()
        self._count(keys, hashes, times, ordered)

    def settle(self) -> None:
        """Counts the buffered windows into the table."""
        if not self._buffer:
            return
        buffer, self._buffer, self._buffered = self._buffer, [], 0
        if len(buffer) == 1:
            self._count(*buffer[0])
            return
        width = max(b[0].dtype.itemsize for b in buffer)
        keys = np.concatenate([b[0].astype(f"S{width}", copy=False) for b in buffer])
        self._count(keys, np.concatenate([b[1] for b in buffer]), np.concatenate([b[2] for b in buffer]))

    def _count(self, keys: np.ndarray, hashes: np.ndarray, times: np.ndarray,
               ordered: np.ndarray | None = None) -> None:
        self.writes += len(hashes)
        if self.thinned:
            self._track_heavy(keys, hashes, times, np.sort(hashes) if ordered is None else ordered)
            kept = np.flatnonzero(hashes <= self.threshold)
            keys, hashes, times = keys[kept], hashes[kept], times[kept]
        if not len(hashes):
            return
        distinct, first, last, counts = hash_groups(hashes)
        last_times = times[last]
        new = np.arange(len(distinct))
        for table in (self.__dict__, self.fresh):
            new = new[self._count_held(table, distinct[new], counts[new], last_times[new])]
        self._insert(self.fresh, distinct[new], keys[first[new]], counts[new], times[first[new]], last_times[new])
        if len(self.fresh["hashes"]) * self.MERGE_SHARE > len(self.hashes):
            self._merge()
        while len(self) > self.capacity:
            self._merge()
            self.threshold >>= np.uint64(1)
            held_mask = self.hashes <= self.threshold
            dropped = ~held_mask & (self.counts > 1)
            self._admit_heavy(*(getattr(self, f)[dropped] for f in self.FIELDS))
            for name in self.FIELDS:
                setattr(self, name, getattr(self, name)[held_mask])

    @staticmethod
    def _count_held(table: dict, hashes: np.ndarray, counts: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Adds the writes of the rows `table` holds (distinct `hashes`, ascending) to their
        counts and last times; returns whether each is not held."""
        if not len(table["hashes"]):
            return np.ones(len(hashes), dtype=bool)
        at, known = _held_at(table["hashes"], hashes)
        table["counts"][at[known]] += counts[known]
        table["last"][at[known]] = last[known]
        return ~known

    @staticmethod
    def _insert(table: dict, hashes, keys, counts, first, last) -> None:
        if not len(hashes):
            return
        at = np.searchsorted(table["hashes"], hashes)
        held, keys = same_width(table["keys"], keys)
        table["hashes"] = np.insert(table["hashes"], at, hashes)
        table["keys"] = np.insert(held, at, keys)
        table["counts"] = np.insert(table["counts"], at, counts)
        table["first"] = np.insert(table["first"], at, first)
        table["last"] = np.insert(table["last"], at, last)

    def _admit_heavy(self, hashes, keys, counts, first, last) -> None:
        """Rows into the heavy table (a row already there keeps the figures of the two that
        counted more of its writes); past its capacity, the least written go."""
        heavy = self.heavy
        if len(heavy["hashes"]):
            at, known = _held_at(heavy["hashes"], hashes)
            fresh = ~known
            better = known & (counts > heavy["counts"][at])
            for name, values in (("counts", counts), ("first", first), ("last", last)):
                heavy[name][at[better]] = values[better]
            hashes, keys, counts, first, last = hashes[fresh], keys[fresh], counts[fresh], first[fresh], last[fresh]
        self._insert(heavy, hashes, keys, counts, first, last)
        if len(heavy["hashes"]) > self.heavy_capacity:
            keep = np.sort(np.argsort(-heavy["counts"], kind="stable")[:self.heavy_capacity])
            for name in heavy:
                heavy[name] = heavy[name][keep]

    def _track_heavy(self, keys: np.ndarray, hashes: np.ndarray, times: np.ndarray, ordered: np.ndarray) -> None:
        """Counts the window's writes to the heavy rows, and admits the rows the window
        writes more than once (their writes before this window are not counted)."""
        heavy = self.heavy
        if len(heavy["hashes"]):
            written = (np.searchsorted(ordered, heavy["hashes"], side="right")
                       - np.searchsorted(ordered, heavy["hashes"], side="left"))
            heavy["counts"] += written
            heavy["last"] = np.where(written > 0, times[-1], heavy["last"])
        repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
        if not len(repeated):
            return
        values, counts = np.unique(ordered[repeated], return_counts=True)
        counts += 1
        top = np.sort(np.argsort(-counts, kind="stable")[:self.heavy_capacity])  # values stay sorted
        values, counts = values[top], counts[top]
        at = np.minimum(sorted_positions(values, hashes), len(values) - 1)
        hit = np.flatnonzero(values[at] == hashes)
        first_write = np.empty(len(values), dtype=np.int64)
        first_write[at[hit][::-1]] = hit[::-1]  # of repeated indexes the last assignment holds: the first write
        self._admit_heavy(values, keys[first_write], counts, times[first_write], np.full(len(values), times[-1]))

    def growth(self, span: float) -> tuple[int, float, float, int, float]:
        """(rows, rewrite share, rewrite lifetime, the busiest row's writes, its writes per
        second): exact while no row was dropped. After, the heavy rows count as they are and
        the sample's other rows each for 1 / fraction rows (a stratified estimate)."""
        self.settle()
        self._merge()
        if not self.writes:
            return 0, 0.0, 0.0, 0, 0.0
        heavy = self.heavy
        sampled = np.ones(len(self.hashes), dtype=bool)
        if len(heavy["hashes"]):
            at = np.minimum(np.searchsorted(heavy["hashes"], self.hashes), len(heavy["hashes"]) - 1)
            sampled = heavy["hashes"][at] != self.hashes
        table = {"keys": np.concatenate(same_width(self.keys, heavy["keys"])),
                 "counts": np.concatenate([self.counts, heavy["counts"]]),
                 "life": np.concatenate([self.last - self.first, heavy["last"] - heavy["first"]]),
                 "weight": np.concatenate([np.where(sampled, 1 / self.fraction, 0.0), np.ones(len(heavy["counts"]))])}
        # a heavy row the sample also holds counts once, with the sample's exact figures
        table["weight"][np.flatnonzero(~sampled)] = 1.0
        if len(heavy["hashes"]):
            in_sample = np.isin(heavy["hashes"], self.hashes)
            table["weight"][len(self.hashes):][in_sample] = 0.0
        rewrites = (table["counts"] - 1) * table["weight"]
        lifetime = 0.0
        if rewrites.sum() and span > 0:
            lifetime = float((rewrites * table["life"]).sum() / rewrites.sum() / span)
        rows = int(round(table["weight"].sum()))
        most = table["counts"].max()
        tied = np.flatnonzero(table["counts"] == most)
        busiest = tied[np.argsort(table["keys"][tied], kind="stable")[0]]  # of equals, the first in key order
        per_s = float(most / table["life"][busiest]) if table["life"][busiest] > 0 else 0.0
        return rows, min(1.0, float(rewrites.sum() / self.writes)), min(1.0, lifetime), int(most), per_s
