"""What a read should return: a read through a NULL_FILTERED index expects only the rows
that have an entry in it."""

from loadtests.design import strategies
from loadtests.design.keys import WriteEvent, never_accessed
from loadtests.design.plans import StoredRow, strategy_plans
from loadtests.design.truth import WrittenRows


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
