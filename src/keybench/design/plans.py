"""Read plans: how each named read is served by a key design, derived from its key parts.

A read is served as a key range when the parts in front of the bound part can be known:
fixed by the request (the user or device), computed from it (a device type), or
enumerated (N shard or salt buckets, one range each: the read's fan-out). Otherwise the
only way is a full scan with a filter, and the plan says so rather than pretending.

Spans are prefix-closed: `Span(lo, hi)` covers every key whose leading parts lie between
the tuples `lo` and `hi` inclusive, the meaning of Spanner's KeyRange(start_closed,
end_closed); the Bigtable backend turns them into row-key ranges.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from keybench.design.events import BUCKET, DERIVED, ENTITY, NUMBER, TIME, WriteEvent
from keybench.design.keys import Part

POINT, PREFIX, MULTI_PREFIX, RANGE, MULTI_RANGE, FULL_SCAN, WRITE = (
    "point", "prefix", "multi_prefix", "range", "multi_range", "full_scan", "write",
)
# The shape of each read, the same for every design (the workload's defaults).
DEFAULT_LATEST_N = 10  # rows a latest_n read returns
DEFAULT_WINDOW_S = 2.0  # a time_window read covers the last this many seconds
DEFAULT_NUMBER_SPAN = 100  # a number_range read covers this many consecutive insert numbers
# Entity reads kept built, per plan: a user's or device's request is the same every time, and
# building it costs a read about as much as checking its answer. Requests are immutable.
ENTITY_REQUESTS_CACHED = 4096

READ_OPERATIONS = {
    "spanner": ("point_read", "latest_n", "time_window"),
    "bigtable": ("point_read", "latest_n", "prefix_scan", "time_window", "number_range"),
}


class StoredRow(NamedTuple):
    """A row as a read returns it, whatever the key design. A named tuple: made once per row
    every read returns and per row written, it costs half what a frozen dataclass does."""

    entity: int
    ts_us: int
    write_id: str
    seq: int = 0  # the insert number, where the backend stores it


class Span(NamedTuple):
    """Every key whose leading parts lie between `lo` and `hi`, inclusive (see the module).
    A named tuple: hashed with every read (the backends keep requests by their spans)."""

    lo: tuple
    hi: tuple


class ReadRequest(NamedTuple):
    """What to ask the database, and how to turn its rows into the answer. A named tuple:
    one is made for every point read of the load, and it is immutable (entity plans keep
    theirs built) at about a third of a frozen dataclass's cost to make."""

    spans: tuple[Span, ...] | None  # None: the whole table, filtered here by `wanted`
    wanted: Callable[[StoredRow], bool]  # which rows belong to the answer
    limit: int | None = None  # rows per span the database may stop at
    newest: int | None = None  # answer = the newest N wanted rows
    where: tuple[str, int, int] | None = None  # full scans: (field, lo, hi) a server-side filter may apply
    in_range: Callable[[StoredRow], bool] | None = None  # what the spans may return, if more than `wanted`
    # Spanner: the spans are over this secondary index's key (the field hides tuple.index,
    # which no caller uses on a ReadRequest)
    index: str | None = None  # type: ignore[assignment]
    join: bool = False  # the index lacks columns: read them back from the table by primary key
    parent: bool = False  # Spanner, interleaved: read the entity's parent row too

    def answer(self, rows: list[StoredRow]) -> tuple[list[StoredRow], int]:
        """The answer, and how many returned rows the spans should never have returned."""
        strays = 0
        if self.spans is not None and self.in_range is not None:
            in_range = self.in_range
            strays = sum(1 for r in rows if not in_range(r))
        answer = [r for r in rows if self.wanted(r)]
        if self.spans is not None and self.in_range is None:  # what the spans may return is what is wanted
            strays = len(rows) - len(answer)
        rows = answer
        if self.newest is not None:
            rows = sorted(rows, key=lambda r: r.ts_us, reverse=True)[: self.newest]
        return rows, strays


@dataclass(frozen=True)
class ReadPlan:
    operation: str
    access: str  # POINT, PREFIX, MULTI_PREFIX, RANGE, MULTI_RANGE or FULL_SCAN
    fanout: int  # key ranges one request covers (1 for a full scan)
    build: Callable[..., ReadRequest]
    stops_early: bool = False  # the database can stop after the rows the answer needs

    def better_than(self, other: ReadPlan) -> bool:
        if other.access == FULL_SCAN:
            return self.access != FULL_SCAN
        return self.access != FULL_SCAN and self.stops_early and not other.stops_early


_NO_RNG = random.Random(0)  # TIME, ENTITY and DERIVED parts never draw from it


def _value(part: Part, entity: int = 0, ts_us: int = 0, seq: int = 0):
    """A bound or prefix value: a nullable part's value as set (a NULL bounds no range)."""
    return part.value_when_set(WriteEvent(entity, ts_us, "", seq), _NO_RNG)


def _leading(parts: tuple[Part, ...], stop_role: str, entity_known: bool) -> list[list] | None:
    """Choices for each part in front of the first `stop_role` part, or None if one is unknowable.

    Each choice is a list of callables entity -> value, so DERIVED parts stay lazy.
    """
    choices: list[list] = []
    for part in parts:
        if part.role == stop_role:
            return choices
        if part.role == BUCKET:
            choices.append([lambda e, v=v: v for v in part.buckets])
        elif part.role == DERIVED and entity_known:
            choices.append([lambda e, p=part: p.of_entity(e)])
        else:
            return None
    return None


def _index(parts: tuple[Part, ...], role: str) -> int | None:
    return next((i for i, p in enumerate(parts) if p.role == role), None)


def point_plan(parts: tuple[Part, ...]) -> ReadPlan:
    def build(key: tuple, row: StoredRow) -> ReadRequest:
        # A row rewritten in place holds the entity's other readings as older versions.
        return ReadRequest((Span(key, key),), wanted=lambda r: r.write_id == row.write_id,
                           in_range=lambda r: r.entity == row.entity)

    return ReadPlan("point_read", POINT, 1, build)


def entity_plan(operation: str, parts: tuple[Part, ...], newest: int | None) -> ReadPlan:
    """All rows of one user or device (`prefix_scan`), or its newest N (`latest_n`)."""
    leading = _leading(parts, ENTITY, entity_known=True)
    if leading is None:
        def scan(entity: int) -> ReadRequest:
            return ReadRequest(None, wanted=lambda r: r.entity == entity, newest=newest,
                               where=("entity", entity, entity))

        return ReadPlan(operation, FULL_SCAN, 1, scan)
    at = _index(parts, ENTITY)
    assert at is not None  # _leading found the entity's part
    after = parts[at + 1] if at + 1 < len(parts) else None
    # Newest-first storage (a DESC time part right after the entity) lets the database stop at N.
    limit = newest if (newest is not None and after is not None and after.role == TIME and after.descending) else None
    combos = list(itertools.product(*leading))

    @functools.lru_cache(maxsize=ENTITY_REQUESTS_CACHED)
    def build(entity: int) -> ReadRequest:
        spans = []
        for combo in combos:
            prefix = tuple(c(entity) for c in combo) + (_value(parts[at], entity=entity),)
            spans.append(Span(prefix, prefix))
        return ReadRequest(tuple(spans), wanted=lambda r: r.entity == entity, limit=limit, newest=newest)

    return ReadPlan(operation, PREFIX if len(combos) == 1 else MULTI_PREFIX, len(combos), build, limit is not None)


def bounded_plan(operation: str, role: str, parts: tuple[Part, ...]) -> ReadPlan:
    """Every row whose time (TIME) or insert number (NUMBER) lies in [lo, hi], across entities."""
    field = "ts_us" if role == TIME else "seq"

    def wanted(lo: int, hi: int):
        return lambda r: lo <= getattr(r, field) <= hi

    leading = _leading(parts, role, entity_known=False)
    if leading is None:
        def scan(lo: int, hi: int) -> ReadRequest:
            return ReadRequest(None, wanted=wanted(lo, hi), where=(field, lo, hi))

        return ReadPlan(operation, FULL_SCAN, 1, scan)
    at = _index(parts, role)
    assert at is not None  # _leading found the part of `role`
    # The leading parts are buckets (no entity is known): the same prefixes for every read.
    prefixes = [tuple(c(0) for c in combo) for combo in itertools.product(*leading)]
    descending = parts[at].descending

    def build(lo: int, hi: int) -> ReadRequest:
        first, last = (_value(parts[at], **{field: v}) for v in (lo, hi))
        if descending:
            first, last = last, first
        spans = [Span(prefix + (first,), prefix + (last,)) for prefix in prefixes]
        length = parts[at].interval_us
        if length:  # an interval part: the spans hold the whole intervals that lo and hi fall in
            return ReadRequest(tuple(spans), wanted=wanted(lo, hi),
                               in_range=wanted(lo - lo % length, hi - hi % length + length - 1))
        return ReadRequest(tuple(spans), wanted=wanted(lo, hi))

    return ReadPlan(operation, RANGE if len(prefixes) == 1 else MULTI_RANGE, len(prefixes), build)


def _plans_for(backend: str, parts: tuple[Part, ...], latest_n: int) -> dict[str, ReadPlan]:
    plans = {
        "point_read": point_plan(parts),
        "latest_n": entity_plan("latest_n", parts, newest=latest_n),
        "prefix_scan": entity_plan("prefix_scan", parts, newest=None),
        "time_window": bounded_plan("time_window", TIME, parts),
        "number_range": bounded_plan("number_range", NUMBER, parts),
    }
    return {op: plans[op] for op in READ_OPERATIONS[backend]}


def _through_index(plan: ReadPlan, index, join: bool) -> ReadPlan:
    def build(*args) -> ReadRequest:
        return plan.build(*args)._replace(index=index.name, join=join)

    return ReadPlan(plan.operation, f"index_{plan.access}" + ("+join" if join else ""), plan.fanout, build,
                    plan.stops_early)


def read_plans(backend: str, parts: tuple[Part, ...], latest_n: int, indexes=(), table_columns=()) -> dict[str,
                                                                                                           ReadPlan]:
    """The read plan of every read operation of a backend for one key design: through the
    table key where it can serve the read, else through a secondary index that can, else a
    full scan. An index read joins back to the table when the index does not hold every
    column a row needs (`table_columns`: those the index cannot supply from its key)."""
    plans = _plans_for(backend, parts, latest_n)
    key_columns = {p.column for p in parts}
    for index in indexes:
        held = key_columns | {p.column for p in index.parts} | set(index.stores)
        join = not set(table_columns) <= held
        for op, plan in _plans_for(backend, index.parts, latest_n).items():
            if op != "point_read" and plan.better_than(plans[op]):
                plans[op] = _through_index(plan, index, join)
    return plans


def row_columns(strategy) -> tuple[str, ...]:
    """What a Spanner read needs to make a StoredRow: the user, the write's time, the WriteId."""
    return (strategy.user_column, strategy.time_column, strategy.write_id_column)


def _with_parent(plan: ReadPlan) -> ReadPlan:
    """The newest rows of a user read together with the user's row, the parent they are
    interleaved in: the read that makes a DESC time key worth it ("Spanner: Schema design best
    practices", "Use descending order for timestamp-based keys")."""
    def build(*args) -> ReadRequest:
        return plan.build(*args)._replace(parent=True)

    return ReadPlan(plan.operation, f"{plan.access}+parent", plan.fanout, build, plan.stops_early)


def strategy_plans(strategy, latest_n: int) -> dict[str, ReadPlan]:
    plans = read_plans(strategy.backend, strategy.parts, latest_n, strategy.indexes, row_columns(strategy))
    if getattr(strategy, "parent_table", None):
        plans["latest_n"] = _with_parent(plans["latest_n"])
    return plans
