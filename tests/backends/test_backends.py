"""Each backend against its real emulator: the schema is what the fixture says, writes are
acknowledged and read back, and a bad fixture leaves nothing behind."""

import shutil
import time
import uuid

import pytest
from google.cloud import spanner

from keybench.backends import open_backend
from keybench.backends.bigtable import gc_rule
from keybench.design import strategies
from keybench.design.events import WriteEvent
from keybench.design.plans import Span, read_plans
from keybench.errors import KeybenchError
from keybench.infra.target import INSTANCE, PROJECT, location_name


def backend_for(strategy):
    return open_backend(strategy, location_name(uuid.uuid4().hex[:6], strategy), PROJECT, INSTANCE)


def events(n, entity=None):
    base = 1_795_000_000_000_000
    return [WriteEvent(entity or (i % 5 + 1), base + i * 1000, f"t-{i}", seq=i + 1) for i in range(n)]


def information_schema(db, sql: str, table: str) -> list[tuple]:
    """Rows of an INFORMATION_SCHEMA query about one table, in either dialect."""
    if db.postgresql:
        sql = sql.replace("@t", "$1").lower().replace("'primary_key'", "'PRIMARY_KEY'")
        params, types = {"p1": table.lower()}, {"p1": spanner.param_types.STRING}
    else:
        params, types = {"t": table}, {"t": spanner.param_types.STRING}
    with db.database.snapshot() as snap:
        return [tuple(r) for r in snap.execute_sql(sql, params=params, param_types=types)]


SPANNER_UNITS = [(name, dialect) for dialect in strategies.DIALECTS["spanner"]
                 for name in strategies.catalogue("spanner", dialect)]


@pytest.mark.parametrize("name, dialect", SPANNER_UNITS)
def test_spanner_schema_matches_the_fixture_and_rows_read_back(emulator_hosts, name, dialect):
    strategy = strategies.catalogue("spanner", dialect)[name]
    db = backend_for(strategy)
    db.create()
    fold = str.lower if db.postgresql else str
    try:
        pk = information_schema(
            db, "SELECT COLUMN_NAME, COLUMN_ORDERING FROM INFORMATION_SCHEMA.INDEX_COLUMNS "
                "WHERE TABLE_NAME = @t AND INDEX_NAME = 'PRIMARY_KEY' ORDER BY ORDINAL_POSITION", strategy.table)
        [(parent,)] = information_schema(
            db, "SELECT PARENT_TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = @t", strategy.table)
        assert pk == [(fold(p.column), "DESC" if p.descending else "ASC") for p in strategy.parts]
        assert parent == (fold(strategy.parent_table) if strategy.parent_table else None)
        for index in strategy.indexes:
            assert information_schema(
                db, f"SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = @t "
                    f"AND INDEX_NAME = '{fold(index.name)}'", strategy.table) == [(fold(index.name),)]
        if db.postgresql:
            with db.database.snapshot() as snap:  # the kind is the 13th column of the PostgreSQL view
                kinds = [r[12] for r in snap.execute_sql("SELECT * FROM information_schema.sequences")]
            assert kinds == (["bit_reversed_positive"] if any(p.name == "generated" for p in strategy.parts) else [])
        else:
            with db.database.snapshot() as snap:
                kinds = {name: value for name, value in snap.execute_sql(
                    "SELECT OPTION_NAME, OPTION_VALUE FROM INFORMATION_SCHEMA.SEQUENCE_OPTIONS "
                    "WHERE OPTION_NAME IN ('sequence_kind', 'start_with_counter', 'skip_range_max')")}
            if any(p.name == "generated" for p in strategy.parts):  # (generated_uuid: GENERATE_UUID(), no sequence)
                assert kinds["sequence_kind"] == "bit_reversed_positive"
            else:
                assert kinds == {}
        gen = strategy.key_generator(seed=3)
        written = [(db.insert(gen.key(e), e), e) for e in events(30)]  # the key as stored
        assert sorted(db.write_ids()) == sorted(e.write_id for _, e in written)
        key, e = written[7]
        [row] = db.read((Span(key, key),))
        assert (row.entity, row.ts_us, row.write_id) == (e.entity, e.ts_us, e.write_id)
        # A full scan's `where` keeps the rows it names, and only those.
        lo, hi = written[10][1].ts_us, written[19][1].ts_us
        assert sorted(r.write_id for r in db.read(None, where=("ts_us", lo, hi))) == sorted(
            e.write_id for _, e in written if lo <= e.ts_us <= hi)
        assert sorted(r.write_id for r in db.read(None, where=("entity", 2, 2))) == sorted(
            e.write_id for _, e in written if e.entity == 2)
    finally:
        db.drop()
        db.close()


@pytest.mark.parametrize("name, low, high", [("index_sparse", 0.0, 0.2), ("index_monotonic", 0.6, 0.9)])
def test_a_null_filtered_index_holds_the_rows_with_its_column_set_only(emulator_hosts, name, low, high):
    """On the emulator: the index's entries, counted through the index alone, against the
    table's rows. index_sparse's IsUnread is TRUE for one row in ten, index_monotonic's
    LastAccess NULL for one user in four. (The PostgreSQL dialect's WHERE ... IS NOT NULL is
    stored without its filter by the emulator, so only GoogleSQL can show the filtering here.)"""
    strategy = strategies.catalogue("spanner", "googlesql")[name]
    [index] = strategy.indexes
    db = backend_for(strategy)
    db.create()
    try:
        gen = strategy.key_generator(seed=3)
        written = events(300)
        for e in written:
            db.insert(gen.key(e), e)
        held = sum(1 for e in written if index.holds_write(e))
        everything = spanner.KeySet(all_=True)
        key_columns = [p.column for p in strategy.parts]
        with db.database.snapshot(multi_use=True) as snap:  # the Read API: the table, then the index alone
            rows = len(list(snap.read(strategy.table, key_columns, everything)))
            entries = len(list(snap.read(strategy.table, [p.column for p in index.parts] + key_columns, everything,
                                         index=index.name)))
        print(f"{name}: {rows} table rows, {entries} index entries")
        assert rows == 300 and entries == held and low * rows < entries < high * rows
    finally:
        db.drop()
        db.close()


def test_spanner_bad_ddl_names_file_statement_and_message_and_leaves_no_database(emulator_hosts, tmp_path, monkeypatch):
    shutil.copytree(strategies.schemas_root(), tmp_path / "schemas")
    ddl = tmp_path / "schemas/spanner/hash_shard/googlesql.sql"
    ddl.write_text(ddl.read_text() + "\nCREATE INDEX ByUser ON AccessLog(NoSuchColumn);\n")
    monkeypatch.setenv("KEYBENCH_SCHEMAS", str(tmp_path / "schemas"))
    db = backend_for(strategies.catalogue("spanner")["hash_shard"])
    with pytest.raises(KeybenchError) as err:
        db.create()
    message = str(err.value)
    assert str(ddl) in message and "CREATE INDEX ByUser" in message and "NoSuchColumn" in message
    assert db.location not in [d.name.rsplit("/", 1)[-1] for d in db.instance.list_databases()]
    db.close()


@pytest.mark.parametrize("name", list(strategies.catalogue("bigtable")))
def test_bigtable_table_matches_the_fixture_and_rows_read_back(emulator_hosts, name):
    strategy = strategies.catalogue("bigtable")[name]
    db = backend_for(strategy)
    db.create()
    try:
        families = db.admin_table.list_column_families()
        assert set(families) == set(strategy.column_families)
        for family, spec in strategy.column_families.items():
            assert families[family].gc_rule.to_pb() == gc_rule(spec["gc"]).to_pb()
        gen = strategy.key_generator(seed=3)
        written = [(gen.key(e), e) for e in events(40)]
        for key, e in written:
            db.insert(key, e)
        assert sorted(db.write_ids()) == sorted(e.write_id for _, e in written)
        plan = read_plans("bigtable", strategy.parts, 10)["prefix_scan"]
        request = plan.build(2)
        raw = db.read(request.spans, request.limit)
        rows, strays = request.answer(raw)
        assert strays == 0
        assert sorted(r.write_id for r in rows) == sorted(e.write_id for _, e in written if e.entity == 2)
    finally:
        db.drop()
        db.close()


def test_bigtable_drop_removes_the_table(emulator_hosts):
    db = backend_for(strategies.catalogue("bigtable")["salted"])
    db.create()
    assert db.admin_table.exists()
    db.drop()
    assert not db.admin_table.exists()
    db.close()


def test_bigtable_insert_stores_exactly_the_cells_the_data_clients_mutate_row_stores(emulator_hosts):
    """Single-row inserts go through MutateRowCall, not the data client's mutate_row: the
    stored row must be the documented cells, and the same, cell for cell, as the library's."""
    db = backend_for(strategies.catalogue("bigtable")["salted"])
    db.create()
    try:
        event = events(1)[0]  # entity 1, ts_us 1_795_000_000_000_000, write id t-0, seq 1
        db.insert(("a",), event)
        db.table.mutate_row(db.row_key(("b",)), db._cells(event))

        def cells(key):
            row = db.table.read_row(db.row_key(key))
            return sorted((c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells)

        at = 1_795_000_000_000_000
        assert cells(("a",)) == sorted([
            (db.family, b"u", b"0000000001", at), (db.family, b"t", b"1795000000000000", at),
            (db.family, b"n", b"000000000001", at), (db.family, b"w", b"t-0", at),
            (db.family, b"p", b"x" * 100, at),
        ])
        assert cells(("a",)) == cells(("b",))
    finally:
        db.drop()
        db.close()


def test_mutate_row_call_follows_the_data_clients_channel_when_it_is_swapped(emulator_hosts):
    """The data client replaces its channel every 35-45 minutes on real instances."""
    import grpc

    db = backend_for(strategies.catalogue("bigtable")["salted"])
    db.create()
    try:
        db.insert(("a",), events(1)[0])
        swappable = db.data.transport.grpc_channel
        old, new = swappable._channel, grpc.insecure_channel(emulator_hosts["bigtable"])
        swappable.swap_channel(new)  # what the data client's refresh task does
        db.data._invalidate_channel_stubs()
        old.close()  # a write still bound to the old channel would now fail
        db.insert(("b",), events(2)[1])
        assert db.write_rows[None]._bound_to is new  # the one table's writer
        assert sorted(db.write_ids()) == ["t-0", "t-1"]
    finally:
        db.drop()
        db.close()


def test_mutate_row_call_retries_an_unreachable_server_until_its_deadline_then_raises_deadline_exceeded(
        monkeypatch):
    import socket
    import time

    from google.api_core import exceptions as gexc
    from google.cloud.bigtable.data import BigtableDataClient

    from keybench.backends.bigtable_calls import MutateRowCall

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", f"127.0.0.1:{port}")
    client = BigtableDataClient(project=PROJECT)
    try:
        call = MutateRowCall(client.get_table(INSTANCE, "t"), timeout_s=1.0)
        attempts, rpc_of = [], call._current_rpc

        def counted():
            attempts.append(1)
            return rpc_of()

        call._current_rpc = counted
        started = time.monotonic()
        with pytest.raises(gexc.DeadlineExceeded, match="operation_timeout of 1.0s exceeded"):
            call(b"k", "cf", [(b"q", b"v")], 1000)
        elapsed = time.monotonic() - started
        assert len(attempts) >= 2  # UNAVAILABLE is retried
        assert 0.95 <= elapsed < 3.0  # at its deadline: not before it, and not long after
        with pytest.raises(ValueError, match="explicit cell time"):
            call(b"k", "cf", [(b"q", b"v")], -1)  # the server's time: a retry could store it twice
    finally:
        client.close()


def _escaping_aborts(db, times: int):
    """The client's run_in_transaction, raising ABORTED out of it `times` times first: the
    emulator lets one escape now and then (one transaction at a time); the database is real."""
    from google.api_core import exceptions as gexc

    real, calls = db.database.run_in_transaction, []

    def flaky(*args, **kwargs):
        calls.append(kwargs.get("timeout_secs"))
        if len(calls) <= times:
            raise gexc.Aborted("Transaction aborted due to active transaction (injected)")
        return real(*args, **kwargs)

    db.database.run_in_transaction = flaky
    return calls


def test_an_aborted_mutation_commit_is_retried_after_milliseconds_not_the_clients_seconds(emulator_hosts):
    """The emulator names no retry delay in its ABORTED, and the client would then sleep
    2 + 4 + 8 s before the fourth try; keybench's own jittered 50 ms, 100 ms, 200 ms instead."""
    from google.api_core import exceptions as gexc

    db = backend_for(strategies.catalogue("spanner")["uuid4_string"])
    db.create()
    try:
        api, calls = db.database.spanner_api, []
        real = api.commit

        def aborting(*args, **kwargs):
            calls.append(1)
            if len(calls) <= 3:  # as the RPC raises it: with its gRPC error, which names no retry delay
                raise gexc.Aborted("Transaction aborted due to active transaction (injected)", errors=[None])
            return real(*args, **kwargs)

        api.commit = aborting
        event = events(1)[0]
        started = time.monotonic()
        db.insert(("00000000-0000-4000-8000-000000000001",), event)
        # Well under the client's 14 s, with room for the real commit on a loaded machine.
        assert time.monotonic() - started < 5.0 and len(calls) == 4
        assert [r.write_id for r in db.read(None)] == [event.write_id]
    finally:
        db.drop()
        db.close()


def test_a_dml_insert_whose_aborted_escapes_the_client_is_retried_within_its_deadline(emulator_hosts):
    from google.api_core import exceptions as gexc

    strategy = strategies.catalogue("spanner")["bit_reversed_sequence"]
    db = backend_for(strategy)
    db.create()
    try:
        calls = _escaping_aborts(db, times=3)
        [key] = [db.insert((None,), e) for e in events(1)]
        assert key[0] > 0 and len(calls) == 4 and db.take_aborts() >= 3
        assert [r.write_id for r in db.read(None)] == ["t-0"]
        db.timeout_s = 0.3  # a deadline the aborts outlast: the insert gives up, as ABORTED
        retried = _escaping_aborts(db, times=10**6)
        started = time.monotonic()
        with pytest.raises(gexc.Aborted):
            db.insert((None,), events(2)[1])
        assert time.monotonic() - started < 1.5 and len(retried) >= 2
        assert all(t == 0 for t in retried)  # the client raises each ABORTED at once: keybench's loop retries
    finally:
        db.drop()
        db.close()


def _chunk(**fields):
    from google.cloud.bigtable_v2.types import bigtable as bigtable_types

    Chunk = bigtable_types.ReadRowsResponse.CellChunk.pb()
    chunk = Chunk(**{k: v for k, v in fields.items() if k not in ("family", "qualifier")})
    if "family" in fields:
        chunk.family_name.value = fields["family"]
    if "qualifier" in fields:
        chunk.qualifier.value = fields["qualifier"]
    return chunk


def test_read_rows_call_merges_split_values_and_drops_reset_rows_and_other_families():
    from google.cloud.bigtable_v2.types import bigtable as bigtable_types

    from keybench.backends.bigtable_calls import merge_rows

    Response = bigtable_types.ReadRowsResponse.pb()
    stream = [
        Response(chunks=[_chunk(row_key=b"r1", family="cf", qualifier=b"u", value=b"00", value_size=4)]),
        Response(chunks=[_chunk(value=b"01"), _chunk(qualifier=b"t", value=b"9"),
                         _chunk(timestamp_micros=1, value=b"8"),  # an older version of t
                         _chunk(family="other", qualifier=b"u", value=b"no", commit_row=True)]),
        Response(chunks=[_chunk(row_key=b"r2", family="cf", qualifier=b"u", value=b"gone"), _chunk(reset_row=True),
                         _chunk(row_key=b"r2", family="cf", qualifier=b"u", value=b"kept", commit_row=True)]),
        Response(chunks=[_chunk(row_key=b"r3", family="cf", qualifier=b"u", value=b"torn")]),  # never committed
    ]
    rows = []
    merge_rows(stream, "cf", rows)
    assert rows == [(b"r1", {b"u": [b"0001"], b"t": [b"9", b"8"]}), (b"r2", {b"u": [b"kept"]})]


def test_read_rows_call_resumes_after_the_last_row_with_the_limit_reduced():
    from google.cloud.bigtable_v2.types import bigtable as bigtable_types
    from google.cloud.bigtable_v2.types import data as data_types

    from keybench.backends.bigtable_calls import resumed_request

    Request, RowRange = bigtable_types.ReadRowsRequest.pb(), data_types.RowRange.pb()
    ranged = Request(table_name="t", rows_limit=10, rows={"row_ranges": [
        RowRange(start_key_closed=b"a", end_key_open=b"c"), RowRange(start_key_closed=b"d", end_key_closed=b"f")]})
    resumed = resumed_request(ranged, b"b", 4)
    assert resumed.rows_limit == 6 and resumed.table_name == "t"
    assert list(resumed.rows.row_ranges) == [RowRange(start_key_open=b"b", end_key_open=b"c"),
                                             ranged.rows.row_ranges[1]]
    assert list(resumed_request(ranged, b"e", 4).rows.row_ranges) == [RowRange(start_key_open=b"e",
                                                                               end_key_closed=b"f")]
    assert resumed_request(ranged, b"f", 4) is None  # every range read
    assert resumed_request(ranged, b"b", 10) is None  # the limit reached
    keys = Request(rows={"row_keys": [b"a", b"b", b"c"]})
    assert list(resumed_request(keys, b"a", 1).rows.row_keys) == [b"b", b"c"]
    whole = resumed_request(Request(), b"k", 3)
    assert list(whole.rows.row_ranges) == [RowRange(start_key_open=b"k")] and whole.rows_limit == 0


def test_bigtable_reads_return_what_the_data_clients_read_rows_returns(emulator_hosts):
    """Reads go through ReadRowsCall, not the data client's read_rows: the same rows, in the
    same order, versions included (single_row_counter rewrites one row per device)."""
    from google.cloud.bigtable.data import ReadRowsQuery, RowRange

    from keybench.backends.bigtable import READ_CELLS, scan_filter
    from keybench.design.byteorder import bigtable_row_range

    strategy = strategies.catalogue("bigtable")["single_row_counter"]
    db = backend_for(strategy)
    db.create()
    try:
        gen = strategy.key_generator(seed=3)
        for e in events(12):
            db.insert(gen.key(e), e)

        def library(query):
            out = []
            for row in db.table.read_rows(query):
                cells = [row.get_cells(db.family, q) for q in (b"u", b"t", b"w", b"n")]
                out += [(int(u.value), int(t.value), w.value.decode(), int(n.value)) for u, t, w, n in zip(*cells,
                                                                                                           strict=True)]
            return out

        def ours(spans, limit=None, where=None):
            return [(r.entity, r.ts_us, r.write_id, r.seq) for r in db.read(spans, limit, where)]

        everything = ours(None)
        assert len(everything) == 12 and everything == library(ReadRowsQuery(row_filter=READ_CELLS))
        plan = read_plans("bigtable", strategy.parts, 10)["prefix_scan"]
        spans = plan.build(2).spans
        start, end, inclusive = bigtable_row_range(strategy.parts, strategy.separator, spans[0])
        assert ours(spans) == library(ReadRowsQuery(row_ranges=[RowRange(start, end, end_is_inclusive=inclusive)],
                                                    row_filter=READ_CELLS)) != []
        two_rows = ours(None, 2)  # a limit counts rows, not versions
        assert two_rows == library(ReadRowsQuery(limit=2, row_filter=READ_CELLS)) and len(two_rows) > 2
        # The server's filter keeps a row any of whose versions lies in the range, with all its versions.
        seqs = [r[3] for r in ours(None, where=("seq", 3, 5))]
        assert [(e, t, w, n) for e, t, w, n in everything if n in seqs] == library(
            ReadRowsQuery(row_filter=scan_filter(("seq", 3, 5))))
        assert {3, 4, 5} <= set(seqs) and not {1, 2} & set(seqs)
    finally:
        db.drop()
        db.close()
