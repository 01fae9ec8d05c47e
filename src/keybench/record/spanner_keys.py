"""A Spanner database's key layouts, read from the database itself, and the key bytes of the
values a request carries.

The layouts come from `check`'s schema reader (INFORMATION_SCHEMA, through a client of the
emulator itself, not of the proxy): each table's primary key columns (type, ASC or DESC), its
split unit (an interleaved table splits only between root rows), and each index's key
columns with the primary key columns it appends. Values arrive as the API sends them
(google.protobuf.Value: INT64 and TIMESTAMP as strings, BYTES as base64) and are encoded in
the database's byte order (design/byteorder.py), as `keybench run` encodes its own keys.
"""

from __future__ import annotations

import base64
import datetime as dt
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from keybench.check.schema import Schema, Table
from keybench.design.byteorder import column_bytes, prefix_successor
from keybench.model.observed import typed_value
from keybench.record.spanner_fills import Fill, SequenceCounter, fills

COMMIT_TIMESTAMP = "spanner.commit_timestamp()"  # the placeholder a client writes for the commit time


@dataclass(frozen=True)
class KeyColumnType:
    name: str
    base_type: str  # INT64, STRING, TIMESTAMP, ...
    descending: bool


@dataclass(frozen=True)
class KeyLayout:
    """One key space: its columns in key order, and how many lead its split unit (None: the whole key)."""

    space: str  # "table", or the index's name
    columns: tuple[KeyColumnType, ...]
    unit_columns: int | None = None
    null_filtered: bool = False

    def key(self, values: dict[str, object]) -> tuple[bytes, int | None] | None:
        """(key bytes, split-unit length) of a row whose column values are `values`; None when
        a column is missing (a write that does not carry it), or NULL in a NULL_FILTERED index."""
        parts = []
        for column in self.columns:
            if column.name not in values:
                return None
            value = values[column.name]
            if value is None and self.null_filtered:
                return None
            parts.append(column_bytes(value, column.descending))
        unit = None if self.unit_columns is None else sum(len(p) for p in parts[:self.unit_columns])
        return b"".join(parts), unit

    def prefix(self, values: list[object]) -> bytes:
        """The bytes every key starting with `values` (its leading columns) begins with."""
        return b"".join(column_bytes(v, c.descending) for c, v in zip(self.columns, values, strict=False))

    def interval(self, start: list[object] | None, start_closed: bool, end: list[object] | None,
                 end_closed: bool) -> tuple[bytes, bytes]:
        """A KeyRange as [start, end) bytes; an empty end: to the end of the space."""
        low = b"" if start is None else self.prefix(start) if start_closed else prefix_successor(self.prefix(start))
        high = b"" if end is None else prefix_successor(self.prefix(end)) if end_closed else self.prefix(end)
        return low, high


@dataclass(frozen=True)
class TableLayouts:
    table_name: str  # as the schema writes it
    table: KeyLayout
    indexes: tuple[KeyLayout, ...]
    fills: dict[str, Fill] = field(default_factory=dict)  # key columns the database fills, by lower-case name
    source_types: dict[str, KeyColumnType] = field(default_factory=dict)  # the columns those fills read

    @property
    def spaces(self) -> tuple[KeyLayout, ...]:
        return (self.table, *self.indexes)

    @cached_property
    def key_columns(self) -> dict[str, KeyColumnType]:
        """Every key column of the table and its indexes, and every column a fill reads, by
        lower-case name: the values of a write that are kept."""
        return {**self.source_types, **{c.name.lower(): c for space in self.spaces for c in space.columns}}

    def space(self, index: str) -> KeyLayout | None:
        if not index:
            return self.table
        return next((i for i in self.indexes if i.space == index), None)


@dataclass(frozen=True)
class DatabaseKeys:
    """A database's key layouts: by table name (as the schema writes it, and in lower case, as
    DML may write it), and its dialect."""

    dialect: str
    tables: dict[str, TableLayouts]

    def table(self, name: str) -> TableLayouts | None:
        found = self.tables.get(name)
        if found is None:
            found = next((t for n, t in self.tables.items() if n.lower() == name.lower()), None)
        return found


def database_keys(schema: Schema, counter_of=None) -> DatabaseKeys:
    """The layouts of every table; `counter_of` gives a sequence's counter (spanner_fills.py),
    kept by the caller across schema reads (a new one per call when None)."""
    if counter_of is None:
        counter_of = _counters()
    out = {}
    for table in schema.tables:
        found = layouts(schema, table)
        wanted = {c.name.lower() for space in found.spaces for c in space.columns}
        filled = fills(schema, table, wanted, counter_of)
        types = {c.name: c.base_type for c in table.columns}
        sources = {s.lower(): KeyColumnType(s, types.get(s, "STRING"), False) for f in filled.values()
                   for s in f.sources}
        out[table.name] = TableLayouts(table.name, found.table, found.indexes, filled, sources)
    return DatabaseKeys(schema.dialect, out)


def _counters():
    """counter_of for one database: a sequence's counter by its name, made at its first use."""
    known: dict[str, SequenceCounter] = {}

    def counter_of(name: str, start: int, skip, reversed_bits: bool) -> SequenceCounter:
        return known.setdefault(name, SequenceCounter(start, skip, reversed_bits))

    return counter_of


def layouts(schema: Schema, table: Table) -> TableLayouts:
    """A table's key layouts: its own key and each index's."""
    tables = {t.name: t for t in schema.tables}

    def root_key_columns(name: str | None) -> int | None:
        """The key columns of the root of `name`'s interleaving; None: `name` is no interleaved child."""
        if name is None or tables.get(name) is None:
            return None
        root = tables[name]
        if root.parent is None:
            return None
        while root.parent is not None and root.parent in tables:
            root = tables[root.parent]
        return len(root.key)

    types = {c.name: c.base_type for c in table.columns}
    key = tuple(KeyColumnType(k.name, types.get(k.name, "STRING"), k.descending) for k in table.key)
    indexes = []
    for index in schema.indexes_of(table.name):
        own = tuple(KeyColumnType(k.name, types.get(k.name, "STRING"), k.descending) for k in index.key)
        named = {k.name for k in index.key}
        interleaved = index.interleaved_in
        unit = None
        if interleaved is not None and interleaved in tables:
            unit = root_key_columns(interleaved) or len(tables[interleaved].key)
        indexes.append(KeyLayout(index.name, own + tuple(k for k in key if k.name not in named), unit,
                                 index.null_filtered))
    return TableLayouts(table.name, KeyLayout("table", key, root_key_columns(table.name)), tuple(indexes))


def typed(value, base_type: str, commit_time: dt.datetime | None):
    """A google.protobuf.Value of a column of `base_type` as the Python value byteorder encodes."""
    kind = value.WhichOneof("kind")
    if kind == "null_value" or kind is None:
        return None
    if kind == "bool_value":
        return value.bool_value
    if kind == "number_value":
        return value.number_value
    if kind != "string_value":
        raise ValueError(f"a {kind} as a {base_type} key value")
    text = value.string_value
    if base_type == "BYTES":
        return base64.b64decode(text)
    if base_type == "TIMESTAMP" and text == COMMIT_TIMESTAMP:
        if commit_time is None:
            raise ValueError("a commit timestamp outside a commit")
        return commit_time
    if base_type not in _TYPED_AS_TEXT:
        return text  # STRING, and types keyed by their text (UUID)
    typed_text = typed_value(text, base_type)  # NaN and Infinity of a FLOAT64 come as strings too
    if typed_text is None:
        raise ValueError(f"{text[:40]!r} is no {base_type}")
    return typed_text


_TYPED_AS_TEXT = ("INT64", "TIMESTAMP", "DATE", "FLOAT64", "FLOAT32", "NUMERIC", "BOOL")


# A database whose schema could not be read is not asked again before this: every call of the
# application waits while the tap reads, and an emulator that keeps refusing would make each
# call wait out a read's whole deadline.
RETRY_SCHEMA_S = 5.0


class SchemaCache:
    """Each database's layouts, read once and again after a schema change passes the proxy; a
    read that failed is not tried again for RETRY_SCHEMA_S (its error is raised meanwhile)."""

    def __init__(self, read, clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read  # database path -> Schema
        self._clock = clock
        self._lock = threading.Lock()
        self._known: dict[str, DatabaseKeys] = {}
        self._failed: dict[str, tuple[float, Exception]] = {}  # database -> (when, why)
        # A database's sequences count on across a schema change, as the database's do.
        self._counters: dict[str, object] = {}

    def keys(self, database: str) -> DatabaseKeys:
        with self._lock:
            known = self._known.get(database)
            failed = self._failed.get(database)
            counter_of = self._counters.setdefault(database, _counters())
        if known is not None:
            return known
        if failed is not None and self._clock() - failed[0] < RETRY_SCHEMA_S:
            raise failed[1]
        try:
            known = database_keys(self._read(database), counter_of)
        except Exception as exc:
            with self._lock:
                self._failed[database] = (self._clock(), exc)
            raise
        with self._lock:
            self._known[database] = known
            self._failed.pop(database, None)
        return known

    def forget(self, database: str) -> None:
        with self._lock:
            self._known.pop(database, None)
            self._failed.pop(database, None)


def read_schema_of(emulator: str):
    """A reader of a database's schema on the emulator at `emulator` (HOST:PORT), straight to it
    on a connection of its own. Not through SPANNER_EMULATOR_HOST, which in a test process
    names the proxy: there the reads would be recorded as the application's, and a read on the
    connection whose call the tap is decoding would wait behind that call for ever."""
    from keybench.backends.spanner_admin import ADMIN_CALL_TIMEOUT_S, dialect_named
    from keybench.check.reader import schema_from

    def read(database: str) -> Schema:
        import grpc
        from google.cloud.spanner_admin_database_v1 import DatabaseAdminClient
        from google.cloud.spanner_admin_database_v1.services.database_admin.transports import (
            DatabaseAdminGrpcTransport,
        )
        from google.cloud.spanner_v1 import ExecuteSqlRequest, SpannerClient, TransactionOptions, TransactionSelector
        from google.cloud.spanner_v1.services.spanner.transports import SpannerGrpcTransport

        # A subchannel pool of its own: a new connection, never one an application's client shares.
        channel = grpc.insecure_channel(emulator, options=[("grpc.use_local_subchannel_pool", 1)])
        try:
            data = SpannerClient(transport=SpannerGrpcTransport(channel=channel))
            admin_api = DatabaseAdminClient(transport=DatabaseAdminGrpcTransport(channel=channel))
            session = data.create_session(database=database, timeout=ADMIN_CALL_TIMEOUT_S)
            strong = TransactionSelector(single_use=TransactionOptions(
                read_only=TransactionOptions.ReadOnly(strong=True)))

            def rows(sql: str) -> list[tuple]:
                result = data.execute_sql(request=ExecuteSqlRequest(session=session.name, sql=sql, transaction=strong),
                                          timeout=ADMIN_CALL_TIMEOUT_S)
                codes = [f.type_.code.name for f in result.metadata.row_type.fields]
                return [tuple(int(v) if v is not None and code == "INT64" else v
                              for v, code in zip(row, codes, strict=True)) for row in result.rows]

            try:
                found = admin_api.get_database(name=database, timeout=ADMIN_CALL_TIMEOUT_S)
                return schema_from(rows, lambda: list(admin_api.get_database_ddl(
                    database=database, timeout=ADMIN_CALL_TIMEOUT_S).statements),
                    dialect_named(found.database_dialect, rows))
            finally:
                data.delete_session(name=session.name, timeout=ADMIN_CALL_TIMEOUT_S)
        finally:
            channel.close()

    return read
