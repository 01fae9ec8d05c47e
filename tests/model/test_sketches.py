"""The bounded structures of the streaming split model, against exact answers on streams
small enough to compute them."""

import numpy as np
import pytest

from keybench.model.keyorder import quantile_positions
from keybench.model.sketches import HASH_BLOCK, DistinctSample, RowSample, hash_groups, key_hashes
from tests.model.test_keyorder import _keys


def test_hashes_ignore_the_arrays_padding_and_tell_keys_apart():
    keys = np.array([b"a", b"ab", b"abc\x00d", b"\x01"], dtype="S5")
    assert (key_hashes(keys) == key_hashes(keys.astype("S24"))).all()
    assert len(set(key_hashes(keys).tolist())) == 4



def test_each_key_has_its_hash_whichever_block_it_is_hashed_in():
    keys = _keys(np.random.default_rng(4), 2 * HASH_BLOCK + 5, width=20)  # three blocks
    assert (key_hashes(keys) == key_hashes(keys[::-1])[::-1]).all()


def test_distinct_sample_is_exact_below_its_capacity():
    rng = np.random.default_rng(1)
    keys = _keys(rng, 3000, width=4)
    sample = DistinctSample(capacity=10_000)
    for block in np.array_split(keys, 7):
        sample.add(block, key_hashes(block))
    distinct = np.unique(keys)
    assert not sample.thinned and (sample.keys == distinct).all()
    assert (sample.quantile_cuts(50) == distinct[quantile_positions(len(distinct), 50)]).all()


def test_distinct_sample_quantiles_are_exact_after_every_window_merged_or_not():
    # Small windows after a big one wait unmerged: a quantile must read them as if merged, and
    # a window of wider keys (or one that repeats held keys) must change nothing of that.
    rng = np.random.default_rng(3)
    seen: set[bytes] = set()
    sample = DistinctSample(capacity=100_000)
    for i, (count, width) in enumerate([(4000, 6), *[(60, 6)] * 20, (50, 9), *[(40, 4)] * 10]):
        block = _keys(rng, count, width=width)
        if i % 3 == 0 and seen:
            block = np.concatenate([block, np.array(sorted(seen)[:30], dtype=block.dtype)])
        sample.add(block, key_hashes(block))
        seen.update(block.tolist())
        distinct = np.array(sorted(seen))
        for pieces in (2, 17, 256):
            assert (sample.quantile_cuts(pieces) == distinct[quantile_positions(len(distinct), pieces)]).all(), i
        assert len(sample) == len(distinct)
    assert (sample.keys == np.array(sorted(seen))).all()


def test_distinct_sample_quantiles_stay_within_their_standard_error_once_thinned():
    rng = np.random.default_rng(2)
    keys = rng.integers(0, 256, size=(200_000, 12), dtype=np.uint8).view("S12").ravel()
    keys = np.concatenate([keys, keys[:50_000]])  # rewrites count once
    sample = DistinctSample(capacity=4096)
    for block in np.array_split(keys, 25):
        sample.add(block, key_hashes(block))
    assert sample.thinned and 2048 <= len(sample) <= 4096
    distinct = np.unique(keys)
    assert len(sample) / sample.fraction == pytest.approx(len(distinct), rel=0.1)
    pieces = 20
    share = np.searchsorted(distinct, sample.quantile_cuts(pieces)) / len(distinct)
    target = np.arange(1, pieces) / pieces
    se = np.sqrt(target * (1 - target) / len(sample))
    assert (np.abs(share - target) <= 4 * se).all(), np.abs(share - target) / se


def _exact_growth(keys, times):
    distinct, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    first = np.full(len(distinct), np.inf)
    last = np.full(len(distinct), -np.inf)
    np.minimum.at(first, inverse, times)
    np.maximum.at(last, inverse, times)
    rewrites = counts - 1
    return len(distinct), rewrites.sum() / len(keys), (rewrites * (last - first)).sum() / rewrites.sum(), counts.max()


def test_row_sample_is_exact_below_its_capacity():
    rng = np.random.default_rng(3)
    keys = _keys(rng, 4000, width=3)
    times = np.arange(len(keys), dtype=np.float64)
    rows = RowSample(capacity=10_000)
    for block in np.array_split(np.arange(len(keys)), 9):
        rows.add(keys[block], key_hashes(keys[block]), times[block])
    count, rewrite_share, lifetime, most, _ = rows.growth(span=times[-1] - times[0])
    exact = _exact_growth(keys, times)
    assert (count, most) == (exact[0], exact[3])
    assert rewrite_share == pytest.approx(exact[1]) and lifetime == pytest.approx(exact[2] / (times[-1] - times[0]))


def test_row_sample_estimates_rewrites_and_keeps_the_busiest_row_once_thinned():
    rng = np.random.default_rng(4)
    n = 120_000
    keys = rng.integers(0, 256, size=(n, 10), dtype=np.uint8).view("S10").ravel()
    rewritten = rng.random(n) < 0.3  # three writes in ten go back to one of 40,000 earlier rows
    keys[rewritten] = keys[rng.integers(0, 40_000, size=rewritten.sum())]
    keys[::25] = b"busy-row"  # one row takes one write in 25: twice or more in every block below
    times = np.arange(n, dtype=np.float64)
    rows = RowSample(capacity=4096)
    for block in np.array_split(np.arange(n), 40):
        rows.add(keys[block], key_hashes(keys[block]), times[block])
    assert rows.thinned and len(rows.hashes) <= 4096
    count, rewrite_share, _, most, _ = rows.growth(span=times[-1])
    exact = _exact_growth(keys, times)
    assert count == pytest.approx(exact[0], rel=0.1)
    assert rewrite_share == pytest.approx(exact[1], abs=0.03)
    assert most == exact[3] == n // 25


def _row_sample_state(rows: RowSample) -> tuple:
    rows.growth(span=1.0)  # merges what waits
    return tuple(getattr(rows, name).tolist() for name in RowSample.FIELDS) + tuple(
        rows.heavy[name].tolist() for name in RowSample.FIELDS) + (int(rows.threshold), rows.writes)


@pytest.mark.parametrize("capacity", [4096, 100_000])  # thinned as rows arrive, or never
def test_row_sample_holds_the_same_rows_however_often_its_new_rows_are_merged(monkeypatch, capacity):
    # New rows wait in a table of their own until they are 1/MERGE_SHARE of the others: a
    # row written again while it waits must be counted there, not taken for a new one.
    rng = np.random.default_rng(5)
    n = 60_000
    keys = rng.integers(0, 256, size=(n, 10), dtype=np.uint8).view("S10").ravel()
    again = rng.random(n) < 0.4
    keys[again] = keys[np.maximum(0, np.arange(n)[again] - rng.integers(1, 3000, again.sum()))]  # recent rows again
    times = np.arange(n, dtype=np.float64)
    states = []
    for share in (1, 8, 10**9):  # merged after every window, as by default, never before the end
        monkeypatch.setattr(RowSample, "MERGE_SHARE", share)
        rows = RowSample(capacity=capacity)
        for block in np.array_split(np.arange(n), 60):
            rows.add(keys[block], key_hashes(keys[block]), times[block])
        states.append(_row_sample_state(rows))
    assert states[0] == states[1] == states[2]
    if capacity > n:
        exact = _exact_growth(keys, times)
        assert len(states[0][0]) == exact[0] and max(states[0][2]) == exact[3]


@pytest.mark.parametrize("distinct", [1, 7, 1000, 10**9])
def test_hash_groups_are_np_uniques_with_each_hashs_last_occurrence(distinct):
    rng = np.random.default_rng(distinct)
    hashes = rng.integers(0, distinct, 5000).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    expected_values, expected_first, expected_counts = np.unique(hashes, return_index=True, return_counts=True)
    _, from_end = np.unique(hashes[::-1], return_index=True)
    for order in (None, np.argsort(hashes), np.argsort(hashes, kind="stable")[::-1].copy()):
        if order is not None:
            order = order[np.argsort(hashes[order], kind="stable")]  # ascending hashes, ties in any order
        values, first, last, counts = hash_groups(hashes, order)
        assert (values == expected_values).all() and (first == expected_first).all()
        assert (counts == expected_counts).all() and (last == len(hashes) - 1 - from_end).all()
    assert all(len(a) == 0 for a in hash_groups(hashes[:0]))


def test_distinct_sample_given_the_hashes_order_holds_what_it_holds_without():
    rng = np.random.default_rng(6)
    keys = _keys(rng, 6000, width=5)  # about a thousand distinct
    given, found = DistinctSample(capacity=512), DistinctSample(capacity=512)  # thinned on the way
    for block in np.array_split(keys, 6):
        hashes = key_hashes(block)
        given.add(block, hashes, np.argsort(hashes))
        found.add(block, hashes)
    assert given.thinned and (given.keys == found.keys).all() and given.threshold == found.threshold
