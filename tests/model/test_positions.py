"""sorted_positions against np.searchsorted, on words of every shape the model meets."""

import numpy as np
import pytest

from keybench.model.positions import _Buckets, _Exact, members, sorted_positions

TOP = 2**64 - 1


def _values(rng, kind, n):
    """Sorted words of several shapes: spread over all 64 bits, packed against the top or
    the bottom, a narrow run anywhere, a few repeated, only the two extremes, or the first
    eight characters of hex text (a few values in a bucket of their own, many buckets empty)."""
    if kind == "text":
        v = np.frombuffer(b"0123456789abcdef", np.uint8)[rng.integers(0, 16, size=(n, 8))].view(">u8").ravel()
    elif kind == "spread":
        v = rng.integers(0, TOP, size=n, dtype=np.uint64, endpoint=True)
    elif kind == "top":
        v = np.uint64(TOP) - rng.integers(0, 1000, size=n, dtype=np.uint64)
    elif kind == "bottom":
        v = rng.integers(0, 50, size=n, dtype=np.uint64)
    elif kind == "narrow":
        v = rng.integers(0, TOP - 2**21, dtype=np.uint64) + rng.integers(0, 2**20, size=n, dtype=np.uint64)
    elif kind == "repeated":
        v = np.repeat(rng.integers(0, TOP, size=3, dtype=np.uint64), n)
    else:
        v = np.array([0, TOP] * n, dtype=np.uint64)
    return np.sort(v)


@pytest.mark.parametrize("kind", ["spread", "top", "bottom", "narrow", "repeated", "extremes", "text"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_sorted_positions_are_those_of_searchsorted(kind, side):
    rng = np.random.default_rng(11)
    for n in (2, 3, 40, 400, 4000):
        values = _values(rng, kind, n)
        one = np.uint64(1)
        needles = np.concatenate([rng.integers(0, TOP, size=1 << 15, dtype=np.uint64, endpoint=True),
                                  _values(rng, kind, 1 << 15), rng.choice(values, size=1 << 15),
                                  values - one, values + one,
                                  np.array([0, TOP], dtype=np.uint64)])
        rng.shuffle(needles)
        expected = np.searchsorted(values, needles, side=side)
        assert np.array_equal(sorted_positions(values, needles, side), expected)
        # and each table alone, which the probe may have passed over for these needles
        assert np.array_equal(_Buckets(values, side).place(needles)[0], expected)
        assert np.array_equal(_Exact(values, side).place(needles)[0], expected)


@pytest.mark.parametrize("side", ["left", "right"])
def test_words_of_text_that_mostly_equal_a_value_are_placed_by_the_table_of_values(side):
    # The first words of keys led by a tenant and a device type: a few dozen, each the word
    # of several range boundaries, in one bucket of _Buckets; a tenth of the needles none of them.
    rng = np.random.default_rng(3)
    words = np.array([f"{t:02d}#{kind}".encode()[:8].ljust(8, b"#") for t in range(20)
                      for kind in ("phone", "tablet", "watch")]).view(">u8").astype(np.uint64)
    values = np.sort(rng.choice(words, size=500))
    needles = np.concatenate([rng.choice(words, size=90_000), rng.integers(0, TOP, size=10_000, dtype=np.uint64)])
    rng.shuffle(needles)
    expected = np.searchsorted(values, needles, side=side)
    assert np.array_equal(sorted_positions(values, needles, side), expected)
    placed, searched = _Exact(values, side).place(needles)
    assert np.array_equal(placed, expected) and searched <= 10_000 + np.isin(words, values, invert=True).sum() * 2000
    assert _Buckets(values, side).place(needles)[1] > 0.25 * len(needles)  # the buckets alone would search most


@pytest.mark.parametrize("count", [1, 2, 3, 400])
def test_members_are_the_words_among_the_values(count):
    rng = np.random.default_rng(5)
    values = np.unique(rng.integers(0, TOP, size=count, dtype=np.uint64, endpoint=True))
    words = np.concatenate([rng.integers(0, TOP, size=1 << 15, dtype=np.uint64), rng.choice(values, size=1 << 15)])
    rng.shuffle(words)
    assert np.array_equal(members(words, values), np.flatnonzero(np.isin(words, values)))
