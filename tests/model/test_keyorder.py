"""Keys in key order from their words, against a full sort of the whole keys."""

import numpy as np
import pytest

from keybench.model import keyorder
from keybench.model.keyorder import (
    common_prefix,
    key_order,
    order_statistics,
    ordered_range_counts,
    ordered_range_of,
    prefix_words,
    quantile_positions,
    range_counts,
    range_of,
)


def _keys(rng, n, alphabet=b"abcd", width=6):
    """Short keys over a small alphabet: many ties in their first bytes, some repeats."""
    letters = np.frombuffer(alphabet, dtype=np.uint8)
    return letters[rng.integers(0, len(letters), size=(n, width))].view(f"S{width}").ravel()


def test_common_prefix_counts_the_shared_leading_bytes():
    assert common_prefix(np.array([b"abcx", b"abcy"]), np.array([b"abd"])) == 2
    assert common_prefix(np.array([b"ab", b"ab\x00\x00"])) == 4  # NUL padding is part of the key
    assert common_prefix(np.array([b"abcx", b"abcy"]), limit=1) == 1


@pytest.mark.parametrize("differs_at", [0, 5, 7, 8, 11, 16, 19])
def test_common_prefix_of_wide_keys_finds_the_first_byte_any_key_changes(differs_at):
    rng = np.random.default_rng(differs_at)
    matrix = np.tile(np.frombuffer(b"0123456789abcdefghij", dtype=np.uint8), (1000, 1))
    matrix[rng.integers(0, 1000, size=3), differs_at] = ord("#")  # a few keys change there
    keys = matrix.view("S20").ravel()
    assert common_prefix(keys) == differs_at
    assert common_prefix(keys, limit=6) == min(6, differs_at)
    assert common_prefix(keys[:1], keys[1:], limit=None) == differs_at
    unchanged = np.array([b"0123456789abcdefghij"])
    assert common_prefix(np.tile(unchanged, 5)) == 20
    assert common_prefix(unchanged, np.array([b"0123456789abcdefghij\x00\x00"])) == 22


@pytest.mark.parametrize("width", [6, 8, 12, 20])  # the words alone decide up to 8 bytes; past them, whole keys
def test_range_counts_and_order_statistics_match_a_full_sort(width):
    rng = np.random.default_rng(7)
    keys = _keys(rng, 5000, width=width)
    cuts = np.unique(np.concatenate([keys[:40], _keys(rng, 40, width=width)]))  # cuts that are keys, and not
    exact = np.bincount(np.searchsorted(cuts, keys, side="right"), minlength=len(cuts) + 1)
    assert (range_counts(cuts, keys, 0) == exact).all()
    select = rng.random(len(keys)) < 0.5
    exact_half = np.bincount(np.searchsorted(cuts, keys[select], side="right"), minlength=len(cuts) + 1)
    assert (range_counts(cuts, keys, 0, select=np.flatnonzero(select)) == exact_half).all()
    positions = quantile_positions(len(keys), 97)
    assert (order_statistics(keys, positions) == np.sort(keys)[positions]).all()
    # with the keys' words sorted at hand, the cuts are searched among them instead
    words = prefix_words(keys, 0)
    assert (range_counts(cuts, keys, 0, words, np.sort(words)) == exact).all()
    assert (range_of(cuts, keys, 0, words) == np.searchsorted(cuts, keys, side="right")).all()
    half = np.flatnonzero(select)
    assert (range_of(cuts, keys, 0, prefix_words(keys[half], 0), half)
            == np.searchsorted(cuts, keys[half], side="right")).all()


def test_order_statistics_of_keys_within_a_shared_prefix_and_one_word():
    rng = np.random.default_rng(3)
    keys = np.char.add(b"ten\x00ant", _keys(rng, 3000, width=5))  # 7 shared bytes, then up to 5 more
    positions = quantile_positions(len(keys), 50)
    assert (order_statistics(keys, positions) == np.sort(keys)[positions]).all()
    assert (order_statistics(keys, positions, start=7) == np.sort(keys)[positions]).all()
    narrow = np.array([b"ab", b"ab", b"ab"], dtype="S2")  # a prefix counted past the keys' width: NULs
    assert (order_statistics(narrow, np.array([1]), start=4) == [b"ab"]).all()


@pytest.mark.parametrize("ranked_words", [1 << 16, 1])  # ordered by a second word first, or whole keys only
def test_keys_tied_in_their_first_words_are_placed_and_sorted_as_whole_keys_are(monkeypatch, ranked_words):
    # A tenant and a device type first (few first words), then a device and a suffix that
    # sometimes ties the second word too, ends early, or holds a NUL: every tie path.
    monkeypatch.setattr("keybench.model.keyorder.RANKED_WORDS", ranked_words)
    rng = np.random.default_rng(11)
    n = 6000
    tenant = rng.choice([b"t07#", b"t12#", b"t13#"], n)
    kind = rng.choice([b"phone#", b"tablet#", b"tv#"], n)
    device = rng.choice([b"dev0001", b"dev0002", b"dev\x0003", b"d"], n)
    suffix = _keys(rng, n, alphabet=b"ab\x00", width=9)
    keys = np.char.add(np.char.add(np.char.add(tenant, kind), device), suffix)
    keys = np.char.add(b"table-", keys)  # a prefix every key shares
    cuts = np.unique(np.concatenate([keys[:60], np.char.add(b"table-", np.char.add(tenant[:60], kind[:60]))]))
    start = common_prefix(keys)
    words = prefix_words(keys, start)
    assert (range_of(cuts, keys, start, words) == np.searchsorted(cuts, keys, side="right")).all()
    exact = np.bincount(np.searchsorted(cuts, keys, side="right"), minlength=len(cuts) + 1)
    assert (range_counts(cuts, keys, start, words, np.sort(words)) == exact).all()
    for positions in (quantile_positions(len(keys), 101), np.arange(len(keys))):
        assert (order_statistics(keys, positions, start, words) == np.sort(keys)[positions]).all()


def _text_keys(rng, n: int, width: int, prefix: bytes = b"") -> np.ndarray:
    """Keys that tie in long runs: a shared prefix, a few values, then rarely differing bytes,
    NULs among them, some keys repeated."""
    letters = np.frombuffer(b"\x00a#z\xff", dtype=np.uint8)
    matrix = letters[rng.integers(0, len(letters), size=(n, width))]
    matrix[:, :width // 2] = matrix[rng.integers(0, max(1, min(12, n)), n), :width // 2]  # twelve leading halves
    head = np.frombuffer(prefix, dtype=np.uint8)[:width]
    matrix[:, :len(head)] = head
    return matrix.view(f"S{width}").ravel()


@pytest.mark.parametrize("width", [1, 5, 8, 9, 17, 31, 45])
@pytest.mark.parametrize("prefix", [b"", b"tenant#"])
def test_key_order_sorts_keys_as_numpy_sorts_them_whole(width, prefix):
    rng = np.random.default_rng(width)
    for n in (0, 1, 2, 3000):
        keys = _text_keys(rng, n, width, prefix)
        start = common_prefix(keys) if n else 0
        assert (keys[key_order(keys, start)] == np.sort(keys)).all()
        assert (keys[key_order(keys, start, prefix_words(keys, start))] == np.sort(keys)).all()
    same = np.array([b"abc"] * 50)
    assert (same[key_order(same, 3)] == same).all()


def _entity_time_keys(rng, n: int, entities: int) -> np.ndarray:
    """Keys as a design writes them: an entity, a separator, then the write's time, the
    writes in time order."""
    entity = rng.integers(0, entities, n)
    return np.array([b"dev%05d#%016d" % (e, 1_790_000_000_000_000 + 1000 * i) for i, e in enumerate(entity)])


def _ranked_in_input_order(monkeypatch) -> list:
    """Records what each try at a stable sort of the ranks gave (None: it declined)."""
    tries: list = []
    real = keyorder._in_input_order

    def recorded(*args):
        tries.append(real(*args))
        return tries[-1]

    monkeypatch.setattr(keyorder, "_in_input_order", recorded)
    return tries


def test_keys_of_an_entity_then_a_time_are_ordered_by_their_entities_ranks_alone(monkeypatch):
    tries = _ranked_in_input_order(monkeypatch)
    keys = _entity_time_keys(np.random.default_rng(7), 20_000, 300)
    order = key_order(keys, common_prefix(keys))
    assert (keys[order] == np.sort(keys)).all()
    assert tries and tries[-1] is not None  # the times were never sorted


@pytest.mark.parametrize("where", ["sampled", "not sampled"])
def test_keys_whose_times_do_not_follow_the_input_are_sorted_whole(monkeypatch, where):
    monkeypatch.setattr(keyorder, "SAMPLE_KEYS", 100)
    tries = _ranked_in_input_order(monkeypatch)
    keys = _entity_time_keys(np.random.default_rng(8), 20_000, 300)
    step = len(keys) // keyorder.SAMPLE_KEYS
    entity = keys[0][:9]
    at = [i for i in range(len(keys)) if keys[i][:9] == entity and (i % step == 0) == (where == "sampled")][:2]
    keys[at[0]], keys[at[1]] = keys[at[1]], keys[at[0]]  # one entity's two writes out of time order
    order = key_order(keys, common_prefix(keys))
    assert (keys[order] == np.sort(keys)).all()
    assert tries and all(t is None for t in tries)


@pytest.mark.parametrize("cut_width", [3, 12, 30])  # narrower than the keys, as wide, wider
def test_ranges_placed_from_the_keys_order_are_a_search_of_the_cuts(cut_width):
    rng = np.random.default_rng(cut_width)
    keys = _text_keys(rng, 4000, 12)
    cuts = np.unique(np.concatenate([keys[:30].astype(f"S{max(12, cut_width)}"),
                                     _text_keys(rng, 30, cut_width).astype(f"S{max(12, cut_width)}")]))
    cuts = cuts.astype(f"S{cut_width}") if cut_width < 12 else cuts
    cuts = np.unique(cuts)
    order = key_order(keys, common_prefix(keys))
    wide = f"S{max(12, cut_width)}"
    exact = np.searchsorted(cuts.astype(wide), keys.astype(wide), side="right")
    assert (ordered_range_of(cuts, keys, order) == exact).all()
    assert (ordered_range_counts(cuts, keys, order) == np.bincount(exact, minlength=len(cuts) + 1)).all()


def test_prefix_words_reads_any_bytes_up_to_eight_nul_past_the_key():
    keys = np.array([b"0123456789", b"abcdefghij", b"ab"])
    padded = [k.ljust(30, b"\x00") for k in keys.tolist()]
    for start in range(0, 14):
        for size in range(1, 9):
            expected = [int.from_bytes(k[start:start + size], "big") for k in padded]
            assert prefix_words(keys, start, size).tolist() == expected
