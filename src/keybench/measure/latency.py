"""An HdrHistogram's values recorded, and its percentiles, max and mean read, in vectorised
passes over its counts.

hdrh's own get_value_at_percentile and get_mean_value walk the counts array in Python, one
bucket at a time: about 10 ms per figure on a stage's histogram, which made the summary the
largest cost of a run outside its load (7.7 s of a 98 s Bigtable smoke run, py-spy). Its
record_value takes a value at a time, a few Python calls each, and the collector records
every operation twice (its series, its second). The figures and counts here are the ones hdrh
gives, bucket for bucket (tests/measure/test_latency.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hdrh.histogram import HdrHistogram


@dataclass(frozen=True)
class LatencyFigures:
    """Microseconds, as recorded; all 0 for an empty histogram."""

    count: int
    p50: int
    p90: int
    p99: int
    max: int
    mean: float


def record_values(h: HdrHistogram, values: np.ndarray) -> None:
    """hdrh's record_value for each of `values` (int64, each within the histogram's trackable
    range, as the collector clamps them), in one pass: the same counts, total, min and max."""
    if not len(values):
        return
    # hdrh's _counts_index_for: its bucket is the bit length of value | sub_bucket_mask (frexp's
    # exponent, exact below 2**53), less the bucket's own magnitude.
    bits = np.frexp((values | h.sub_bucket_mask).astype(np.float64))[1].astype(np.int64)
    bucket = bits - h.unit_magnitude - (h.sub_bucket_half_count_magnitude + 1)
    sub_bucket = values >> (bucket + h.unit_magnitude)
    index = ((bucket + 1) << h.sub_bucket_half_count_magnitude) + sub_bucket - h.sub_bucket_half_count
    np.add.at(np.ctypeslib.as_array(h.counts), index, 1)
    h.total_count += len(values)
    h.min_value = min(h.min_value, int(values.min()))
    h.max_value = max(h.max_value, int(values.max()))


def latency_figures(h: HdrHistogram) -> LatencyFigures:
    count = h.get_total_count()
    if not count:
        return LatencyFigures(0, 0, 0, 0, 0, 0.0)
    counts = np.ctypeslib.as_array(h.counts)[:h.counts_len]
    cumulative = np.cumsum(counts)

    def at(percentile: float) -> int:
        # hdrh: the first bucket whose cumulative count reaches the target, as its highest value
        index = int(np.searchsorted(cumulative, h.get_target_count_at_percentile(percentile)))
        return h.get_highest_equivalent_value(h.get_value_from_index(index))

    recorded = np.nonzero(counts)[0]
    lowest, width = _bucket_values(h, recorded)
    mean = float(np.dot(counts[recorded].astype(np.float64), (lowest + (width >> 1)).astype(np.float64))) / count
    return LatencyFigures(count, at(50), at(90), at(99), h.get_max_value(), mean)


def _bucket_values(h: HdrHistogram, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lowest value and the width of each counts index's bucket (hdrh's get_value_from_index
    and its equivalent-value range, vectorised)."""
    index = index.astype(np.int64)
    bucket = (index >> h.sub_bucket_half_count_magnitude) - 1
    sub_bucket = (index & (h.sub_bucket_half_count - 1)) + h.sub_bucket_half_count
    first = bucket < 0
    sub_bucket[first] -= h.sub_bucket_half_count
    bucket[first] = 0
    return sub_bucket << (bucket + h.unit_magnitude), np.int64(1) << (bucket + h.unit_magnitude)
