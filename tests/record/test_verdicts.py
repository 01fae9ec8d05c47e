"""The verdicts on a recording, and how its tables are named: tables of one name in two
databases (a database per tenant) are two key spaces, judged apart and named apart."""

from __future__ import annotations

import random

import pytest

from keybench.model.params import SplitParams
from keybench.record.recorder import Recorder, TableName
from keybench.record.verdicts import Recording, labels, record_rows, table_labels

SPANNER_DB = "projects/p/instances/{}/databases/{}"
WRITES = 3000  # enough for a verdict at the model's default node count


def _fill(recorder: Recorder, table: TableName, ordered: bool) -> None:
    """WRITES keys into `table`: in increasing order (a hotspot), or at random (spread)."""
    rng = random.Random(7)
    numbers = range(WRITES) if ordered else (rng.getrandbits(64) for _ in range(WRITES))
    recorder.write(table, [(n.to_bytes(8, "big"), None) for n in numbers])


def test_one_table_name_in_two_databases_is_two_key_spaces_each_named_by_its_database():
    recorder = Recorder()
    by_time = TableName("spanner", SPANNER_DB.format("i", "tenant_a"), "Orders")
    by_uuid = TableName("spanner", SPANNER_DB.format("i", "tenant_b"), "Orders")
    _fill(recorder, by_time, ordered=True)
    _fill(recorder, by_uuid, ordered=False)
    rows = [row for r in recorder.snapshot() for row in record_rows(r, SplitParams())]
    assert [(r["database"], r["verdict"], r["writes"]) for r in rows] == [
        (by_time.database, "hotspot", WRITES), (by_uuid.database, "spread", WRITES)]
    assert labels(rows) == ["spanner:tenant_a/Orders", "spanner:tenant_b/Orders"]


def test_a_table_is_named_by_its_database_only_where_its_name_recurs():
    one = TableName("bigtable", "projects/p/instances/only", "events")
    assert table_labels([one]) == {one: "bigtable:events"}
    # two instances each with a database "app": the id does not tell them apart, the resource name does
    first, second = (TableName("spanner", SPANNER_DB.format(i, "app"), "Orders") for i in ("east", "west"))
    assert table_labels([first, second, one]) == {first: f"spanner:{first.database}/Orders",
                                                  second: f"spanner:{second.database}/Orders",
                                                  one: "bigtable:events"}


def test_a_test_names_the_database_where_a_table_name_recurs():
    recorder = Recorder()
    for tenant, ordered in (("tenant_a", True), ("tenant_b", False)):
        _fill(recorder, TableName("spanner", SPANNER_DB.format("i", tenant), "Orders"), ordered)
    recording = Recording(recorder)
    with pytest.raises(KeyError, match="recorded in 2 databases .*tenant_a.*tenant_b.*name one with database="):
        recording.table("Orders")
    assert recording.table("Orders", database="tenant_a").verdict == "hotspot"
    assert recording.table("Orders", database=SPANNER_DB.format("i", "tenant_b")).verdict == "spread"
    with pytest.raises(KeyError, match="no write or read of table 'Orders' in database 'tenant_c'"):
        recording.table("Orders", database="tenant_c")


def test_each_key_space_counts_the_reads_that_went_through_it():
    recorder = Recorder()
    orders = TableName("spanner", SPANNER_DB.format("i", "shop"), "Orders")
    _fill(recorder, orders, ordered=False)
    recorder.write(orders, [(n.to_bytes(8, "big"), None) for n in range(WRITES)], space="OrdersByTime")
    recorder.read(orders, [(b"\x00", b"\x01")], 4, "range")
    recorder.read(orders, [(b"\x00", b"")], 10, "scan", space="OrdersByTime")
    recorder.read(orders, [(b"\x00", b"\x02")], 2, "range", space="OrdersByTime")
    rows = record_rows(recorder.snapshot()[0], SplitParams())
    assert [(r["index"], r["verdict"], r["reads"], r["rows_per_read"]) for r in rows] == [
        ("", "spread", 1, 4.0), ("OrdersByTime", "hotspot", 2, 6.0)]
