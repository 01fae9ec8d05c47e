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
