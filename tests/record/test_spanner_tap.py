"""The recording proxy in front of a real Spanner emulator, driven by Google's own client:
the keys recorded are the bytes keybench's own encoder makes of the values written."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from keybench.design.byteorder import FULL_SPACE, TABLE_SPACE, encode_value, invert, prefix_successor
from keybench.record.proxy import ForwardingProxy
from keybench.record.recorder import Recorder
from keybench.record.taps import tap_for

DDL = [
    "CREATE TABLE Orders (OrderId STRING(36) NOT NULL, "
    "CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true), Amount INT64) PRIMARY KEY (OrderId)",
    "CREATE INDEX OrdersByCreatedAt ON Orders(CreatedAt DESC)",
    "CREATE TABLE Items (OrderId STRING(36) NOT NULL, ItemId INT64 NOT NULL, Note STRING(MAX)) "
    "PRIMARY KEY (OrderId, ItemId), INTERLEAVE IN PARENT Orders ON DELETE CASCADE",
]


@pytest.fixture
def database(spanner_emulator, monkeypatch):
    """A database of DDL, with the client reaching the emulator through a recording proxy."""
    from google.cloud import spanner
    from google.cloud.spanner_admin_database_v1 import DatabaseDialect

    from keybench.backends import spanner_admin as admin
    from keybench.backends.spanner import client_for, ensure_instance, instance_of
    from keybench.infra.target import INSTANCE, PROJECT

    recorder = Recorder()
    proxy = ForwardingProxy(spanner_emulator.host, tap_for("spanner", recorder, spanner_emulator.host))
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", proxy.address)
    client = client_for(PROJECT)
    instance = ensure_instance(client, instance_of(client, INSTANCE))
    db = instance.database("rec" + uuid.uuid4().hex[:12], ddl_statements=DDL,
                           database_dialect=DatabaseDialect.GOOGLE_STANDARD_SQL)
    admin.create_database(client, instance, db)
    db.update_ddl(DDL).result(60)
    yield db, recorder, spanner
    admin.drop_database(client, db)
    client.close()
    proxy.close()


def _written(recorder: Recorder, table: str, space: str = TABLE_SPACE) -> list[tuple[bytes, int]]:
    (record,) = [r for r in recorder.snapshot() if r.table == table]
    _, keys, lengths = record.stream.writes(space)
    units = record.stream.unit_lengths(space)
    return sorted((bytes(k[:n]), int(u)) for k, n, u in zip(keys.tolist(), lengths.tolist(), units.tolist(),
                                                           strict=True))


def test_a_commits_mutations_are_recorded_in_the_table_its_index_and_the_interleaved_child(database):
    db, recorder, spanner = database
    with db.batch() as batch:
        batch.insert("Orders", ("OrderId", "CreatedAt", "Amount"),
                     [("o1", spanner.COMMIT_TIMESTAMP, 5), ("o2", spanner.COMMIT_TIMESTAMP, 7)])
        batch.insert("Items", ("OrderId", "ItemId", "Note"), [("o1", 1, "a"), ("o1", 2, None)])
    committed = batch.committed
    assert committed is not None
    order = [encode_value("o1"), encode_value("o2")]
    assert _written(recorder, "Orders") == [(k, len(k)) for k in order]
    # The index: CreatedAt DESC (the commit's own time), then the primary key appended.
    at = invert(encode_value(committed.astimezone(dt.UTC)))
    assert _written(recorder, "Orders", "OrdersByCreatedAt") == sorted((at + k, len(at + k)) for k in order)
    # An interleaved child splits only between root rows: its split unit is the root's key.
    assert _written(recorder, "Items") == [(encode_value("o1") + encode_value(i), len(encode_value("o1")))
                                           for i in (1, 2)]
    with db.batch() as batch:
        batch.update("Orders", ("OrderId", "Amount"), [("o1", 6)])  # no CreatedAt: no index entry
    assert len(_written(recorder, "Orders")) == 3 and len(_written(recorder, "Orders", "OrdersByCreatedAt")) == 2


def test_reads_record_their_key_sets_in_the_table_or_index_space_and_dml_is_counted(database):
    db, recorder, spanner = database
    from google.cloud.spanner_v1 import KeyRange, KeySet

    with db.batch() as batch:
        batch.insert("Orders", ("OrderId", "CreatedAt", "Amount"),
                     [(f"o{i}", spanner.COMMIT_TIMESTAMP, i) for i in range(5)])
    with db.snapshot(multi_use=True) as snapshot:
        rows = list(snapshot.read("Orders", ("OrderId",), KeySet(keys=[["o1"]],
                                                                 ranges=[KeyRange(start_closed=["o2"],
                                                                                  end_open=["o4"])])))
        assert len(rows) == 3
        assert len(list(snapshot.read("Orders", ("OrderId", "CreatedAt"), KeySet(all_=True),
                                      index="OrdersByCreatedAt"))) == 5
    db.run_in_transaction(lambda t: t.execute_update(
        "INSERT INTO Orders (OrderId, CreatedAt) VALUES ('x', PENDING_COMMIT_TIMESTAMP())"))
    (record,) = [r for r in recorder.snapshot() if r.table == "Orders"]
    assert recorder.unattributed.keys() <= {("ExecuteSql", "DML is not decoded yet: its writes are not recorded")}, \
        recorder.unattributed
    reads = {space: intervals for _, space, intervals in record.stream.reads()}
    o1 = encode_value("o1")
    assert reads[TABLE_SPACE] == ((o1, prefix_successor(o1)), (encode_value("o2"), encode_value("o4")))
    assert reads["OrdersByCreatedAt"] == (FULL_SPACE,)
    assert (record.reads, record.rows_read) == (2, 8)
    assert recorder.unattributed[("ExecuteSql", "DML is not decoded yet: its writes are not recorded")] == 1
