"""The recording proxy in front of a real Spanner emulator, driven by Google's own client:
the keys recorded are the bytes keybench's own encoder makes of the values written."""

from __future__ import annotations

import datetime as dt

import pytest

from keybench.design.byteorder import FULL_SPACE, TABLE_SPACE, encode_value, invert, prefix_successor
from keybench.record.recorder import Recorder, TableName
from keybench.record.spanner_tap import _resolved, _rows_returned
from tests.record.conftest import proxied_database

DDL = [
    "CREATE TABLE Tickets (TicketId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), Seat INT64) PRIMARY KEY (TicketId)",
    "CREATE TABLE Orders (OrderId STRING(36) NOT NULL, "
    "CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true), Amount INT64) PRIMARY KEY (OrderId)",
    "CREATE INDEX OrdersByCreatedAt ON Orders(CreatedAt DESC)",
    "CREATE TABLE Items (OrderId STRING(36) NOT NULL, ItemId INT64 NOT NULL, Note STRING(MAX)) "
    "PRIMARY KEY (OrderId, ItemId), INTERLEAVE IN PARENT Orders ON DELETE CASCADE",
    # keys the database fills: from a sequence (skipping the counters 1..1000's values), and
    # generated from other columns
    'CREATE SEQUENCE LogSeq OPTIONS (sequence_kind = "bit_reversed_positive", start_with_counter = 5)',
    "CREATE TABLE Logs (LogId INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE LogSeq)), "
    "Body STRING(MAX)) PRIMARY KEY (LogId)",
    "CREATE TABLE Visits (VisitedAt TIMESTAMP NOT NULL, "
    "Shard INT64 NOT NULL AS (MOD(FARM_FINGERPRINT(CAST(VisitedAt AS STRING)), 16)) STORED, "
    "Visitor INT64 NOT NULL, Slot INT64 AS (MOD(Visitor, 4)) STORED) PRIMARY KEY (Shard, VisitedAt, Visitor)",
    "CREATE INDEX VisitsBySlot ON Visits(Slot)",
]


@pytest.fixture
def database(spanner_emulator, monkeypatch):
    """A database of DDL, with the client reaching the emulator through a recording proxy."""
    from google.cloud import spanner

    with proxied_database(spanner_emulator.host, monkeypatch, DDL, "rec") as (db, recorder):
        yield db, recorder, spanner


def _modelled(recorder: Recorder, db, table: str, what: str) -> int:
    """The key values of `table` in database `db` the recorder modelled as `what`."""
    return recorder.modelled[(TableName("spanner", db.name, table), what)]


def _written(recorder: Recorder, table: str, space: str = TABLE_SPACE) -> list[tuple[bytes, int]]:
    (record,) = [r for r in recorder.snapshot() if r.table == table]
    _, keys, lengths = record.stream.writes(space)
    units = record.stream.unit_lengths(space)
    # numpy's fixed-width bytes drop trailing NULs (an INT64's low bytes): the lengths put them back
    return sorted((bytes(k).ljust(n, b"\0")[:n], int(u))
                  for k, n, u in zip(keys.tolist(), lengths.tolist(), units.tolist(), strict=True))


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
    assert (record.reads, record.rows_read) == ({TABLE_SPACE: 1, "OrdersByCreatedAt": 1},
                                                {TABLE_SPACE: 3, "OrdersByCreatedAt": 5})


def test_queries_record_the_key_ranges_their_where_gives_and_the_rest_are_counted(database):
    db, recorder, spanner = database
    from google.cloud.spanner_v1 import param_types

    with db.batch() as batch:
        batch.insert("Orders", ("OrderId", "CreatedAt", "Amount"),
                     [(f"o{i}", spanner.COMMIT_TIMESTAMP, i) for i in range(5)])
        batch.insert("Items", ("OrderId", "ItemId", "Note"), [("o1", n, None) for n in range(1, 6)])
    queries = [  # (sql, params, rows)
        ("SELECT OrderId FROM Orders WHERE OrderId = @id", {"id": "o1"}, 1),
        ("SELECT OrderId FROM Orders WHERE OrderId >= 'o2' AND OrderId < @end AND Amount > 0", {"end": "o4"}, 2),
        ("SELECT OrderId FROM Orders", {}, 5),
        ("SELECT ItemId FROM Items WHERE OrderId IN ('o1', 'o3') AND ItemId BETWEEN 2 AND 3", {}, 2),
        ("SELECT OrderId FROM Orders WHERE Amount > 2", {}, 2),  # the key does not lead: not placed
        ("SELECT o.OrderId FROM Orders o JOIN Items i ON o.OrderId = i.OrderId", {}, 5),  # a join: not placed
    ]
    with db.snapshot(multi_use=True) as snapshot:
        for sql, params, rows in queries:
            got = list(snapshot.execute_sql(sql, params=params,
                                            param_types={k: param_types.STRING for k in params}))
            assert len(got) == rows, sql
    assert not recorder.unattributed
    reads = {r.table: list(r.stream.reads(with_operation=True)) for r in recorder.snapshot()}
    o = {n: encode_value(f"o{n}") for n in range(5)}
    assert [(space, intervals, op) for _, space, intervals, op in reads["Orders"]] == [
        (TABLE_SPACE, ((o[1], prefix_successor(o[1])),), "ExecuteStreamingSql"),
        (TABLE_SPACE, ((o[2], o[4]),), "ExecuteStreamingSql"),
        (TABLE_SPACE, (FULL_SPACE,), "ExecuteStreamingSql")]
    item = {(n, i): encode_value(f"o{n}") + encode_value(i) for n in (1, 3) for i in (2, 3)}
    assert [intervals for _, _, intervals, _ in reads["Items"]] == [
        ((item[1, 2], prefix_successor(item[1, 3])), (item[3, 2], prefix_successor(item[3, 3])))]
    (orders,) = [r for r in recorder.snapshot() if r.table == "Orders"]
    assert (orders.reads, orders.rows_read) == ({TABLE_SPACE: 3}, {TABLE_SPACE: 8})
    assert recorder.other_calls["ExecuteStreamingSql"] == 2


def test_dml_rows_are_recorded_at_their_commit_and_dropped_at_a_rollback(database):
    db, recorder, spanner = database
    from google.cloud.spanner_v1 import param_types

    def insert(transaction):
        transaction.execute_update(
            "INSERT INTO Orders (OrderId, CreatedAt, Amount) VALUES (@id, PENDING_COMMIT_TIMESTAMP(), 1), "
            "('lit', PENDING_COMMIT_TIMESTAMP(), -2)", params={"id": "par"}, param_types={"id": param_types.STRING})

    def update(transaction):
        transaction.batch_update([("UPDATE Orders SET Amount = Amount + 3 WHERE OrderId = @id", {"id": "par"},
                                   {"id": param_types.STRING}),
                                  ("INSERT INTO Tickets (Seat) VALUES (7)", None, None)])

    def touch(transaction):  # SET gives the index's column: the row's new entry in it
        transaction.execute_update("UPDATE Orders SET CreatedAt = PENDING_COMMIT_TIMESTAMP(), Amount = Amount - 1 "
                                   "WHERE OrderId = 'lit'")

    db.run_in_transaction(insert)
    db.run_in_transaction(update)  # a pending commit timestamp cannot be read in its own transaction
    db.run_in_transaction(touch)
    order = sorted([encode_value("lit"), encode_value("lit"), encode_value("par"), encode_value("par")])
    assert [k for k, _ in _written(recorder, "Orders")] == order
    assert len(_written(recorder, "Orders", "OrdersByCreatedAt")) == 3  # the first UPDATE carries no CreatedAt
    (ticket,) = _written(recorder, "Tickets")  # its key is the database's: modelled as a version-4 UUID
    assert len(ticket[0]) == 36 + 2 and _modelled(recorder, db, "Tickets", "TicketId = GENERATE_UUID()") == 1

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
        list(snapshot.execute_sql("SELECT COUNT(*) FROM Orders WHERE Amount > 0"))  # no key range: counted
    assert recorder.other_calls["ExecuteStreamingSql"] >= 1 and not recorder.unattributed


def test_keys_a_sequence_fills_are_the_values_the_database_hands_out(database):
    """Mutations and DML with THEN RETURN leave LogId to its sequence: the values modelled
    are the ones the emulator returns (a fresh sequence, one writer)."""
    db, recorder, spanner = database
    with db.batch() as batch:
        batch.insert("Logs", ("Body",), [("a",), ("b",)])

    def insert(transaction):
        return [row[0] for row in transaction.execute_sql("INSERT INTO Logs (Body) VALUES ('c') THEN RETURN LogId")]

    returned = db.run_in_transaction(insert)
    with db.snapshot() as snapshot:
        stored = sorted(row[0] for row in snapshot.execute_sql("SELECT LogId FROM Logs"))
    assert returned[0] in stored and len(stored) == 3
    assert [k for k, _ in _written(recorder, "Logs")] == sorted(encode_value(v) for v in stored)
    assert _modelled(recorder, db, "Logs", "LogId from sequence LogSeq (bit_reversed_positive)") == 3
    assert not recorder.unattributed


def test_generated_key_columns_are_modelled_from_their_expression(database):
    db, recorder, spanner = database
    at = dt.datetime(2026, 11, 27, 9, 0, tzinfo=dt.UTC)
    with db.batch() as batch:
        batch.insert("Visits", ("VisitedAt", "Visitor"), [(at, 1), (at, 6), (at + dt.timedelta(seconds=1), 7)])
    with db.snapshot() as snapshot:
        stored = {(row[0], row[1]) for row in snapshot.execute_sql("SELECT Visitor, Slot FROM Visits")}
    assert stored == {(1, 1), (6, 2), (7, 3)}
    keys = [k for k, _ in _written(recorder, "Visits")]
    # A shard is a hash of VisitedAt: the same time, the same shard; it lies in -15..15, as MOD keeps the sign.
    shards = {}
    for visitor, when in ((1, at), (6, at), (7, at + dt.timedelta(seconds=1))):
        (shard,) = [s for s in range(-15, 16) if encode_value(s) + encode_value(when) + encode_value(visitor) in keys]
        shards[visitor] = shard
    assert len(keys) == 3 and shards[1] == shards[6]
    # MOD(Visitor, 4) is computed: the index holds the database's own values
    slots = [k for k, _ in _written(recorder, "Visits", "VisitsBySlot")]
    assert sorted(k[:len(encode_value(1))] for k in slots) == sorted(encode_value(slot) for _, slot in stored)
    assert _modelled(recorder, db, "Visits", "Slot = MOD(Visitor, 4)") == 3
    assert not recorder.unattributed


POSTGRESQL_DDL = [
    "CREATE SEQUENCE logseq BIT_REVERSED_POSITIVE",
    "CREATE TABLE logs (logid bigint NOT NULL DEFAULT nextval('logseq'), body varchar, "
    "at spanner.commit_timestamp NOT NULL, PRIMARY KEY (logid))",
    "CREATE INDEX logsbyat ON logs (at DESC)",
]


@pytest.fixture
def postgresql_database(spanner_emulator, monkeypatch):
    with proxied_database(spanner_emulator.host, monkeypatch, POSTGRESQL_DDL, "recpg", postgresql=True) as found:
        yield found


def test_postgresql_dml_with_parameters_returning_and_a_sequence_is_recorded(postgresql_database):
    """The PostgreSQL dialect: `$n` parameters, spanner.pending_commit_timestamp(), RETURNING,
    and a key from nextval() that the database fills."""
    db, recorder = postgresql_database

    def insert(transaction):
        return [row[0] for row in transaction.execute_sql(
            "INSERT INTO logs (body, at) VALUES ($1, spanner.pending_commit_timestamp()), "
            "('lit', spanner.pending_commit_timestamp()) RETURNING logid",
            params={"p1": "par"}, param_types={"p1": __import__("google.cloud.spanner_v1",
                                                                fromlist=["param_types"]).param_types.STRING})]

    returned = db.run_in_transaction(insert)
    assert len(returned) == 2
    assert not recorder.unattributed, recorder.unattributed
    assert [k for k, _ in _written(recorder, "logs")] == sorted(encode_value(v) for v in returned)
    assert len(_written(recorder, "logs", "logsbyat")) == 2
    assert _modelled(recorder, db, "logs", "logid from sequence logseq (bit_reversed_positive)") == 2
    assert not recorder.unattributed


def test_a_time_without_its_zone_is_the_instant_the_database_reads_it_as(database):
    db, _, _ = database
    texts = ["2020-01-01 00:00:00", "2020-07-01 12:30:00.25", "2020-03-08", "2021-11-07 01:30:00"]
    with db.snapshot() as snapshot:
        (row,) = list(snapshot.execute_sql("SELECT " + ", ".join(f"TIMESTAMP '{t}'" for t in texts)))
    assert [_resolved(t, "TIMESTAMP", None) for t in texts] == list(row)


def test_the_rows_of_a_unary_query_are_counted_as_rows_not_values():
    from google.cloud.spanner_v1.types import ResultSet

    answer = ResultSet.pb()()
    for n in range(10):
        answer.rows.add().values.add().string_value = str(n)
    assert _rows_returned("/google.spanner.v1.Spanner/ExecuteSql", [answer.SerializeToString()], 3) == 10


def test_a_write_to_a_new_table_dropped_straight_after_is_recorded(database):
    """A test fixture's pattern: a table created, written once, dropped at once. The tap reads
    the commit a moment after the application sees it acknowledged, and the drop must not
    make it lose the write."""
    db, recorder, _ = database
    tables = [f"Brief{n}" for n in range(6)]
    for table in tables:
        db.update_ddl([f"CREATE TABLE {table} (Id INT64 NOT NULL) PRIMARY KEY (Id)"]).result(60)
        with db.batch() as batch:
            batch.insert(table, ("Id",), [(1,), (2,)])
        db.update_ddl([f"DROP TABLE {table}"]).result(60)
    written = {r.table: r.writes for r in recorder.snapshot()}
    assert not recorder.unattributed
    assert {t: written.get(t) for t in tables} == dict.fromkeys(tables, 2)
