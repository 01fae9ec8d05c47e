"""The recording proxy in front of a real Spanner emulator, driven by Google's own client:
the keys recorded are the bytes keybench's own encoder makes of the values written."""

from __future__ import annotations

import datetime as dt

import pytest

from keybench.design.byteorder import FULL_SPACE, TABLE_SPACE, encode_value, invert, prefix_successor
from keybench.record.recorder import Recorder
from tests.record.conftest import proxied_database

DDL = [
    "CREATE TABLE Tickets (TicketId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), Seat INT64) PRIMARY KEY (TicketId)",
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

    with proxied_database(spanner_emulator.host, monkeypatch, DDL, "rec") as (db, recorder):
        yield db, recorder, spanner


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
    (record,) = [r for r in recorder.snapshot() if r.table == "Orders"]
    assert not recorder.unattributed
    reads = {space: intervals for _, space, intervals in record.stream.reads()}
    o1 = encode_value("o1")
    assert reads[TABLE_SPACE] == ((o1, prefix_successor(o1)), (encode_value("o2"), encode_value("o4")))
    assert reads["OrdersByCreatedAt"] == (FULL_SPACE,)
    assert (record.reads, record.rows_read) == (2, 8)


def test_dml_rows_are_recorded_at_their_commit_and_dropped_at_a_rollback(database):
    db, recorder, spanner = database
    from google.cloud.spanner_v1 import param_types

    def insert(transaction):
        transaction.execute_update(
            "INSERT INTO Orders (OrderId, CreatedAt, Amount) VALUES (@id, PENDING_COMMIT_TIMESTAMP(), 1), "
            "('lit', PENDING_COMMIT_TIMESTAMP(), -2)", params={"id": "par"}, param_types={"id": param_types.STRING})

    def update(transaction):
        transaction.batch_update([("UPDATE Orders SET Amount = 3 WHERE OrderId = @id", {"id": "par"},
                                   {"id": param_types.STRING}),
                                  ("INSERT INTO Tickets (Seat) VALUES (7)", None, None)])

    db.run_in_transaction(insert)
    db.run_in_transaction(update)  # a pending commit timestamp cannot be read in its own transaction
    order = sorted([encode_value("lit"), encode_value("par"), encode_value("par")])
    assert [k for k, _ in _written(recorder, "Orders")] == order
    assert len(_written(recorder, "Orders", "OrdersByCreatedAt")) == 2  # the UPDATE carries no CreatedAt
    (ticket,) = _written(recorder, "Tickets")  # its key is the database's: modelled as a version-4 UUID
    assert len(ticket[0]) == 36 + 2 and recorder.modelled[("spanner", "Tickets")] == 1

    class Undo(Exception):
        pass

    def rolled_back(transaction):
        transaction.execute_update("INSERT INTO Orders (OrderId, CreatedAt) VALUES ('gone', "
                                   "PENDING_COMMIT_TIMESTAMP())")
        raise Undo

    with pytest.raises(Undo):
        db.run_in_transaction(rolled_back)
    assert [k for k, _ in _written(recorder, "Orders")] == order  # never committed: never written
    with db.snapshot() as snapshot:
        list(snapshot.execute_sql("SELECT COUNT(*) FROM Orders"))
    assert recorder.other_calls["ExecuteStreamingSql"] >= 1 and not recorder.unattributed
