"""The ledger's set of WriteIds: a Python set's answers, at about a bit per id."""

import json
import random
import tracemalloc

from keybench.measure.writeids import WriteIdSet


def test_it_answers_as_a_set_of_strings_for_ids_of_every_form():
    rng = random.Random(3)
    forms = [
        lambda: f"kb-20261127-{rng.randint(0, 3)}.{rng.randint(1, 4)}-{rng.randint(1, 500)}",  # a user's
        lambda: f"kb-20261127-pre-{rng.randint(0, 300)}",  # a preload's, from 0
        lambda: f"x-{rng.randint(10**6, 10**12)}",  # far beyond any bitmap
        lambda: f"odd-0{rng.randint(0, 9)}",  # a leading zero: not the number's own spelling
        lambda: rng.choice(["plain", "-", "a-", "-7", "", "a-b-c", "ü-3", "1e3-4"]),
    ]
    ids, mine = set(), WriteIdSet()
    for _ in range(5000):
        w = rng.choice(forms)()
        if rng.random() < 0.7:
            ids.add(w)
            mine.add(w)
        else:
            ids.discard(w)
            mine.discard(w)
        assert (w in mine) == (w in ids)
    assert len(mine) == len(ids) and sorted(mine) == sorted(ids) and mine == ids
    assert WriteIdSet(ids) == mine and 3 not in mine


def test_acknowledged_ids_take_about_a_bit_each():
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ledger = WriteIdSet()
        for user in range(64):
            for n in range(1, 2_001):
                ledger.add(f"kb-20261127T010203Z-{user}.{user + 1}-{n}")
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(ledger) == 64 * 2_000
    assert held < 100_000, held  # as strings in a set: about 14 MB


def test_a_workers_report_carries_the_set_whole_and_a_master_joins_them_as_sets_join():
    rng = random.Random(11)
    parts = []
    for worker in range(3):
        ids = {f"kb-r-{worker * 1000 + rng.randint(0, 2)}.1-{rng.randint(1, 3000)}" for _ in range(800)}
        ids |= {f"kb-r-pre-{rng.randint(0, 50)}" for _ in range(20)} | {f"z-{rng.randint(10**7, 10**8)}"}
        parts.append(ids)
    master, expected = WriteIdSet({"z-12", "kb-r-pre-5000000"}), {"z-12", "kb-r-pre-5000000"}
    for ids in parts:
        shipped = WriteIdSet.from_plain(json.loads(json.dumps(WriteIdSet(ids).to_plain())))
        assert shipped == ids
        master.update(shipped)
        expected |= ids
    assert master == expected and len(master) == len(expected)
    # an id kept as it was in one set and as a bit in another is counted once
    sparse = WriteIdSet(["p-900000"])
    sparse.update(WriteIdSet(f"p-{n}" for n in range(0, 900_001, 1000)))  # p-900000 among them, as a bit
    assert len(sparse) == 901 and "p-900000" in sparse and "p-900001" not in sparse
