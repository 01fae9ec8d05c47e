"""The ranges a sampled read touches: its byte intervals placed among the range cuts of the
window it falls in, and settled against the units held at the end of the stream."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class IntervalSpans:
    """The ranges a read's intervals [start, end) span, as far as the window the read falls
    in tells: the ranges are those starting at -inf and at each cut. An interval's first
    range is the one holding the first unit at or after its start, which may be written
    later, so `touched` settles it at the end of the stream. Arrays, one item per interval:
    a read of thousands of intervals (a shard per bucket) costs a few numpy calls."""

    starts: np.ndarray  # 'S' array
    below: np.ndarray  # cuts before each start
    next_cuts: np.ndarray  # 'S' array: the first cut at or after each start
    has_next: np.ndarray  # whether there is one (a start, and a cut after it)
    last: np.ndarray  # the range holding the last unit before each end (end b"": the last range)

    def touched(self, held: np.ndarray) -> int:
        """Ranges spanned by all the intervals, `held` the sorted distinct units of the whole
        stream (or a sample)."""
        first = self.below.copy()
        if self.has_next.any() and len(held):
            width = max(held.dtype.itemsize, self.starts.dtype.itemsize, self.next_cuts.dtype.itemsize, 1)
            held = held.astype(f"S{width}", copy=False)
            at = np.searchsorted(held, self.starts[self.has_next].astype(held.dtype), side="left")
            after = held[np.minimum(at, len(held) - 1)]
            # no unit between start and the cut: the interval's first range is the cut's
            first[self.has_next] += (at == len(held)) | (after >= self.next_cuts[self.has_next].astype(held.dtype))
        elif self.has_next.any():
            first[self.has_next] += 1
        return int((np.maximum(first, self.last) - first + 1).sum())


def interval_spans(cuts: np.ndarray, intervals: list[tuple[bytes, bytes]]) -> IntervalSpans:
    width = max([cuts.dtype.itemsize, 1] + [max(len(a), len(b)) for a, b in intervals])
    cuts = cuts.astype(f"S{width}", copy=False)
    starts = np.array([a for a, _ in intervals], dtype=f"S{width}")
    ends = np.array([b for _, b in intervals], dtype=f"S{width}")
    has_start = np.fromiter((bool(a) for a, _ in intervals), dtype=bool, count=len(intervals))
    has_end = np.fromiter((bool(b) for _, b in intervals), dtype=bool, count=len(intervals))
    below = np.where(has_start, np.searchsorted(cuts, starts, side="left"), 0)
    last = np.where(has_end, np.searchsorted(cuts, ends, side="left"), len(cuts))
    has_next = has_start & (below < len(cuts))
    next_cuts = cuts[np.minimum(below, len(cuts) - 1)] if len(cuts) else np.zeros(len(intervals), dtype=cuts.dtype)
    return IntervalSpans(starts, below, next_cuts, has_next, last)
