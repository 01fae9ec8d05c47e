"""Cloud Bigtable binding: the admin client for tables and GC rules, the data client
(`google.cloud.bigtable.data`) for reads and batches, and its channel for single-row writes
(see MutateRowCall)."""

from __future__ import annotations

import atexit
import datetime as dt
import functools
import os
import random
import time
import warnings
from collections.abc import Callable
from typing import TypeVar

import grpc
from google.api_core import exceptions as gexc
from google.api_core.gapic_v1 import routing_header
from google.cloud import bigtable
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import BigtableDataClient, RowMutationEntry, SetCell
from google.cloud.bigtable.data._sync_autogen._swappable_channel import SwappableChannel
from google.cloud.bigtable.data.row_filters import (
    ColumnQualifierRegexFilter,
    ColumnRangeFilter,
    ConditionalRowFilter,
    RowFilterChain,
    RowFilterUnion,
    ValueRangeFilter,
)
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from google.cloud.bigtable_v2.types import data as data_types

from keybench.backends.base import (
    AUDIT_READ_TIMEOUT_S,
    DEFAULT_PAYLOAD_BYTES,
    DEFAULT_TIMEOUT_S,
    Backend,
)
from keybench.children import PlainProcess
from keybench.design.byteorder import bigtable_row_range
from keybench.design.events import WriteEvent
from keybench.design.keys import join_segments
from keybench.design.plans import Span, StoredRow
from keybench.design.strategies import Strategy
from keybench.errors import KeybenchError

T = TypeVar("T")
# The variable the clients find the emulator by (the same as keybench.infra.emulators.ENV_VARS).
EMULATOR_HOST = "BIGTABLE_EMULATOR_HOST"
RowSet, RowRange = data_types.RowSet.pb(), data_types.RowRange.pb()
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
# Requests kept built per backend, by the spans they read: a user's or device's read asks the
# same every time, and building its messages costs more of the client's CPU than checking
# the answer. Full scans (a time window, a number range) differ each time and are not kept.
SPAN_REQUESTS_CACHED = 4096
# Reads fetch the three cells a StoredRow needs, not the payload.
READ_CELLS = ColumnQualifierRegexFilter(b"^[utwn]$")
# Cells that hold a row's fields, fixed-width so that text order is number order for
# server-side range filters: entity, time (16-digit microseconds), insert number.
FIELD_CELLS = {"entity": (b"u", 10), "ts_us": (b"t", 16), "seq": (b"n", 12)}
# Both clients warn "Connecting to Bigtable emulator at ..." on every construction.
warnings.filterwarnings("ignore", message="Connecting to Bigtable emulator", category=RuntimeWarning)


def gc_rule(spec: dict):
    """A GC rule object from a fixture's declaration (validated when the fixture loads)."""
    (kind, value), = spec.items()
    if kind == "max_versions":
        return column_family.MaxVersionsGCRule(value)
    if kind == "max_age":
        return column_family.MaxAgeGCRule(dt.timedelta(**{_UNITS[value[-1]]: int(value[:-1])}))
    rules = [gc_rule(s) for s in value]
    return column_family.GCRuleUnion(rules) if kind == "union" else column_family.GCRuleIntersection(rules)


def _fixed(field: str, value: int) -> bytes:
    return f"{value:0{FIELD_CELLS[field][1]}d}".encode()


class _RawRpc:
    """One Bigtable RPC with plain protobuf messages, on the data client's own channel.

    The data client's own calls cost the client far more CPU than the RPC itself: they build
    proto-plus messages and run retry and operation metrics layers around it
    (benchmarks/bigtable_client_choice.py; under gevent `mutate_row` costs about 1.8 times
    the CPU of MutateRowCall). A load test on a few cores shares them with the database, so
    that CPU caps the rate it can drive.

    What it keeps of the data client's calls: the channel (endpoint, credentials, channel
    refresh), the request's app profile and the routing header built as the generated client
    builds it, a per-attempt timeout within one overall deadline, retries of
    DEADLINE_EXCEEDED and UNAVAILABLE with jittered exponential backoff, and
    `DeadlineExceeded` once the deadline has passed. Other errors are raised as
    google.api_core exceptions, as the data client raises them. Not kept: the client-side
    metrics and the `x-goog-api-client` header."""

    METHOD: str
    STREAMING = False
    RETRYABLE = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
    FIRST_BACKOFF_S, MAX_BACKOFF_S = 0.01, 1.0
    Request: type
    Response: type

    def __init__(self, table, timeout_s: float):
        """`table`: a data client Table (`BigtableDataClient.get_table`)."""
        self.channel = table.client.transport.grpc_channel
        self.table_name, self.app_profile_id = table.table_name, table.app_profile_id or ""
        self.timeout_s = timeout_s
        self.attempt_timeout_s = min(table.default_attempt_timeout or timeout_s, timeout_s)
        self.metadata = (routing_header.to_grpc_metadata(
            {"table_name": self.table_name, "app_profile_id": self.app_profile_id}),)
        self._bound_to = self._rpc = None

    def _current_rpc(self):
        # The data client swaps the channel inside its SwappableChannel every 35-45 minutes
        # (real instances), and closes the old one later: follow it.
        current = self.channel._channel if isinstance(self.channel, SwappableChannel) else self.channel
        if current is not self._bound_to:
            kind = current.unary_stream if self.STREAMING else current.unary_unary
            self._rpc = kind(self.METHOD, request_serializer=self.Request.SerializeToString,
                             response_deserializer=self.Response.FromString)
            self._bound_to = current
        return self._rpc

    def _with_retries(self, attempt: Callable[[Callable, float], T]) -> T:
        """`attempt(rpc, timeout_s)` until it returns, retrying what RETRYABLE names within the deadline."""
        deadline = time.monotonic() + self.timeout_s
        backoff = self.FIRST_BACKOFF_S
        while True:
            left = deadline - time.monotonic()
            try:
                return attempt(self._current_rpc(), max(min(left, self.attempt_timeout_s), 0.001))
            except grpc.RpcError as exc:
                if exc.code() not in self.RETRYABLE:
                    raise gexc.from_grpc_error(exc) from None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise gexc.DeadlineExceeded(
                        f"operation_timeout of {self.timeout_s:.1f}s exceeded; last attempt: "
                        f"{exc.code().name} {exc.details()}") from None
            # A pause cut short by the deadline still leaves a last attempt: the call gives up
            # at its deadline, not before it.
            time.sleep(min(random.uniform(0, backoff), left))
            backoff = min(backoff * 2, self.MAX_BACKOFF_S)


class MutateRowCall(_RawRpc):
    """Bigtable's MutateRow RPC (see _RawRpc): keybench's single-row write."""

    METHOD = "/google.bigtable.v2.Bigtable/MutateRow"
    Request = bigtable_types.MutateRowRequest.pb()
    Response = bigtable_types.MutateRowResponse.pb()

    def __call__(self, row_key: bytes, family: str, cells: list[tuple[bytes, bytes]], timestamp_us: int) -> None:
        if timestamp_us < 0:  # a server-assigned time would make a retry store a second version
            raise ValueError("MutateRowCall writes need an explicit cell time, which makes them safe to retry")
        request = self.Request(table_name=self.table_name, row_key=row_key, app_profile_id=self.app_profile_id)
        for qualifier, value in cells:
            cell = request.mutations.add().set_cell
            cell.family_name, cell.column_qualifier, cell.value = family, qualifier, value
            cell.timestamp_micros = timestamp_us
        self._with_retries(lambda rpc, timeout: rpc(request, timeout=timeout, metadata=self.metadata))


class ReadRowsCall(_RawRpc):
    """Bigtable's ReadRows RPC (see _RawRpc): keybench's reads. The rows come back as
    (row key, {qualifier: [cell values, newest first]}) of one column family, merged from the
    response chunks as the data client merges them (split cell values, reset rows). A retried
    stream resumes after the last complete row, with the row limit reduced by the rows already
    read, as the data client's does. Reads in reverse order are not supported."""

    METHOD = "/google.bigtable.v2.Bigtable/ReadRows"
    STREAMING = True
    Request = bigtable_types.ReadRowsRequest.pb()
    Response = bigtable_types.ReadRowsResponse.pb()

    def request(self, rows=None, row_filter=None, limit: int | None = None):
        """A request for this call's table: `rows` a RowSet message (None: the whole table),
        `row_filter` a RowFilter message."""
        request = self.Request(table_name=self.table_name, app_profile_id=self.app_profile_id,
                               rows_limit=limit or 0)
        if rows is not None:
            request.rows.CopyFrom(rows)
        if row_filter is not None:
            request.filter.CopyFrom(row_filter)
        return request

    def __call__(self, request, family: str) -> list[tuple[bytes, dict[bytes, list[bytes]]]]:
        if request.reversed:
            raise ValueError("ReadRowsCall reads in key order only")
        rows: list[tuple[bytes, dict[bytes, list[bytes]]]] = []

        def attempt(rpc, timeout):
            resumed = request if not rows else _resumed(request, rows[-1][0], len(rows))
            if resumed is not None:
                _merge_rows(rpc(resumed, timeout=timeout, metadata=self.metadata), family, rows)
            return rows

        return self._with_retries(attempt)


def _merge_rows(responses, family: str, rows: list) -> None:
    """Append each complete row of a ReadRows stream to `rows`: a row's cells only count
    once its commit_row chunk arrived."""
    key, cells, in_family, qualifier, parts = b"", {}, False, b"", []
    for response in responses:
        for chunk in response.chunks:
            if chunk.reset_row:
                key, cells, parts = b"", {}, []
                continue
            if chunk.row_key:
                key = chunk.row_key
            if chunk.HasField("family_name"):
                in_family = chunk.family_name.value == family
            if chunk.HasField("qualifier"):
                qualifier = chunk.qualifier.value
            if chunk.value_size:  # a value split over several chunks: this is not its last
                parts.append(chunk.value)
            else:
                if in_family:
                    value = b"".join((*parts, chunk.value)) if parts else chunk.value
                    cells.setdefault(qualifier, []).append(value)
                parts = []
            if chunk.commit_row:
                rows.append((key, cells))
                key, cells = b"", {}


def _resumed(request, last_key: bytes, received: int):
    """The request for the rows after `last_key`, `received` rows having come back; None when
    nothing is left to read."""
    resumed = type(request)()
    resumed.CopyFrom(request)
    if request.rows_limit:
        if request.rows_limit <= received:
            return None
        resumed.rows_limit = request.rows_limit - received
    resumed.ClearField("rows")
    wanted = request.rows
    if not wanted.row_keys and not wanted.row_ranges:  # the whole table
        resumed.rows.row_ranges.add(start_key_open=last_key)
        return resumed
    resumed.rows.row_keys.extend(k for k in wanted.row_keys if k > last_key)
    for old in wanted.row_ranges:
        end = old.WhichOneof("end_key")
        if end is not None and getattr(old, end) <= last_key:
            continue  # wholly read
        new = resumed.rows.row_ranges.add()
        new.CopyFrom(old)
        start = old.WhichOneof("start_key")
        if start is None or getattr(old, start) <= last_key:
            new.start_key_open = last_key
    return resumed if resumed.rows.row_keys or resumed.rows.row_ranges else None


def _filter_message(row_filter):
    """A data client row filter as the plain RowFilter message a ReadRowsCall sends."""
    return data_types.RowFilter.pb(row_filter._to_pb())


READ_CELLS_MESSAGE = _filter_message(READ_CELLS)


def scan_filter(where: tuple[str, int, int] | None):
    """A full scan filtered on the server: only rows whose field cell lies in [lo, hi] come
    back. The server still reads every row; the client no longer parses them all."""
    if where is None:
        return READ_CELLS
    field, lo, hi = where
    qualifier = FIELD_CELLS[field][0]
    in_range = RowFilterChain([
        ColumnQualifierRegexFilter(b"^" + qualifier + b"$"),
        ValueRangeFilter(_fixed(field, lo), _fixed(field, hi), inclusive_start=True, inclusive_end=True),
    ])
    return ConditionalRowFilter(in_range, true_filter=READ_CELLS)


class BigtableBackend(Backend):
    name = "bigtable"
    # MutateRowCall and ReadRowsCall give each attempt a gRPC deadline within `timeout_s`, and
    # the data client's batches have `timeout_s` as their operation timeout.
    enforces_deadline = True

    def __init__(
        self, strategy: Strategy, location: str, project: str, instance: str,
        payload_bytes: int = DEFAULT_PAYLOAD_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
    ):
        super().__init__(strategy, location, project, instance, payload_bytes)
        self.family = next(iter(strategy.column_families))
        self.nparts = len(strategy.parts)
        self.payload_value = self.payload.encode()
        self.payload_qualifier = strategy.payload_qualifier.encode()
        self.admin = bigtable.Client(project=project, admin=True)
        self.data = BigtableDataClient(project=project)
        self.emulator_host = os.environ.get(EMULATOR_HOST)  # the clients' emulator (None: a real instance)
        # One table, or one per tenant (`table_per = "tenant"`): the key's first part then names
        # the table, `<location>-<tenant>`, and the row key is made of the other parts.
        self.per_tenant = strategy.table_per_tenant
        self.row_parts = strategy.parts[1:] if self.per_tenant else strategy.parts
        tenants = strategy.parts[0].buckets if self.per_tenant else (None,)
        table_ids = {t: location if t is None else f"{location}-{t}" for t in tenants}
        self.admin_tables = {t: self.admin.instance(instance).table(i) for t, i in table_ids.items()}
        # One deadline for every call: an operation still unanswered then has an unknown outcome,
        # which the audit settles by reading back.
        self.timeout_s = timeout_s
        timeouts = {f"default_{kind}operation_timeout": timeout_s for kind in ("", "read_rows_", "mutate_rows_")}
        self.tables = {t: self.data.get_table(instance, i, **timeouts) for t, i in table_ids.items()}
        self.write_rows = {t: MutateRowCall(table, timeout_s) for t, table in self.tables.items()}
        self.read_rows = {t: ReadRowsCall(table, timeout_s) for t, table in self.tables.items()}
        self.admin_table, self.table = next(iter(self.admin_tables.values())), next(iter(self.tables.values()))
        self._span_requests = functools.lru_cache(maxsize=SPAN_REQUESTS_CACHED)(self._requests_of_spans)

    def create(self) -> None:
        families = {
            name: gc_rule(spec.get("gc", {"max_versions": 1}))
            for name, spec in self.strategy.column_families.items()
        }
        created = []
        try:
            for admin_table in self.admin_tables.values():
                admin_table.create(column_families=families)
                created.append(admin_table)
        except gexc.GoogleAPICallError as exc:
            for admin_table in created:  # a table per tenant: none left behind when one is refused
                admin_table.delete()
            raise KeybenchError(
                f"schema fixture {self.strategy.directory / 'table.toml'} was refused by Bigtable: {exc.message}"
            ) from None

    def drop(self) -> None:
        for admin_table in self.admin_tables.values():
            try:
                admin_table.delete()
            except gexc.NotFound:
                pass

    def _tenant(self, values: tuple):
        """The table a key (or key prefix) lives in: its tenant, or None for the one table."""
        return values[0] if self.per_tenant else None

    def row_key(self, values: tuple, open_end: bool = False) -> bytes:
        """The row key of a key's values (a table per tenant: without the tenant, which names the table)."""
        if self.per_tenant:
            values = values[1:]
        return join_segments(self.row_parts, values, self.strategy.separator, open_end)

    def _cell_values(self, event: WriteEvent) -> list[tuple[bytes, bytes]]:
        return [
            (b"u", _fixed("entity", event.entity)),
            (b"t", _fixed("ts_us", event.ts_us)),
            (b"n", _fixed("seq", event.seq)),
            (b"w", event.write_id.encode()),
            (self.payload_qualifier, self.payload_value),
        ]

    @staticmethod
    def _cell_time(event: WriteEvent) -> int:
        # Explicit cell times at the millisecond granularity Bigtable requires. The workload's
        # clock never gives one device two writes in the same millisecond, so a design that
        # rewrites one row keeps every reading as its own version.
        return event.ts_us // 1000 * 1000

    def _cells(self, event: WriteEvent) -> list[SetCell]:
        at = self._cell_time(event)
        return [SetCell(self.family, q, v, at) for q, v in self._cell_values(event)]

    def insert(self, key: tuple, event: WriteEvent) -> tuple:
        self.write_rows[self._tenant(key)](self.row_key(key), self.family, self._cell_values(event),
                                           self._cell_time(event))
        return key

    def insert_batch(self, rows: list[tuple[tuple, WriteEvent]]) -> list[tuple]:
        """One `bulk_mutate_rows` call per table. Rows are applied one by one: when some fail, the
        exception says which, and the stage leaves all of them to the audit's read-back."""
        by_table: dict = {}
        for k, e in rows:
            by_table.setdefault(self._tenant(k), []).append(RowMutationEntry(self.row_key(k), self._cells(e)))
        for tenant, entries in by_table.items():
            self.tables[tenant].bulk_mutate_rows(entries)
        return [k for k, _ in rows]

    def _row_range(self, span: Span):
        """The RowRange message of a span; None when it is empty because its ends are inverted
        (unpadded numbers: "95" sorts after "105"). The bounds are byteorder's, which the
        split model uses too."""
        if self.per_tenant:
            span = Span(span.lo[1:], span.hi[1:])
            if not span.lo and not span.hi:
                return RowRange()  # the tenant's whole table
        bounds = bigtable_row_range(self.row_parts, self.strategy.separator, span)
        if bounds is None:
            return None
        start, end, inclusive = bounds
        if not end:
            return RowRange(start_key_closed=start)
        return RowRange(start_key_closed=start, end_key_closed=end) if inclusive else \
            RowRange(start_key_closed=start, end_key_open=end)

    def _request(self, reader: ReadRowsCall, spans: tuple[Span, ...] | None, limit: int | None, where=None):
        if spans is None:
            return reader.request(None, READ_CELLS_MESSAGE if where is None else _filter_message(scan_filter(where)),
                                  limit)
        if all(s.lo == s.hi and len(s.lo) == self.nparts for s in spans):
            return reader.request(RowSet(row_keys=[self.row_key(s.lo) for s in spans]), READ_CELLS_MESSAGE, limit)
        ranges = [r for r in (self._row_range(s) for s in spans) if r is not None]
        return reader.request(RowSet(row_ranges=ranges), READ_CELLS_MESSAGE, limit) if ranges else None

    def _requests(self, spans: tuple[Span, ...] | None, limit: int | None, where=None) -> tuple:
        """(reader, request) pairs: a full scan reads every table; spans go to their tenant's table."""
        if spans is None:
            return tuple((reader, self._request(reader, None, limit, where)) for reader in self.read_rows.values())
        return self._span_requests(spans, limit)

    def _requests_of_spans(self, spans: tuple[Span, ...], limit: int | None) -> tuple:
        if not self.per_tenant:
            reader = self.read_rows[None]
            return ((reader, self._request(reader, spans, limit)),)
        by_tenant: dict = {}
        for span in spans:
            if not span.lo or span.hi[:1] != span.lo[:1]:
                raise ValueError("a table per tenant reads spans within one tenant only")
            by_tenant.setdefault(span.lo[0], []).append(span)
        return tuple((self.read_rows[t], self._request(self.read_rows[t], tuple(group), limit))
                     for t, group in by_tenant.items())

    def read(self, spans: tuple[Span, ...] | None, limit: int | None = None, where=None, index=None,
             join=False, parent=False) -> list[StoredRow]:
        out = []
        append = out.append
        for reader, request in self._requests(spans, limit, where):
            if request is None:
                continue
            for _, cells in reader(request, self.family):
                try:  # the common row: one version of each field cell
                    (u,), (t,), (w,), (n,) = cells[b"u"], cells[b"t"], cells[b"w"], cells[b"n"]
                except (KeyError, ValueError):
                    # A row rewritten in place (single_row_counter) holds one reading per version.
                    for u, t, w, n in zip(cells.get(b"u", ()), cells.get(b"t", ()), cells.get(b"w", ()),
                                          cells.get(b"n", ())):
                        append(StoredRow(int(u), int(t), w.decode(), int(n)))
                else:
                    append(StoredRow(int(u), int(t), w.decode(), int(n)))
        return out

    def delete_prefix(self, values: tuple) -> None:
        if self.per_tenant and len(values) == 1:
            self.admin_tables[values[0]].truncate()  # the tenant's own table: all its rows
            return
        self.admin_tables[self._tenant(values)].drop_by_prefix(self.row_key(values, open_end=True))

    def answers(self, timeout_s: float) -> bool:
        self.table.read_row(b"\x00keybench-liveness-probe", operation_timeout=timeout_s, attempt_timeout=timeout_s)
        return True  # no row, but an answer

    def write_ids(self) -> list[str]:
        return [w.decode() for (w,) in self._read_back((b"w",))]

    def stored_entities(self) -> list[tuple[str, int]]:
        return [(w.decode(), int(u)) for w, u in self._read_back((b"w", b"u"))]

    def _read_back(self, qualifiers: tuple[bytes, ...]) -> list[tuple[bytes, ...]]:
        """The cells of every stored row (version by version), read back through the data
        client in a process without gevent (see keybench.children): there it costs half the
        client CPU per row."""
        deadline = max(self.timeout_s, AUDIT_READ_TIMEOUT_S)
        return read_back_process().call(read_back, self.emulator_host, self.project, self.instance_id,
                                        [t.table_id for t in self.tables.values()], self.family, qualifiers, deadline)

    def close(self) -> None:
        self.data.close()


def read_back(emulator_host: str | None, project: str, instance: str, table_ids: list[str], family: str,
              qualifiers: tuple[bytes, ...], deadline: float) -> list[tuple[bytes, ...]]:
    """The values of `qualifiers` in every row the tables hold, one tuple per version (a row
    rewritten in place holds one per reading): the integrity audit's read-back. It runs in
    the read-back process (`read_back_process`), through ReadRowsCall, which there costs
    about two thirds of the data client's `read_rows` per row. A fault in merging the stream
    shows against the ledger as rows lost or duplicated: it cannot make a lost write look
    stored."""
    if emulator_host:
        os.environ[EMULATOR_HOST] = emulator_host
    else:
        os.environ.pop(EMULATOR_HOST, None)
    data = BigtableDataClient(project=project)
    # Each column by its exact name: the emulator matches a qualifier regex at about five
    # times the CPU per cell, and the audit runs while the model uses the other core.
    columns = [ColumnRangeFilter(family, q, q) for q in qualifiers]
    wanted = _filter_message(columns[0] if len(columns) == 1 else RowFilterUnion(columns))
    try:
        out = []
        for table_id in table_ids:
            reader = ReadRowsCall(data.get_table(instance, table_id), deadline)
            for _, cells in reader(reader.request(None, wanted), family):
                out.extend(zip(*(cells.get(q, ()) for q in qualifiers)))
        return out
    finally:
        data.close()


_read_back: PlainProcess | None = None


def read_back_process() -> PlainProcess:
    """This process's read-back process, started at the first audit and kept until exit (a new
    one if the last was cut off or died)."""
    global _read_back
    if _read_back is None or not _read_back.usable:
        _read_back = PlainProcess()
        atexit.register(_read_back.close)
    return _read_back
