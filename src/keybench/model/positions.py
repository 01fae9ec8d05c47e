"""Where words go among sorted words: np.searchsorted for many words in no order among few
(the split model places every write of a window among a few hundred range boundaries), and
which words are among them."""

from __future__ import annotations

from typing import Literal

import numpy as np

BUCKET_BITS = 12  # a word's bucket in sorted_positions: a few hundred values rarely share one
BUCKETED_NEEDLES = 1 << 14  # fewer needles than this are placed by np.searchsorted alone,
BUCKETED_VALUES = 1 << 10  # and so are needles among more values (their buckets would be shared)
PROBED_NEEDLES = 256  # needles tried first: are most placed without a search?
SEARCHED_SHARE = 0.25  # past this share of the probe left to np.searchsorted, it places them all


def sorted_positions(values: np.ndarray, needles: np.ndarray, side: Literal["left", "right"] = "left") -> np.ndarray:
    """np.searchsorted(values, needles, side) for sorted uint64 `values`, the same numbers,
    faster for many needles in no order among few values: np.searchsorted's binary search
    takes a branch the processor cannot predict at every step, for every needle. Here the
    span of the values is cut into 2^12 buckets, and a table says where the words of each
    bucket go: a needle whose bucket holds no value is placed by one look-up, one whose
    bucket holds one value (once or repeated) by one comparison with it, and the others are
    searched. When a probe of the needles says most would be searched (text, whose words crowd
    a few buckets), a table of the distinct values places those equal to one (_Exact); when
    that too would search most (words past every value, whose search the processor
    predicts), np.searchsorted places them all."""
    if len(needles) < BUCKETED_NEEDLES or not 2 <= len(values) <= BUCKETED_VALUES:
        return np.searchsorted(values, needles, side=side)
    needles = np.asarray(needles, dtype=np.uint64)
    probe = needles[::len(needles) // PROBED_NEEDLES]
    table = _Buckets(values, side)
    if table.place(probe)[1] <= SEARCHED_SHARE * len(probe):
        return table.place(needles)[0]
    if np.isin(probe, values).sum() >= (1 - SEARCHED_SHARE) * len(probe):  # worth a table of the values
        return _Exact(values, side).place(needles)[0]
    return np.searchsorted(values, needles, side=side)


_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the high bits of value * 2^64/phi


class _Exact:
    """Where needles equal to one of the values go (text words: a key's first word is mostly
    that of a range boundary, and such words crowd a few buckets): an open-addressing table
    of the distinct values (a quarter of its slots taken, so a look-up rarely passes a
    slot); the needles that are none of them are searched."""

    def __init__(self, values: np.ndarray, side: Literal["left", "right"]):
        self.values, self.side = values, side
        distinct, first, counts = np.unique(values, return_index=True, return_counts=True)
        self.bits = max(4, (4 * len(distinct) - 1).bit_length())
        self.mask = (1 << self.bits) - 1
        self.held = np.zeros(1 << self.bits, dtype=np.uint64)
        self.at = np.full(1 << self.bits, -1, dtype=np.intp)
        self.passes = 1  # slots a look-up may have to try
        at = first + counts if side == "right" else first
        for value, slot, place in zip(distinct.tolist(), self._slots(distinct).tolist(), at.tolist(), strict=True):
            step = 0
            while self.at[(slot + step) & self.mask] >= 0:
                step += 1
            self.held[(slot + step) & self.mask], self.at[(slot + step) & self.mask] = value, place
            self.passes = max(self.passes, step + 1)

    def _slots(self, words: np.ndarray) -> np.ndarray:
        return ((words * _MULTIPLIER) >> np.uint64(64 - self.bits)).astype(np.intp)

    def place(self, needles: np.ndarray) -> tuple[np.ndarray, int]:
        """The needles' positions, and how many of them were not placed by the table."""
        slots = self._slots(needles)
        out = np.empty(len(needles), dtype=np.intp)
        missed, todo = [], np.arange(len(needles))
        for step in range(self.passes):
            slot = (slots[todo] + step) & self.mask
            at = self.at[slot]
            found = (at >= 0) & (self.held[slot] == needles[todo])
            out[todo[found]] = at[found]
            missed.append(todo[at < 0])  # an empty slot ends the look-up: none of the values
            todo = todo[~found & (at >= 0)]
        missed.append(todo)
        searched = np.concatenate(missed)
        out[searched] = np.searchsorted(self.values, needles[searched], side=self.side)
        return out, len(searched)


class _Buckets:
    """The table of sorted_positions: per bucket of words, where its lowest word goes, and
    how far past that a word of it goes once it passes the values in the bucket, when they
    are all one value (else -1: searched); a last slot for the words outside every bucket."""

    def __init__(self, values: np.ndarray, side: Literal["left", "right"]):
        self.values, self.side = values, side
        self.low = low = int(values[0])
        self.shift = shift = max(0, (int(values[-1]) - low).bit_length() - BUCKET_BITS)  # every value in a bucket
        self.reach = ((2**64 - 1 - low) >> shift) + 1  # the buckets of the words from `low` up
        self.buckets = buckets = min(1 << BUCKET_BITS, self.reach)
        starts = np.uint64(low) + (np.arange(buckets, dtype=np.uint64) << np.uint64(shift))
        self.first = first = np.zeros(buckets + 1, dtype=np.intp)
        self.within = within = np.zeros(buckets + 1, dtype=np.intp)
        first[:-1] = np.searchsorted(values, starts, side=side)
        within[:-2] = np.searchsorted(values, starts[1:], side="left")
        top = low + (buckets << shift)  # past the last bucket: above every value
        within[-2] = np.searchsorted(values, np.uint64(top), side="left") if top < 2**64 else len(values)
        within[:-1] -= first[:-1]
        last = np.minimum(first + within, len(values)) - 1
        within[(within > 1) & (values[np.minimum(first, len(values) - 1)] != values[np.maximum(last, 0)])] = -1

    def place(self, needles: np.ndarray) -> tuple[np.ndarray, int]:
        """The needles' positions, and how many of them were not placed by the table."""
        values, low = self.values, np.uint64(self.low)
        bucket = needles - low  # a word below `low` wraps round, past the last bucket
        bucket >>= np.uint64(self.shift)
        outside = np.flatnonzero(bucket >= np.uint64(self.buckets))
        if self.buckets == self.reach:  # near the top of the words, one below `low` may wrap into a bucket
            outside = np.union1d(outside, np.flatnonzero(needles < low))
        bucket[outside] = self.buckets
        index = bucket.view(np.int64)  # every bucket now fits
        at, step = self.first[index], self.within[index]
        one = np.flatnonzero(step > 0)
        passed = np.less if self.side == "left" else np.less_equal
        at[one] += passed(values[at[one]], needles[one]) * step[one]
        searched = np.flatnonzero(step < 0)
        at[searched] = np.searchsorted(values, needles[searched], side=self.side)
        at[outside] = np.where(needles[outside] < low, 0, len(values))
        return at, len(searched) + len(outside)


_SLOT = np.uint64(0x9E3779B97F4A7C15)
_SLOT_SHIFT = np.uint64(48)


def members(words: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Indexes of the `words` among the sorted distinct `values` (a 2^16-slot table of hashes first)."""
    if len(values) <= 2:
        return np.flatnonzero(np.isin(words, values))
    table = np.zeros(1 << 16, dtype=bool)
    table[(values * _SLOT) >> _SLOT_SHIFT] = True
    maybe = np.flatnonzero(table[(words * _SLOT) >> _SLOT_SHIFT])
    at = np.minimum(sorted_positions(values, words[maybe]), len(values) - 1)
    return maybe[values[at] == words[maybe]]
