"""What a read should return: a read through a NULL_FILTERED index expects only the rows
that have an entry in it."""

from keybench.design import strategies
from keybench.design.events import WriteEvent, never_accessed
from keybench.design.plans import StoredRow, strategy_plans
from keybench.design.truth import WrittenRows


def test_a_time_window_through_a_null_filtered_index_expects_only_the_rows_with_a_last_access():
    strategy = strategies.catalogue("spanner")["index_monotonic"]
    [index] = strategy.indexes
    request = strategy_plans(strategy, 10)["time_window"].build(1_790_000_000_000_000, 1_790_000_001_000_000)
    assert request.index == index.name  # the read goes through the index
    written, rows = WrittenRows(), []
    for i in range(400):
        event = WriteEvent(i % 37 + 1, 1_790_000_000_000_000 + 1000 * i, f"w{i}", i + 1)
        unindexed = frozenset(x.name for x in strategy.indexes if not x.holds_write(event))
        written.add(StoredRow(event.entity, event.ts_us, event.write_id, event.seq), 0, unindexed)
        rows.append(event)
    with_access = {e.write_id for e in rows if not never_accessed(e)}
    assert 250 < len(with_access) < 350  # about three users in four accessed
    assert written.in_time_window(0, 10**18, 1, request.index) == with_access
    assert written.in_time_window(0, 10**18, 1) == {e.write_id for e in rows}  # through the table: every row
    assert written.of_entity(1, 1, request.index) == {e.write_id for e in rows if e.entity == 1} & with_access


def test_rows_added_out_of_time_order_are_counted_at_once_and_found_by_every_question():
    written = WrittenRows()
    times = [5_000, 1_000, 3_000, 2_000, 4_000, 4_000]
    for seq, ts in enumerate(times, start=1):
        written.add(StoredRow(seq % 2 + 1, ts, f"w{seq}", seq), acked_ns=seq * 10)
    assert len(written) == 6  # before any question indexed them
    assert written.in_time_window(2_000, 4_000, 100) == {"w3", "w4", "w5", "w6"}
    written.add(StoredRow(1, 2_500, "w7", 7), acked_ns=70)
    assert written.in_time_window(2_000, 3_000, 100) == {"w3", "w4", "w7"}
    assert written.in_time_window(2_000, 3_000, 40) == {"w3", "w4"}  # w7 acknowledged after the read began
    assert written.of_entity(1, 100) == {"w2", "w4", "w6", "w7"} and written.of_entity(2, 100) == {"w1", "w3", "w5"}
    assert written.in_number_range(2, 4, 100) == {"w2", "w3", "w4"} and len(written) == 7


def test_an_entitys_rows_are_found_by_acknowledgement_time_whether_or_not_they_came_in_that_order():
    written = WrittenRows()
    for seq, acked in enumerate([10, 20, 20, 30, 40], start=1):  # in order, two acknowledged together
        written.add(StoredRow(1, seq * 1000, f"a{seq}", seq), acked_ns=acked)
    for seq, acked in enumerate([30, 10, 40, 20], start=6):  # out of order
        written.add(StoredRow(2, seq * 1000, f"b{seq}", seq), acked_ns=acked)
    assert written.of_entity(1, 5) == set() and written.of_entity(1, 20) == {"a1", "a2", "a3"}
    assert written.of_entity(1, 35) == {"a1", "a2", "a3", "a4"} and len(written.of_entity(1, 10**9)) == 5
    assert written.of_entity(2, 20) == {"b7", "b9"} and written.of_entity(2, 35) == {"b6", "b7", "b9"}
    assert written.of_entity(3, 100) == set()  # never written
    written.add(StoredRow(1, 99_000, "a0", 99), acked_ns=15)  # entity 1 now out of order too
    assert written.of_entity(1, 20) == {"a1", "a2", "a3", "a0"}


def ask_every_question(written, kept, rng, seq):
    """Each question, once, against the answer the rows kept give."""
    # a read that began the moment an early row was acknowledged: that row is expected
    before, index, entity = rng.choice(kept[:seq // 2])[1], rng.choice([None, "Idx"]), rng.randint(1, 9)
    t0, lo = rng.randint(0, 9_000), rng.randint(1, seq)

    def expected(pick):
        return {r.write_id for r, a, u in kept if pick(r) and a <= before and index not in u}

    assert written.of_entity(entity, before, index) == expected(lambda r: r.entity == entity)
    assert written.in_time_window(t0, t0 + 1000, before, index) == expected(lambda r: t0 <= r.ts_us <= t0 + 1000)
    assert written.in_number_range(lo, lo + 30, before, index) == expected(lambda r: lo <= r.seq <= lo + 30)
    answer = [r for r, a, u in kept if r.entity == entity][-3:]
    oldest = min((r.ts_us for r in answer), default=0)
    assert written.newest_of_entity(entity, before, answer, 3, index) == expected(
        lambda r: r.entity == entity and (len(answer) < 3 or r.ts_us >= oldest))


def test_rows_moved_to_disk_a_slice_at_a_time_answer_every_question_as_rows_kept_in_memory(monkeypatch):
    """A long stage's oldest rows go to disk while it runs: before, during and after a move,
    every question gets the answer the rows themselves give."""
    import random

    from keybench.design import truth

    monkeypatch.setattr(truth, "MEMORY_ROWS", 50)
    rng = random.Random(7)
    written, kept = WrittenRows(), []
    for seq in range(1, 401):
        row = StoredRow(rng.randint(1, 9), rng.randint(0, 10_000), f"kb-t-1.1-{seq}", seq)
        acked = seq * 10 + rng.randint(-15, 15)  # mostly in order, some not
        unindexed = frozenset({"Idx"}) if rng.random() < 0.3 else frozenset()
        written.add(row, acked, unindexed)
        kept.append((row, acked, unindexed))
        if rng.random() < 0.2:
            written.move_some(rng.randint(1, 20))
        if seq % 37 == 0:
            ask_every_question(written, kept, rng, seq)
    assert len(written) == 400 and written.in_memory() < 400  # some went to disk
    while written.move_some(7):
        pass
    third = {r.write_id for r, _, _ in kept if r.entity == 3}
    assert written.in_memory() < 100 and written.of_entity(3, 10**9) == third
    written.close()
    assert len(written) == 0 and written.of_entity(3, 10**9) == set()
