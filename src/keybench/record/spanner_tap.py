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
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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

from keybench.design.byteorder import FULL_SPACE, prefix_successor
from keybench.record.recorder import Recorder, TableName
from keybench.record.spanner_keys import DatabaseKeys, KeyLayout, SchemaCache, typed
from keybench.record.spanner_sql import (
    COMMIT_TIME,
    Bound,
    ColumnCondition,
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
    """One call: its request kept as bytes, decoded at its end, when the outcome is known."""

    request_type: Any = CommitRequest

    def __init__(self, tap: SpannerTap, method: str):
        self.tap, self.method = tap, method
        self.requests: list[bytes] = []
        self.responses: list[bytes] = []

    def request(self, message: bytes) -> None:
        self.requests.append(message)

    def response(self, message: bytes) -> None:
        self.responses.append(message)

    def end(self, code: grpc.StatusCode) -> None:
        if not self.requests:
            return
        try:
            self.finish(self.request_type.pb().FromString(self.requests[0]), code)
        except Exception as exc:
            self.tap.recorder.not_attributed(self.method, f"{type(exc).__name__}: {exc}"[:200])

    def finish(self, request, code: grpc.StatusCode) -> None:
        raise NotImplementedError


class _Commit(_Call):
    def finish(self, request, code: grpc.StatusCode) -> None:
        pending = self.tap.take(request.transaction_id) if request.transaction_id else []
        if code != grpc.StatusCode.OK or not self.responses:
            return  # not committed: nothing was written (an aborted transaction is retried by the client)
        database = database_of(request.session)
        keys = self.tap.schemas.keys(database)
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
        return typed(Value(string_value=_zoned(value) if base_type == "TIMESTAMP" else value), base_type, committed)
    return value


class _Read(_Call):
    request_type = ReadRequest

    def finish(self, request, code: grpc.StatusCode) -> None:
        database = database_of(request.session)
        layouts = self.tap.schemas.keys(database).table(request.table)
        layout = layouts.space(request.index) if layouts is not None else None
        if layouts is None or layout is None:
            raise ValueError(f"{request.table} {request.index} is not in the database's schema")
        rows = _rows_returned(self.method, self.responses, len(request.columns))
        self.tap.recorder.read(TableName(BACKEND, database, layouts.table_name),
                               key_set_intervals(layout, request.key_set), rows, self.method.rsplit("/", 1)[-1],
                               layout.space)


def key_set_intervals(layout: KeyLayout, key_set) -> list[tuple[bytes, bytes]]:
    """A KeySet as [start, end) intervals of the layout's space; `all`: the whole space."""
    if key_set.all_:  # proto-plus names the field `all_`
        return [FULL_SPACE]

    def values(list_value) -> list[object]:
        return [typed(v, c.base_type, None) for c, v in zip(layout.columns, list_value.values, strict=False)]

    intervals = []
    for key in key_set.keys:
        point = layout.prefix(values(key))
        intervals.append((point, prefix_successor(point)))
    for r in key_set.ranges:
        start_kind, end_kind = r.WhichOneof("start_key_type"), r.WhichOneof("end_key_type")
        low = values(getattr(r, start_kind)) if start_kind else None
        high = values(getattr(r, end_kind)) if end_kind else None
        intervals.append(layout.interval(low or None, start_kind != "start_open", high or None,
                                         end_kind == "end_closed"))
    return intervals


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
        keys = self.tap.schemas.keys(database)
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
        keys = self.tap.schemas.keys(database)
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


MAX_QUERY_INTERVALS = 10_000  # an IN list's points beyond this widen to their common prefix


def query_intervals(layout: KeyLayout, conditions: dict[str, ColumnCondition],
                    params) -> list[tuple[bytes, bytes]] | None:
    """The [start, end) intervals of `layout` a query's column conditions read: a point prefix
    per combination of the leading key columns' values, then the next key column's range; the
    whole space for a query with no condition; None when the WHERE does not constrain the first
    key column (the database may read another index: keybench cannot tell which)."""
    if not conditions:
        return [FULL_SPACE]
    prefixes: list[list[object]] = [[]]
    for column in layout.columns:
        condition = conditions.get(column.name.lower())
        if condition is None:
            break
        if condition.equal is not None:
            # NULL equals nothing: `IN (1, NULL)` reads the row of 1 only
            values = [_query_value(v, column.base_type, params) for v in condition.equal if v is not None]
            if not values or any(v is _UNKNOWN for v in values) or len(prefixes) * len(values) > MAX_QUERY_INTERVALS:
                break
            prefixes = [[*p, v] for p in prefixes for v in values]
            continue
        low, high = condition.low, condition.high
        if column.descending:  # the greater value sorts first
            low, high = high, low
        start, end = _query_bound(low, column.base_type, params), _query_bound(high, column.base_type, params)
        if start is _UNKNOWN or end is _UNKNOWN or (start is None and end is None):
            break
        intervals = [layout.interval([*p, start.value] if start else p or None, start.inclusive if start else True,
                                     [*p, end.value] if end else p or None, end.inclusive if end else True)
                     for p in prefixes]
        if any(high and low >= high for low, high in intervals):
            return None  # a range that holds no key (`Id > 5 AND Id < 3`): the query reads no row keybench can place
        return intervals
    if prefixes == [[]]:
        return None
    return [(layout.prefix(p), prefix_successor(layout.prefix(p))) for p in prefixes]


_UNKNOWN = object()  # a parameter the request does not carry, or a literal not of the column's type


def _query_value(value, base_type: str, params):
    try:
        if isinstance(value, Param):
            return typed(params[value.name], base_type, None) if value.name in params else _UNKNOWN
        return typed(_literal(value, base_type), base_type, None)
    except (ValueError, TypeError):
        return _UNKNOWN


# A time of day, then its offset from UTC.
_ZONE = re.compile(r"\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{1,2}(?::?\d{2})?)$", re.IGNORECASE)
DEFAULT_ZONE = "America/Los_Angeles"  # where both dialects read a TIMESTAMP literal that gives no zone


def _zoned(text: str) -> str:
    """A TIMESTAMP literal's text with its offset: one that gives none is read in the database's
    default zone, as the database reads it. ValueError: not a time, or no time zone database
    here to say the zone's offset on that day."""
    stripped = text.strip()
    if _ZONE.search(stripped):
        return stripped
    moment = dt.datetime.fromisoformat(stripped)  # a date alone is its midnight
    if moment.tzinfo is None:
        try:
            moment = moment.replace(tzinfo=ZoneInfo(DEFAULT_ZONE))
        except ZoneInfoNotFoundError:
            raise ValueError(f"no time zone database to read {text!r} in {DEFAULT_ZONE}") from None
    return moment.isoformat()


def _literal(value, base_type: str) -> Value:
    """A query's literal as the Value a client sends for a column of `base_type`: the column's
    type, not the literal's, decides how the key is encoded. ValueError: a literal whose key the
    text does not fix (5.5 against an INT64, a number against a STRING, a string against BYTES)."""
    if isinstance(value, bool):
        if base_type == "BOOL":
            return Value(bool_value=value)
    elif isinstance(value, int | float):
        if base_type in ("FLOAT64", "FLOAT32"):
            return Value(number_value=float(value))
        if base_type == "NUMERIC" or (base_type == "INT64" and isinstance(value, int)):
            return Value(string_value=str(value))
    elif isinstance(value, str) and base_type != "BYTES":
        return Value(string_value=_zoned(value) if base_type == "TIMESTAMP" else value)
    raise ValueError(f"{value!r} fixes no {base_type} key")


def _query_bound(bound: Bound | None, base_type: str, params):
    if bound is None:
        return None
    value = _query_value(bound.value, base_type, params)
    return _UNKNOWN if value is _UNKNOWN else Bound(value, bound.inclusive)


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

    def finish(self, request, code: grpc.StatusCode) -> None:
        self.tap.take(request.transaction_id)


class _SchemaChange(_Call):
    def finish(self, request, code: grpc.StatusCode) -> None:
        pass

    def end(self, code: grpc.StatusCode) -> None:
        from google.cloud.spanner_admin_database_v1.types import UpdateDatabaseDdlRequest

        if self.requests:
            self.tap.schemas.forget(UpdateDatabaseDdlRequest.pb().FromString(self.requests[0]).database)


_CALLS: dict[str, type[_Call]] = {"Commit": _Commit, "Rollback": _Rollback, "Read": _Read, "StreamingRead": _Read,
                                  "ExecuteSql": _Sql, "ExecuteStreamingSql": _Sql, "ExecuteBatchDml": _BatchDml}


class SpannerTap:
    """The tap a proxy in front of the Spanner emulator shows its calls to."""

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
