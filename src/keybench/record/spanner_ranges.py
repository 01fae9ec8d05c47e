"""The key ranges a Spanner read asks for, as intervals of its table's or index's key space:
a Read's key set, and a query's WHERE over the primary key (spanner_sql.query_keys) with its
literals and parameters encoded as their columns' types."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from google.protobuf.struct_pb2 import Value  # type: ignore[import-untyped]

from keybench.design.byteorder import FULL_SPACE, prefix_successor
from keybench.record.spanner_keys import KeyLayout, typed
from keybench.record.spanner_sql import Bound, ColumnCondition, Param


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


def zoned(text: str) -> str:
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
        return Value(string_value=zoned(value) if base_type == "TIMESTAMP" else value)
    raise ValueError(f"{value!r} fixes no {base_type} key")


def _query_bound(bound: Bound | None, base_type: str, params):
    if bound is None:
        return None
    value = _query_value(bound.value, base_type, params)
    return _UNKNOWN if value is _UNKNOWN else Bound(value, bound.inclusive)
