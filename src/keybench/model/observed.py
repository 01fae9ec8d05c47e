"""What a service reports of its own hot key ranges, read the way keybench reads keys: Spanner's
hot and warm splits (SPANNER_SYS.SPLIT_STATS_TOP_MINUTE) and Bigtable's hot tablets
(`ListHotTablets`), each mapped onto the table or index it falls in and onto that object's key
columns, and set beside the modelled verdict.

Spanner writes a split's start and limit as text: the table or index name and the key's leading
values, `Users(3,"a")`, or `<begin>` and `<end>` for the edges of the database's key space; a key
may be truncated, so `Users()` precedes every row of Users ("Hot split statistics", Spanner
documentation). Nothing here talks to a service: the backends read the rows, this reads them.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from keybench.model.verdict import HOT_ROW, HOTSPOT, INCONCLUSIVE, SPREAD

# CPU_USAGE_SCORE, the share of a split's load the server's resources constrained: above 50 %
# the split is warm, at 100 % hot ("Hot split statistics").
WARM_SCORE = 50.0
HOT_SCORE = 100.0
OBSERVED_HOTSPOT, OBSERVED_WARM, OBSERVED_NONE = "hotspot", "warm", "none"
OBSERVED = (OBSERVED_HOTSPOT, OBSERVED_WARM, OBSERVED_NONE)
EDGES = {"<begin>": "begin", "<end>": "end"}
# The words for a key's two ends, by what its leading column holds: a key's end is where
# ascending values grow, so a descending column reads the other way round.
TIME_TYPES = ("TIMESTAMP", "TIMESTAMPTZ", "DATE")
NUMBER_TYPES = ("INT64", "BIGINT", "INT8", "INTEGER", "FLOAT64", "FLOAT32", "FLOAT8", "FLOAT4", "DOUBLE", "REAL",
                "NUMERIC", "DECIMAL")
ENDS = {"time": ("oldest", "newest"), "number": ("lowest", "highest"), "text": ("first", "last")}
MAX_SHOWN_VALUE = 60  # characters of one key value in a sentence


@dataclass(frozen=True)
class SplitKey:
    """A split's start or limit as Spanner writes it."""

    text: str  # as written
    object: str | None = None  # the table or index; None at an edge of the key space or if unreadable
    values: tuple[str, ...] = ()  # the key's leading values, strings unquoted
    edge: str | None = None  # "begin" or "end"


_KEY = re.compile(r"^\s*(?P<name>[^()\s][^()]*?)\s*\((?P<values>.*)\)\s*$", re.DOTALL)


def parse_split_key(text: str) -> SplitKey:
    """`Users(3, "a")` -> Users with ("3", "a"); `<end>` -> the end edge; anything else is kept
    as text with no object (shown as it is, never guessed at)."""
    stripped = text.strip()
    if stripped.lower() in EDGES:
        return SplitKey(text, edge=EDGES[stripped.lower()])
    found = _KEY.match(text)
    if found is None:
        return SplitKey(text)
    values = _values(found.group("values"))
    return SplitKey(text, found.group("name").strip('`"'), values) if values is not None else SplitKey(text)


def _values(text: str) -> tuple[str, ...] | None:
    """The comma-separated values of a key: double-quoted strings (backslash escapes) or bare
    words (numbers, timestamps, NULL). None if the quotes do not close."""
    values: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            break
        if text[i] == '"':
            out, i = [], i + 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                out.append(text[i])
                i += 1
            if i == n:
                return None
            values.append("".join(out))
            i += 1
            while i < n and text[i] != ",":
                i += 1
        else:
            end = text.find(",", i)
            end = n if end < 0 else end
            values.append(text[i:end].strip())
            i = end
        i += 1  # the comma
    return tuple(values)


@dataclass(frozen=True)
class HotSplit:
    """One row of SPLIT_STATS_TOP_MINUTE: a split that was warm or hot in one minute."""

    interval_end: dt.datetime
    start: SplitKey
    limit: SplitKey
    score: float  # CPU_USAGE_SCORE, a percentage
    affected: tuple[str, ...]  # AFFECTED_TABLES: the tables and indexes whose rows it may hold
    reasons: tuple[str, ...] = ()  # UNSPLITTABLE_REASONS (HOT_ROW, MOVING_HOT_SPOT, ...)

    @classmethod
    def of(cls, row: tuple) -> HotSplit:
        """From a row as the service gives it: INTERVAL_END, SPLIT_START, SPLIT_LIMIT,
        CPU_USAGE_SCORE, AFFECTED_TABLES, UNSPLITTABLE_REASONS."""
        interval_end, start, limit, score, affected, reasons = row
        return cls(interval_end, parse_split_key(start), parse_split_key(limit), score, tuple(affected),
                   tuple(reasons))

    def touches(self, name: str, indexes: tuple[str, ...] = ()) -> bool:
        """Whether the split holds keys of table or index `name`: a bound lies in it, or the
        service lists it among the affected tables. A table's `indexes`: AFFECTED_TABLES names
        an index's table beside the index, so a split bounded in one of them is not the table's."""
        bounds = {(k.object or "").lower() for k in (self.start, self.limit)}
        if name.lower() in bounds:
            return True
        return name.lower() in {a.lower() for a in self.affected} and not bounds & {i.lower() for i in indexes}


@dataclass(frozen=True)
class HotTablet:
    """One entry of Bigtable's ListHotTablets: a tablet a node's CPU was busy serving."""

    table: str  # the table id (the last part of its name)
    start_key: bytes  # inclusive; empty: the table's first row
    end_key: bytes  # inclusive; empty: the table's last row
    start_time: dt.datetime
    end_time: dt.datetime
    cpu_percent: float  # node_cpu_usage_percent


@dataclass(frozen=True)
class KeyColumnText:
    """What a sentence about a place in a key needs of its leading column."""

    name: str
    kind: str  # time, number or text (ENDS)
    descending: bool = False


def column_kind(spanner_type: str) -> str:
    base = spanner_type.upper().split("(")[0]
    return "time" if base in TIME_TYPES else "number" if base in NUMBER_TYPES else "text"


@dataclass(frozen=True)
class Observation:
    """What the service saw of one table or index over the window."""

    name: str
    observed: str  # hotspot, warm or none (OBSERVED)
    score: float | None = None  # the hottest split's CPU_USAGE_SCORE (Bigtable: its node's CPU %)
    minutes: int = 0  # minutes (Bigtable: hot tablet entries) in which it was warm or hot
    where: str = ""  # where in its key the hottest range lies, in words
    key_range: str = ""  # that range as the service wrote it
    reasons: tuple[str, ...] = ()
    hottest: HotSplit | HotTablet | None = None  # the range the figures are of

    def agreement(self, modelled: str) -> str:
        """`yes` when the service saw what the model says (a hot or warm range for a hotspot or a
        hot row, none for a spread key); `no` otherwise; `n/a` for an inconclusive model."""
        if modelled == INCONCLUSIVE or not modelled:
            return "n/a"
        hot = self.observed in (OBSERVED_HOTSPOT, OBSERVED_WARM)
        return "yes" if hot == (modelled in (HOTSPOT, HOT_ROW)) else "no" if modelled in (HOTSPOT, HOT_ROW, SPREAD) \
            else "n/a"


def agreement(observed: str, modelled: str) -> str:
    """observed_agrees: Observation.agreement for the run's columns; `n/a` when what the service
    saw is unknown, "" when nothing was asked of it (an emulator)."""
    if not observed:
        return ""
    return Observation("", observed).agreement(modelled) if observed in OBSERVED else "n/a"


def observed_level(score: float) -> str:
    return OBSERVED_HOTSPOT if score >= HOT_SCORE else OBSERVED_WARM if score > WARM_SCORE else OBSERVED_NONE


def observe_split_object(name: str, key: list[KeyColumnText], splits: list[HotSplit],
                         indexes: tuple[str, ...] = ()) -> Observation:
    """One table or index (as the service names it; a table with its `indexes`) over every split
    row of the window: its hottest split, how many minutes it was warm or hot, and where in its
    key that split lies."""
    mine = [s for s in splits if s.touches(name, indexes) and s.score > WARM_SCORE]
    if not mine:
        return Observation(name, OBSERVED_NONE)
    hottest = max(mine, key=lambda s: (s.score, s.interval_end))
    return Observation(name, observed_level(hottest.score), hottest.score, len({s.interval_end for s in mine}),
                       split_place(hottest, name, key), f"{hottest.start.text} to {hottest.limit.text}",
                       hottest.reasons, hottest)


def split_place(split: HotSplit, name: str, key: list[KeyColumnText]) -> str:
    """Where `split` lies in `name`'s key, in words: "the newest LastAccess values (from
    2026-11-26T10:00:00Z on)", "UserId from 3 to 10", "all of it"."""
    inside = [k for k in (split.start, split.limit) if (k.object or "").lower() == name.lower() and k.values]
    start_in, limit_in = split.start in inside, split.limit in inside
    if not key:
        return "all of it" if not inside else f"{split.start.text} to {split.limit.text}"
    lead = key[0]
    low, high = ENDS[lead.kind][::-1] if lead.descending else ENDS[lead.kind]
    if start_in and limit_in:
        if split.start.values[:1] == split.limit.values[:1]:
            return f"one {lead.name} value, {_shown(split.start.values[0])}: {_key_text(split.start, key)} to " \
                   f"{_key_text(split.limit, key)}"
        return f"{lead.name} from {_shown(split.start.values[0])} to {_shown(split.limit.values[0])}"
    if start_in:
        return f"the {high} {lead.name} values (from {_shown(split.start.values[0])} on)"
    if limit_in:
        return f"the {low} {lead.name} values (up to {_shown(split.limit.values[0])})"
    return "all of it"


def _key_text(split_key: SplitKey, key: list[KeyColumnText]) -> str:
    return ", ".join(f"{c.name}={_shown(v)}" for c, v in zip(key, split_key.values, strict=False))


def _shown(value: str) -> str:
    """A value from the service, safe on a terminal (control characters escaped) and short."""
    value = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in value)
    return value if len(value) <= MAX_SHOWN_VALUE else value[:MAX_SHOWN_VALUE - 1] + "…"


def observe_tablets(table: str, tablets: list[HotTablet], segments: list[str] | None = None) -> Observation:
    """One Bigtable table over the window's hot tablets: the busiest, how many were listed, and
    its row-key range (named by the template's segments when one is given)."""
    mine = [t for t in tablets if t.table == table]
    if not mine:
        return Observation(table, OBSERVED_NONE)
    hottest = max(mine, key=lambda t: (t.cpu_percent, t.end_time))
    key_range = f"{row_key_text(hottest.start_key) or '(first row)'} to {row_key_text(hottest.end_key) or '(last row)'}"
    return Observation(table, OBSERVED_HOTSPOT, hottest.cpu_percent, len(mine), tablet_place(hottest, segments),
                       key_range, hottest=hottest)


def tablet_place(tablet: HotTablet, segments: list[str] | None, separator: bytes = b"#") -> str:
    """Where a hot tablet lies, in words: its first and last keys split at the template's
    separator and named by its segments ("device_type=phone, ts=... on"), or as text."""
    def named(key: bytes) -> str:
        if not segments:
            return row_key_text(key)
        parts = key.split(separator)
        return ", ".join(f"{s}={row_key_text(p)}" for s, p in zip(segments, parts, strict=False))

    if not tablet.start_key and not tablet.end_key:
        return "all of the table"
    if not tablet.end_key:
        return f"the table's last rows (from {named(tablet.start_key)} on)"
    if not tablet.start_key:
        return f"the table's first rows (up to {named(tablet.end_key)})"
    return f"from {named(tablet.start_key)} to {named(tablet.end_key)}"


def row_key_text(key: bytes) -> str:
    """A row key as text a terminal shows safely: printable ASCII as it is, anything else escaped."""
    return "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}" for b in key)


# ---- a stage of `keybench run` on a real instance: its recorded writes against the service's splits

def typed_value(text: str, type_word: str):
    """A key value as a split key writes it, in its column's type (`type_word`, ddl.column_types);
    None if it does not read as one: then no share of the writes is claimed."""
    word = type_word.upper()
    try:
        if word in ("TIMESTAMP", "TIMESTAMPTZ"):
            moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
        if word == "DATE":
            return dt.date.fromisoformat(text)
        if word in ("INT64", "BIGINT", "INT8", "INTEGER"):
            return int(text)
        if word in ("FLOAT64", "FLOAT32", "FLOAT8", "FLOAT4", "DOUBLE", "REAL", "NUMERIC", "DECIMAL"):
            return float(text)
        if word in ("BOOL", "BOOLEAN"):
            return {"true": True, "false": False}[text.lower()]
        if word in ("STRING", "VARCHAR", "TEXT", "CHARACTER", "JSON", "JSONB"):
            return text
    except (ValueError, KeyError):
        return None
    return None  # BYTES: how a split key writes bytes is not documented


def write_share(split: HotSplit, name: str, parts, types: list[str], keys: list[bytes]) -> float | None:
    """The share of `keys` (a space's recorded writes, in the database's byte order) that fall in
    the split, start included and limit not: a bound in another object leaves this one's start or
    end open. None when a bound's values do not read in their columns' types."""
    from keybench.design.byteorder import spanner_key_bytes

    def bound(key: SplitKey) -> bytes:
        values = [typed_value(v, t) for v, t in zip(key.values, types, strict=False)]
        if any(v is None for v in values) or len(key.values) > len(types):
            raise ValueError(key.text)
        return spanner_key_bytes(parts, tuple(values))

    try:
        low = bound(split.start) if (split.start.object or "").lower() == name.lower() else b""
        high = bound(split.limit) if (split.limit.object or "").lower() == name.lower() else None
    except ValueError:
        return None
    if not keys:
        return None
    held = sum(1 for k in keys if low <= k and (high is None or k < high))
    return held / len(keys)


def stage_observation(strategy, rows: list[tuple], stream) -> dict:
    """The observed columns of one stage from its service's rows: Spanner's split rows
    (HotSplit.of) or Bigtable's hot tablets (HotTablet fields, in order)."""
    if strategy.backend == "bigtable":
        return _tablet_observation(strategy, [HotTablet(*row) for row in rows], stream)
    return _split_observation(strategy, [HotSplit.of(row) for row in rows], stream)


def _columns(seen: Observation, name: str, share: float | None) -> dict:
    return {"observed": seen.observed, "observed_score": "" if seen.score is None else f"{seen.score:g}",
            "observed_space": name if seen.observed != OBSERVED_NONE else "",
            "observed_where": seen.where, "observed_range": seen.key_range,
            "observed_write_share": "" if share is None else f"{share:.3f}"}


def _recorded_keys(stream, space: str) -> list[bytes]:
    """A space's recorded write keys, whole (the stream keeps them in a fixed-width array)."""
    _, raw, lengths = stream.writes(space)
    return [bytes(k).ljust(int(n), b"\x00") for k, n in zip(raw, lengths, strict=True)]


def _split_observation(strategy, splits: list[HotSplit], stream) -> dict:
    """A Spanner stage: its table's and indexes' hottest split, where it lies, and the share of
    that space's recorded writes it held."""
    from keybench.design.byteorder import TABLE_SPACE, KeyEncoder
    from keybench.design.ddl import column_types

    encoder = KeyEncoder(strategy)
    types = column_types(strategy.ddl)
    best: tuple | None = None
    for space in encoder.spaces:
        name = strategy.table if space == TABLE_SPACE else space
        parts = encoder.parts_of(space)
        words = [types.get((strategy.table.lower(), (p.column or "").lower()), "") for p in parts]
        key = [KeyColumnText(p.column or p.name, column_kind(w), p.descending) for p, w in zip(parts, words,
                                                                                                 strict=True)]
        indexes = tuple(i.name for i in strategy.indexes) if space == TABLE_SPACE else ()
        seen = observe_split_object(name, key, splits, indexes)
        if best is None or (seen.score or 0) > (best[1].score or 0):
            best = (space, seen, name, parts, words)
    if best is None:
        return {}
    space, seen, name, parts, words = best
    share = None
    if isinstance(seen.hottest, HotSplit):
        share = write_share(seen.hottest, name, parts, words, _recorded_keys(stream, space))
    return _columns(seen, name, share)


def _tablet_observation(strategy, tablets: list[HotTablet], stream) -> dict:
    """A Bigtable stage: its table's hottest tablet, its row keys named by the design's parts, and
    the share of the recorded writes between its first and last keys (inclusive)."""
    from keybench.design.byteorder import TABLE_SPACE

    tables = sorted({t.table for t in tablets})
    segments = [p.name for p in strategy.parts]
    seen_all = [observe_tablets(table, tablets, segments) for table in tables]
    seen = max(seen_all, key=lambda o: o.score or 0) if seen_all else Observation(strategy.table, OBSERVED_NONE)
    share = None
    hottest = seen.hottest
    if isinstance(hottest, HotTablet) and not strategy.table_per_tenant:  # one table: its stream is its rows
        keys = _recorded_keys(stream, TABLE_SPACE)
        held = sum(1 for k in keys if hottest.start_key <= k and (not hottest.end_key or k <= hottest.end_key))
        share = held / len(keys) if keys else None
    return _columns(seen, seen.name, share)
