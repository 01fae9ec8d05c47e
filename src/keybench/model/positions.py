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
    searched. Needles that would mostly be searched anyway (text, whose words crowd a few
    buckets, or words past every value, whose search the processor predicts) are searched
    at once: a probe of them says so."""
    if len(needles) < BUCKETED_NEEDLES or not 2 <= len(values) <= BUCKETED_VALUES:
        return np.searchsorted(values, needles, side=side)
    table = _Buckets(values, side)
    needles = np.asarray(needles, dtype=np.uint64)
    probe = needles[::len(needles) // PROBED_NEEDLES]
    if table.place(probe)[1] > SEARCHED_SHARE * len(probe):
        return np.searchsorted(values, needles, side=side)
    return table.place(needles)[0]


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
