"""Cloud Bigtable binding: the admin client for tables and GC rules, the data client
(`google.cloud.bigtable.data`) for rows, which the emulator measurements show to be the
faster of the two client APIs for single-row writes."""

from __future__ import annotations

import datetime as dt
import warnings

from google.api_core import exceptions as gexc
from google.cloud import bigtable
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import BigtableDataClient, ReadRowsQuery, RowRange, SetCell
from google.cloud.bigtable.data.row_filters import ColumnQualifierRegexFilter

from loadtests.backends.base import PAYLOAD, Backend
from loadtests.errors import KeybenchError
from loadtests.keys import Event
from loadtests.plans import Span, StoredRow
from loadtests.strategies import Strategy

_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
# Reads fetch the three cells a StoredRow needs, not the payload.
READ_CELLS = ColumnQualifierRegexFilter(b"^[utw]$")
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


def prefix_successor(prefix: bytes) -> bytes:
    """The smallest key greater than every key that starts with `prefix`."""
    stripped = prefix.rstrip(b"\xff")
    return stripped[:-1] + bytes([stripped[-1] + 1]) if stripped else b""


class BigtableBackend(Backend):
    name = "bigtable"

    def __init__(self, strategy: Strategy, location: str, project: str, instance: str):
        super().__init__(strategy, location)
        self.family = next(iter(strategy.column_families))
        self.separator = strategy.separator.encode()
        self.nparts = len(strategy.parts)
        self.admin = bigtable.Client(project=project, admin=True)
        self.data = BigtableDataClient(project=project)
        self.admin_table = self.admin.instance(instance).table(location)
        self.table = self.data.get_table(instance, location)

    def create(self) -> None:
        families = {
            name: gc_rule(spec.get("gc", {"max_versions": 1}))
            for name, spec in self.strategy.column_families.items()
        }
        try:
            self.admin_table.create(column_families=families)
        except gexc.GoogleAPICallError as exc:
            raise KeybenchError(
                f"schema fixture {self.strategy.directory / 'table.toml'} was refused by Bigtable: {exc.message}"
            ) from None

    def drop(self) -> None:
        try:
            self.admin_table.delete()
        except gexc.NotFound:
            pass

    def insert(self, key: tuple, event: Event) -> None:
        f = self.family
        self.table.mutate_row(
            self.separator.join(k.encode() for k in key),
            [
                SetCell(f, b"u", str(event.entity).encode()),
                SetCell(f, b"t", str(event.ts_us).encode()),
                SetCell(f, b"w", event.write_id.encode()),
                SetCell(f, b"p", PAYLOAD.encode()),
            ],
        )

    def _bound(self, parts: tuple) -> bytes:
        return self.separator.join(p.encode() for p in parts)

    def _row_range(self, span: Span) -> RowRange:
        start = self._bound(span.lo) + (self.separator if len(span.lo) < self.nparts else b"")
        if len(span.hi) < self.nparts:
            return RowRange(start_key=start, end_key=prefix_successor(self._bound(span.hi) + self.separator))
        return RowRange(start_key=start, end_key=self._bound(span.hi), end_is_inclusive=True)

    def _query(self, spans: tuple[Span, ...] | None, limit: int | None) -> ReadRowsQuery:
        if spans is None:
            return ReadRowsQuery(limit=limit, row_filter=READ_CELLS)
        if all(s.lo == s.hi and len(s.lo) == self.nparts for s in spans):
            return ReadRowsQuery(row_keys=[self._bound(s.lo) for s in spans], limit=limit, row_filter=READ_CELLS)
        return ReadRowsQuery(row_ranges=[self._row_range(s) for s in spans], limit=limit, row_filter=READ_CELLS)

    def read(self, spans: tuple[Span, ...] | None, limit: int | None = None) -> list[StoredRow]:
        out = []
        for row in self.table.read_rows(self._query(spans, limit)):
            cells = {c.qualifier: c.value for c in row.get_cells(self.family)}
            out.append(StoredRow(int(cells[b"u"]), int(cells[b"t"]), cells[b"w"].decode()))
        return out

    def write_ids(self) -> list[str]:
        ids = []
        for row in self.table.read_rows(ReadRowsQuery(row_filter=ColumnQualifierRegexFilter(b"^w$"))):
            ids.extend(c.value.decode() for c in row.get_cells(self.family, b"w"))
        return ids

    def close(self) -> None:
        self.data.close()
