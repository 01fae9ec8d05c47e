"""Cloud Bigtable binding: the admin client for tables and GC rules, the data client
(`google.cloud.bigtable.data`) for reads and batches, and its channel for single-row writes
(see MutateRowCall)."""

from __future__ import annotations

import datetime as dt
import functools
import os

from google.api_core import exceptions as gexc
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import RowMutationEntry, SetCell
from google.cloud.bigtable.data.mutations import Mutation
from google.cloud.bigtable.data.row_filters import (
    ColumnQualifierRegexFilter,
    ConditionalRowFilter,
    RowFilterChain,
    ValueRangeFilter,
)
from google.cloud.bigtable_v2.types import data as data_types

from keybench.backends.base import (
    AUDIT_READ_TIMEOUT_S,
    DEFAULT_PAYLOAD_BYTES,
    DEFAULT_TIMEOUT_S,
    Backend,
)
from keybench.backends.bigtable_calls import (
    EMULATOR_HOST,
    MutateRowCall,
    ReadRowsCall,
    admin_client,
    data_client,
    filter_message,
)
from keybench.backends.bigtable_readback import read_back, read_back_process
from keybench.backends.liveness import answered
from keybench.design.byteorder import bigtable_row_range
from keybench.design.events import WriteEvent
from keybench.design.keys import join_segments
from keybench.design.plans import Span, StoredRow
from keybench.design.strategies import Strategy
from keybench.errors import KeybenchError

RowSet, RowRange = data_types.RowSet.pb(), data_types.RowRange.pb()
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
# Requests kept built per backend, by the spans they read: a user's or device's read asks the
# same every time, and building its messages costs more of the client's CPU than checking
# the answer. Full scans (a time window, a number range) differ each time and are not kept.
SPAN_REQUESTS_CACHED = 4096
HOT_TABLETS_SETTLE_S = 60.0  # a minute's hot tablets are listed once the minute after it has passed
# Reads fetch the three cells a StoredRow needs, not the payload.
READ_CELLS = ColumnQualifierRegexFilter(b"^[utwn]$")
# Cells that hold a row's fields, fixed-width so that text order is number order for
# server-side range filters: entity, time (16-digit microseconds), insert number.
FIELD_CELLS = {"entity": (b"u", 10), "ts_us": (b"t", 16), "seq": (b"n", 12)}


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


READ_CELLS_MESSAGE = filter_message(READ_CELLS)


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
        payload_bytes: int = DEFAULT_PAYLOAD_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S, endpoint: str | None = None,
    ):
        super().__init__(strategy, location, project, instance, payload_bytes, endpoint)
        self.family = next(iter(strategy.column_families))
        self.nparts = len(strategy.parts)
        self.payload_value = self.payload.encode()
        self.payload_qualifier = strategy.payload_qualifier.encode()
        self.admin = admin_client(project, endpoint)
        self.data = data_client(project, endpoint)
        self.emulator_host = os.environ.get(EMULATOR_HOST)  # the clients' emulator (None: a real instance)
        # One table, or one per tenant (`table_per = "tenant"`): the key's first part then names
        # the table, `<location>-<tenant>`, and the row key is made of the other parts.
        self.per_tenant = strategy.table_per_tenant
        self.row_parts = strategy.parts[1:] if self.per_tenant else strategy.parts
        assert strategy.separator is not None  # every Bigtable strategy has one (default "#")
        self._separator: str = strategy.separator
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

    def statistics_until(self):
        # No table says how far the hot tablets reach; they are computed a minute at a time, so
        # a minute is taken as listed once the one after it has passed.
        return dt.datetime.now(dt.UTC) - dt.timedelta(seconds=HOT_TABLETS_SETTLE_S)

    def hot_ranges(self, start, end) -> list[tuple]:
        from keybench.backends.service_stats import bigtable_clusters, bigtable_hot_tablets

        mine = {t.table_id for t in self.admin_tables.values()}
        return [row for cluster in bigtable_clusters(self.project, self.instance_id, self.endpoint)
                for row in bigtable_hot_tablets(self.project, self.instance_id, cluster, start, end, self.endpoint)
                if row[0] in mine]

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
        return join_segments(self.row_parts, values, self._separator, open_end)

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

    def _cells(self, event: WriteEvent) -> list[Mutation]:
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
        bounds = bigtable_row_range(self.row_parts, self._separator, span)
        if bounds is None:
            return None
        start, end, inclusive = bounds
        if not end:
            return RowRange(start_key_closed=start)
        return RowRange(start_key_closed=start, end_key_closed=end) if inclusive else \
            RowRange(start_key_closed=start, end_key_open=end)

    def _request(self, reader: ReadRowsCall, spans: tuple[Span, ...] | None, limit: int | None, where=None):
        if spans is None:
            return reader.request(None, READ_CELLS_MESSAGE if where is None else filter_message(scan_filter(where)),
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
        out: list[StoredRow] = []
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
                                          cells.get(b"n", ()), strict=False):
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
        return answered(lambda: self.table.read_row(b"\x00keybench-liveness-probe", operation_timeout=timeout_s,
                                                    attempt_timeout=timeout_s))

    def write_ids(self) -> list[str]:
        return [w.decode() for (w,) in self._read_back((b"w",))]

    def stored_entities(self) -> list[tuple[str, int]]:
        return [(w.decode(), int(u)) for w, u in self._read_back((b"w", b"u"))]

    def _read_back(self, qualifiers: tuple[bytes, ...]) -> list[tuple[bytes, ...]]:
        """The cells of every stored row (version by version), read back through the data
        client in a process without gevent (see keybench.children): there it costs half the
        client CPU per row."""
        deadline = max(self.timeout_s, AUDIT_READ_TIMEOUT_S)
        return read_back_process().call(read_back, self.emulator_host, self.endpoint, self.project, self.instance_id,
                                        [t.table_id for t in self.tables.values()], self.family, qualifiers, deadline)

    def close(self) -> None:
        self.data.close()


