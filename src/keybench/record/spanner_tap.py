"""What the Spanner API's calls write and read, decoded from the bytes a proxy forwards.

A write is recorded when its commit succeeds: every mutation of a `Commit` (insert, update,
insert_or_update, replace; a delete's keys), keyed by its table's primary key, and an entry
in each index whose key columns the mutation carries, with the commit's own timestamp for a
`spanner.commit_timestamp()` value. `Read` and `StreamingRead` are reads of their key set in
the table's or the index's key space. SQL is not decoded yet: DML statements (ExecuteSql,
ExecuteStreamingSql, ExecuteBatchDml) are counted as unattributed writes, queries as other
calls. A schema change passing the proxy makes the next write read the schema again.
"""

from __future__ import annotations

import datetime as dt
import re
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
)

from keybench.design.byteorder import FULL_SPACE, prefix_successor
from keybench.record.recorder import Recorder
from keybench.record.spanner_keys import KeyLayout, SchemaCache, TableLayouts, typed

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
        if code != grpc.StatusCode.OK or not self.responses:
            return  # not committed: nothing was written (an aborted transaction is retried by the client)
        tables = self.tap.schemas.tables(database_of(request.session))
        response = CommitResponse.pb().FromString(self.responses[0])
        committed = response.commit_timestamp.ToDatetime(tzinfo=dt.UTC)
        for mutation in request.mutations:
            kind = mutation.WhichOneof("operation")
            if kind in WRITES:
                write = getattr(mutation, kind)
                self._write(tables, write.table, list(write.columns), write.values, committed)
            elif kind == "delete":
                self._delete(tables, mutation.delete, committed)

    def _layouts(self, tables: dict[str, TableLayouts], table: str) -> TableLayouts:
        layouts = tables.get(table)
        if layouts is None:
            raise ValueError(f"table {table} is not in the database's schema")
        return layouts

    def _write(self, tables, table: str, columns: list[str], rows, committed: dt.datetime) -> None:
        layouts = self._layouts(tables, table)
        types = {c.name: c.base_type for space in (layouts.table, *layouts.indexes) for c in space.columns}
        keyed = [c for c in columns if c in types]
        by_space: dict[str, list[tuple[bytes, int | None]]] = {}
        for row in rows:
            values = {name: typed(row.values[columns.index(name)], types[name], committed) for name in keyed}
            for layout in (layouts.table, *layouts.indexes):
                key = layout.key(values)
                if key is not None:
                    by_space.setdefault(layout.space, []).append(key)
        for space, keys in by_space.items():
            self.tap.recorder.write(BACKEND, table, keys, space)

    def _delete(self, tables, delete, committed: dt.datetime) -> None:
        layout = self._layouts(tables, delete.table).table
        keys = [layout.prefix([typed(v, c.base_type, committed) for c, v in zip(layout.columns, key.values,
                                                                                 strict=False)])
                for key in delete.key_set.keys]
        self.tap.recorder.write(BACKEND, delete.table, [(k, None) for k in keys], layout.space)


class _Read(_Call):
    request_type = ReadRequest

    def finish(self, request, code: grpc.StatusCode) -> None:
        tables = self.tap.schemas.tables(database_of(request.session))
        layouts = tables.get(request.table)
        layout = layouts.space(request.index) if layouts is not None else None
        if layout is None:
            raise ValueError(f"{request.table} {request.index} is not in the database's schema")
        rows = _rows_returned(self.method, self.responses, len(request.columns))
        self.tap.recorder.read(BACKEND, request.table, key_set_intervals(layout, request.key_set), rows,
                               self.method.rsplit("/", 1)[-1], layout.space)


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
    if method.endswith("/Read"):
        return sum(len(ResultSet.pb().FromString(r).rows) for r in responses)
    values = 0
    for r in responses:
        partial = PartialResultSet.pb().FromString(r)
        values += len(partial.values) - (1 if partial.chunked_value else 0)  # a chunked value goes on in the next
    return values // columns


class _Sql(_Call):
    request_type = ExecuteSqlRequest

    def finish(self, request, code: grpc.StatusCode) -> None:
        statements = [s.sql for s in request.statements] if self.request_type is ExecuteBatchDmlRequest \
            else [request.sql]
        dml = sum(1 for s in statements if _DML.match(s))
        if dml:
            self.tap.recorder.not_attributed(self.method, "DML is not decoded yet: its writes are not recorded")
        else:
            self.tap.recorder.other(self.method)


class _BatchDml(_Sql):
    request_type = ExecuteBatchDmlRequest


class _SchemaChange(_Call):
    def finish(self, request, code: grpc.StatusCode) -> None:
        pass

    def end(self, code: grpc.StatusCode) -> None:
        from google.cloud.spanner_admin_database_v1.types import UpdateDatabaseDdlRequest

        if self.requests:
            self.tap.schemas.forget(UpdateDatabaseDdlRequest.pb().FromString(self.requests[0]).database)


_CALLS: dict[str, type[_Call]] = {"Commit": _Commit, "Read": _Read, "StreamingRead": _Read, "ExecuteSql": _Sql,
                                  "ExecuteStreamingSql": _Sql, "ExecuteBatchDml": _BatchDml}


class SpannerTap:
    """The tap a proxy in front of the Spanner emulator shows its calls to."""

    def __init__(self, recorder: Recorder, schemas: SchemaCache):
        self.recorder, self.schemas = recorder, schemas

    def call(self, method: str) -> _Call | None:
        if method == SCHEMA_CHANGE:
            return _SchemaChange(self, method)
        kind = _CALLS.get(method[len(SERVICE):]) if method.startswith(SERVICE) else None
        if kind is None:
            self.recorder.other(method)
            return None
        return kind(self, method)
