"""A read's ranges: its intervals placed among a window's cuts, settled by the units held."""

import numpy as np
import pytest

from keybench.model.readspans import interval_spans

CUTS = np.array([b"b", b"d", b"f"])  # ranges (-inf, b), [b, d), [d, f), [f, inf)
INTERVALS = [(b"a", b"c"), (b"", b""), (b"c", b"e")]  # two ranges at most, a full scan, two at most


@pytest.mark.parametrize(("held", "touched"), [
    ([b"a1", b"c5"], 2 + 4 + 2),  # a unit between each start and the cut after it: the start's range counts
    ([b"e"], 1 + 4 + 1),  # none there: each interval starts at the cut
    ([], 1 + 4 + 1),
])
def test_an_intervals_first_range_is_the_one_holding_its_first_unit(held, touched):
    spans = interval_spans(CUTS, INTERVALS)
    assert spans.touched(np.array(sorted(held), dtype="S2")) == touched


def test_no_cuts_is_one_range_for_every_interval():
    assert interval_spans(np.zeros(0, dtype="S1"), INTERVALS).touched(np.array([b"a"])) == 3
