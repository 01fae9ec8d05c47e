"""The vectorised figures are hdrh's own, value for value."""

import random

import pytest

from keybench.measure.collector import new_histogram
from keybench.measure.latency import latency_figures


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
