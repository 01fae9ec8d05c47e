"""What the Spanner API's calls write and read, decoded from the bytes a proxy forwards.

A write is recorded when its commit succeeds: every mutation of a `Commit` (insert, update,
insert_or_update, replace; a delete's keys), keyed by its table's primary key, and an entry
in each index whose key columns the mutation carries, with the commit's own timestamp for a
`spanner.commit_timestamp()` value. DML (ExecuteSql, ExecuteStreamingSql, ExecuteBatchDml)
gives its rows through spanner_sql.py; they wait for their transaction's Commit, and a
Rollback drops them. `Read` and `StreamingRead` are reads of their key set in the table's or
the index's key space. A query is a read of the key ranges its WHERE gives over the table's
primary key (equality on leading key columns, then a range or a list on the next;
spanner_sql.query_keys), or of the whole table when it has no WHERE; other queries (a join,
a WHERE the primary key does not lead, an index hint) are counted, not placed. A schema
change passing the proxy makes the next write read the schema again.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from typing import Any

import grpc
from google.cloud.spanner_v1.types import (
    CommitRequest,
    CommitResponse,
    ExecuteBatchDmlRequest,
    ExecuteSqlRequest,
    PartialResultSet,
    ReadRequest,
    ResultSet,
    RollbackRequest,
)
from google.protobuf.struct_pb2 import Value  # type: ignore[import-untyped]

from keybench.record.recorder import Recorder, TableName
from keybench.record.spanner_keys import DatabaseKeys, SchemaCache, typed
from keybench.record.spanner_ranges import key_set_intervals, query_intervals, zoned
from keybench.record.spanner_sql import (
    COMMIT_TIME,
    NotAttributed,
    Param,
    dml_rows,
    query_keys,
)

BACKEND = "spanner"
SERVICE = "/google.spanner.v1.Spanner/"
SCHEMA_CHANGE = "/google.spanner.admin.database.v1.DatabaseAdmin/UpdateDatabaseDdl"
WRITES = ("insert", "update", "insert_or_update", "replace")
_DML = re.compile(r"^\s*(?:(?:--|#)[^\n]*\n\s*|/\*.*?\*/\s*)*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE | re.DOTALL)


def database_of(session: str) -> str:
    """projects/p/instances/i/databases/d of a session's name."""
    if "/sessions/" not in session:
        raise ValueError("no session named")
    return session.split("/sessions/", 1)[0]


class _Call:
    """One call: its request decoded as it is read, with its database's keys when it needs
    them; the rest waits for its end, when the outcome is known."""

    request_type: Any = CommitRequest
    reads_schema = True  # the call is placed by its database's keys

    def __init__(self, tap: SpannerTap, method: str):
        self.tap, self.method = tap, method
        self.requests: list[bytes] = []
        self.responses: list[bytes] = []
        self._decoded: Any = None  # the first request, or why it could not be decoded
        self._schema: DatabaseKeys | Exception | None = None

    def request(self, message: bytes) -> None:
        if not self.requests:
            self._decoded = _attempt(lambda: self.request_type.pb().FromString(message))
            if self.reads_schema and not isinstance(self._decoded, Exception):
                # Now, before the proxy passes the answer on: a table the application drops
                # as soon as it sees the call answered is still in the keys the call is given.
                self._schema = _attempt(lambda: self.tap.schemas.keys(database_of(self._decoded.session)))
        self.requests.append(message)

    def response(self, message: bytes) -> None:
        self.responses.append(message)

    def keys(self) -> DatabaseKeys:
        """The keys of the call's database as they were when its request was read."""
        if isinstance(self._schema, Exception):
            raise self._schema
        assert self._schema is not None, "a call whose request was not read"
        return self._schema

    def end(self, code: grpc.StatusCode) -> None:
        if not self.requests:
            return
        try:
            if isinstance(self._decoded, Exception):
                raise self._decoded
            self.finish(self._decoded, code)
        except Exception as exc:
            self.tap.recorder.not_attributed(self.method, f"{type(exc).__name__}: {exc}"[:200])

    def finish(self, request, code: grpc.StatusCode) -> None:
        raise NotImplementedError


def _attempt(step: Callable[[], Any]) -> Any:
    """What `step` returns, or the exception it raised (raised again where it matters)."""
    try:
        return step()
    except Exception as exc:
        return exc


class _Commit(_Call):
    def finish(self, request, code: grpc.StatusCode) -> None:
        pending = self.tap.take(request.transaction_id) if request.transaction_id else []
        if code != grpc.StatusCode.OK or not self.responses:
            return  # not committed: nothing was written (an aborted transaction is retried by the client)
        database = database_of(request.session)
        keys = self.keys()
        committed = CommitResponse.pb().FromString(self.responses[0]).commit_timestamp.ToDatetime(tzinfo=dt.UTC)
        writes = []
        for mutation in request.mutations:
            kind = mutation.WhichOneof("operation")
            if kind in WRITES:
                write = getattr(mutation, kind)
                columns = list(write.columns)
                writes += [(write.table, {c.lower(): v for c, v in zip(columns, row.values, strict=True)},
                            kind != "update") for row in write.values]
            elif kind == "delete":
                self._delete(keys, database, mutation.delete, committed)
        writes += pending
        for table, values, inserting in writes:
            self._write(keys, database, table, values, committed, inserting)

    def _write(self, keys: DatabaseKeys, database: str, table: str, values: dict[str, object],
               committed: dt.datetime, inserting: bool) -> None:
        """One row written (`inserting`: as a new row may be, so the database fills its defaults):
        `values` by column (lower case), each a protobuf Value, a DML parameter's or literal's
        value, or COMMIT_TIME."""
        layouts = keys.table(table)
        if layouts is None:
            raise ValueError(f"table {table} is not in the database's schema")
        written = TableName(BACKEND, database, layouts.table_name)
        types = layouts.key_columns
        row = {types[name].name: _resolved(value, types[name].base_type, committed)
               for name, value in values.items() if name in types}
        for name, fill in layouts.fills.items():  # defaults first (spanner_fills.fills)
            if name not in values and (inserting or not fill.on_insert_only):
                try:
                    row[fill.column] = fill.value(row)
                except ValueError:
                    if fill.column in (c.name for c in layouts.table.columns):
                        raise
                    continue  # an index column left as it was: that index gets no entry
                self.tap.recorder.modelled_fill(written, fill.what)
        missing = [c.name for c in layouts.table.columns if c.name not in row]
        if missing:
            raise ValueError(f"key column(s) {', '.join(missing)} of {table} not in the write, and filled by the "
                             "database in a way keybench does not model")
        for layout in layouts.spaces:
            key = layout.key(row)
            if key is not None:
                self.tap.recorder.write(written, [key], layout.space)

    def _delete(self, keys: DatabaseKeys, database: str, delete, committed: dt.datetime) -> None:
        layouts = keys.table(delete.table)
        if layouts is None:
            raise ValueError(f"table {delete.table} is not in the database's schema")
        layout = layouts.table
        deleted = [layout.prefix([typed(v, c.base_type, committed) for c, v in zip(layout.columns, key.values,
                                                                                    strict=False)])
                   for key in delete.key_set.keys]
        self.tap.recorder.write(TableName(BACKEND, database, layouts.table_name), [(k, None) for k in deleted],
                                layout.space)


def _resolved(value, base_type: str, committed: dt.datetime | None):
    """A written value as byteorder encodes it."""
    if value is COMMIT_TIME:
        return committed
    if isinstance(value, Value):
        return typed(value, base_type, committed)
    if isinstance(value, str) and base_type != "STRING":  # a literal of another type, in quotes
        return typed(Value(string_value=zoned(value) if base_type == "TIMESTAMP" else value), base_type, committed)
    return value


class _Read(_Call):
    request_type = ReadRequest

    def finish(self, request, code: grpc.StatusCode) -> None:
        database = database_of(request.session)
        layouts = self.keys().table(request.table)
        layout = layouts.space(request.index) if layouts is not None else None
        if layouts is None or layout is None:
            raise ValueError(f"{request.table} {request.index} is not in the database's schema")
        rows = _rows_returned(self.method, self.responses, len(request.columns))
        self.tap.recorder.read(TableName(BACKEND, database, layouts.table_name),
                               key_set_intervals(layout, request.key_set), rows, self.method.rsplit("/", 1)[-1],
                               layout.space)


def _rows_returned(method: str, responses: list[bytes], columns: int) -> int | None:
    if not columns:
        return None
    if method.endswith(("/Read", "/ExecuteSql")):  # whole ResultSets: rows, not values
        return sum(len(ResultSet.pb().FromString(r).rows) for r in responses)
    values = 0
    for r in responses:
        partial = PartialResultSet.pb().FromString(r)
        values += len(partial.values) - (1 if partial.chunked_value else 0)  # a chunked value goes on in the next
    return values // columns


class _Sql(_Call):
    """DML: its rows wait for their transaction's commit; a query is counted."""

    request_type = ExecuteSqlRequest

    def statements(self, request) -> list:
        return [request]

    def transaction_begun(self) -> bytes:
        """The id of a transaction the statement began (an inline begin), from its first answer."""
        first = self.responses[0] if self.responses else b""
        metadata = (PartialResultSet.pb().FromString(first).metadata if self.method.endswith("StreamingSql")
                    else ResultSet.pb().FromString(first).metadata)
        return metadata.transaction.id

    def finish(self, request, code: grpc.StatusCode) -> None:
        dml = [s for s in self.statements(request) if _DML.match(s.sql)]
        if not dml:
            if code != grpc.StatusCode.OK or not self._query_read(request):
                self.tap.recorder.other(self.method)
            return
        if code != grpc.StatusCode.OK:
            return  # refused: it wrote nothing
        selector = request.transaction.WhichOneof("selector")
        transaction = request.transaction.id if selector == "id" else self.transaction_begun() \
            if selector == "begin" else b""
        if not transaction:
            self.tap.recorder.not_attributed(self.method, "DML outside a read-write transaction (partitioned DML)")
            return
        database = database_of(request.session)
        keys = self.keys()
        for statement in dml:
            try:
                found = dml_rows(statement.sql, keys.dialect)
            except NotAttributed as exc:
                self.tap.recorder.not_attributed(self.method, str(exc))
                continue
            if found is None:
                continue
            params = statement.params.fields
            rows = [{c: params[v.name] if isinstance(v, Param) and v.name in params else v for c, v in row.items()}
                    for row in found.rows]
            if any(isinstance(v, Param) for row in rows for v in row.values()):
                self.tap.recorder.not_attributed(self.method, "a parameter the request does not carry")
                continue
            if found.modelled:
                layouts = keys.table(found.table)
                table = TableName(BACKEND, database, layouts.table_name if layouts else found.table)
                self.tap.recorder.modelled_fill(table, "GENERATE_UUID() in the statement", found.modelled)
            self.tap.pend(transaction, [(found.table, row, found.inserting) for row in rows])


    def _query_read(self, request) -> bool:
        """A query recorded as a read of the key ranges it gives; False: one keybench cannot place."""
        if not isinstance(request, ExecuteSqlRequest.pb()) or request.partition_token or request.resume_token \
                or request.query_mode != ExecuteSqlRequest.QueryMode.NORMAL:
            return False  # one partition of a query, the rest of a stream already begun, or a plan: not a read to place
        database = database_of(request.session)
        keys = self.keys()
        found = query_keys(request.sql, keys.dialect)
        layouts = keys.table(found.table) if found is not None else None
        if found is None or layouts is None:
            return False
        intervals = query_intervals(layouts.table, found.columns, request.params.fields)
        if intervals is None:
            return False
        first = (PartialResultSet if self.method.endswith("StreamingSql") else ResultSet).pb().FromString(
            self.responses[0]) if self.responses else None
        columns = len(first.metadata.row_type.fields) if first is not None else 0
        self.tap.recorder.read(TableName(BACKEND, database, layouts.table_name), intervals,
                               _rows_returned(self.method, self.responses, columns), self.method.rsplit("/", 1)[-1],
                               layouts.table.space)
        return True


class _BatchDml(_Sql):
    request_type = ExecuteBatchDmlRequest

    def statements(self, request) -> list:
        return list(request.statements)

    def transaction_begun(self) -> bytes:
        from google.cloud.spanner_v1.types import ExecuteBatchDmlResponse

        sets = ExecuteBatchDmlResponse.pb().FromString(self.responses[0]).result_sets if self.responses else []
        return sets[0].metadata.transaction.id if sets else b""


class _Rollback(_Call):
    request_type = RollbackRequest
    reads_schema = False

    def finish(self, request, code: grpc.StatusCode) -> None:
        self.tap.take(request.transaction_id)


class _SchemaChange(_Call):
    reads_schema = False

    @property
    def request_type(self) -> Any:
        from google.cloud.spanner_admin_database_v1.types import UpdateDatabaseDdlRequest

        return UpdateDatabaseDdlRequest

    def finish(self, request, code: grpc.StatusCode) -> None:
        self.tap.schemas.forget(request.database)


_CALLS: dict[str, type[_Call]] = {"Commit": _Commit, "Rollback": _Rollback, "Read": _Read, "StreamingRead": _Read,
                                  "ExecuteSql": _Sql, "ExecuteStreamingSql": _Sql, "ExecuteBatchDml": _BatchDml}


class SpannerTap:
    """The tap a proxy in front of the Spanner emulator shows its calls to."""

    request_before_answer = True  # see Tap

    def __init__(self, recorder: Recorder, schemas: SchemaCache):
        self.recorder, self.schemas = recorder, schemas
        self._lock = threading.Lock()
        # DML rows by transaction id, until its Commit records them or its Rollback drops them.
        self._pending: dict[bytes, list[tuple[str, dict, bool]]] = {}

    def pend(self, transaction: bytes, rows: list[tuple[str, dict, bool]]) -> None:
        with self._lock:
            self._pending.setdefault(transaction, []).extend(rows)

    def take(self, transaction: bytes) -> list[tuple[str, dict, bool]]:
        with self._lock:
            return self._pending.pop(transaction, [])

    def call(self, method: str) -> _Call | None:
        if method == SCHEMA_CHANGE:
            return _SchemaChange(self, method)
        kind = _CALLS.get(method[len(SERVICE):]) if method.startswith(SERVICE) else None
        if kind is None:
            self.recorder.other(method)
            return None
        return kind(self, method)
