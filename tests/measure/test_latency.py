"""The vectorised figures are hdrh's own, value for value."""

import random

import numpy as np
import pytest

from keybench.measure.collector import HIGHEST_US, LOWEST_US, new_histogram, new_second_histogram
from keybench.measure.latency import latency_figures, record_values


@pytest.mark.parametrize("seed", range(20))
def test_the_figures_are_hdrhs_own_on_random_histograms(seed):
    rng = random.Random(seed)
    h = new_histogram()
    for _ in range(rng.randint(1, 5000)):
        h.record_value(min(int(rng.lognormvariate(rng.uniform(5, 9), rng.uniform(0.3, 2.5))) + 1, 10**9))
    figures = latency_figures(h)
    assert (figures.p50, figures.p90, figures.p99, figures.max) == (
        h.get_value_at_percentile(50), h.get_value_at_percentile(90), h.get_value_at_percentile(99), h.get_max_value())
    assert figures.mean == pytest.approx(h.get_mean_value(), rel=1e-12)
    assert figures.count == h.get_total_count()


def test_an_empty_histogram_gives_zeros():
    figures = latency_figures(new_histogram())
    assert (figures.count, figures.p50, figures.p99, figures.max, figures.mean) == (0, 0, 0, 0, 0.0)


def _edges(highest: int) -> list[int]:
    """Every power of two up to `highest`, and its neighbours: where hdrh's buckets change."""
    return sorted({v for p in range(highest.bit_length()) for v in (2**p - 1, 2**p, 2**p + 1) if 1 <= v <= highest})


@pytest.mark.parametrize("make", [new_histogram, new_second_histogram])
@pytest.mark.parametrize("seed", range(8))
def test_values_recorded_at_once_count_as_hdrh_records_them_one_by_one(make, seed):
    rng = random.Random(seed)
    values = [min(int(rng.lognormvariate(rng.uniform(2, 12), rng.uniform(0.3, 3))) + 1, HIGHEST_US)
              for _ in range(rng.randint(1, 3000))]
    values += _edges(HIGHEST_US) + [LOWEST_US, HIGHEST_US]
    rng.shuffle(values)
    one_by_one, at_once = make(), make()
    for value in values:
        one_by_one.record_value(value)
    cut = rng.randrange(len(values))  # in two calls, as the collector records batch after batch
    record_values(at_once, np.array(values[:cut], dtype=np.int64))
    record_values(at_once, np.array(values[cut:], dtype=np.int64))
    assert list(at_once.counts) == list(one_by_one.counts)
    assert (at_once.get_total_count(), at_once.get_min_value(), at_once.get_max_value()) == (
        one_by_one.get_total_count(), one_by_one.get_min_value(), one_by_one.get_max_value())
    assert at_once.encode() == one_by_one.encode()


def test_recording_no_values_changes_nothing():
    h = new_histogram()
    record_values(h, np.array([], dtype=np.int64))
    assert (h.get_total_count(), h.get_max_value()) == (0, 0)
