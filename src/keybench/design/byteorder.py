"""Order-preserving byte encodings of keys: the order the database keeps its rows in.

The emulators never split data, so keybench models splits from the keys a run writes
(`model/splitmodel.py`). The model needs every key as bytes that sort exactly as the database
sorts its rows:

- Spanner: each primary-key column in declared order, ASC or DESC. INT64 and TIMESTAMP
  (microseconds since the epoch) are 8 big-endian bytes with the sign bit flipped; STRING
  (UTF-8) and BYTES escape 0x00 as 0x00 0xFF and end with 0x00 0x01, so that a prefix sorts
  before its extensions and a column's encoding never runs into the next column's. A DESC
  column is the bitwise inverse of its ASC encoding, which reverses its byte order.
- Bigtable: the row key's raw bytes.

A Spanner secondary index is its own key space: an entry's key is the index key columns
followed by the table's primary-key columns the index does not already hold.

Split units: Spanner splits an interleaved table, and an index interleaved in a table, only
between root rows (a root row and everything interleaved in it stay together), so their
split unit is the root table's key, the leading columns of every key. Elsewhere a row
(Bigtable: a row key) is the smallest unit a split can separate.

Read spans (`plans.Span`, prefix-closed and inclusive) become half-open byte intervals
[start, end); an empty `end` means "to the end of the space", as in Bigtable's RowRange.
"""

from __future__ import annotations

import bisect
import datetime as dt
import decimal
import functools
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from keybench.design.ddl import INDEX_KIND, QUALIFIED_NAME, TABLE_KIND, created_name, creates
from keybench.design.events import EPOCH, WriteEvent, ts_us_of
from keybench.design.keys import Part, join_segments
from keybench.design.plans import ReadRequest, Span
from keybench.design.strategies import Strategy

TABLE_SPACE = "table"  # the key space of the strategy's table; an index's space is its name
FULL_SPACE = (b"", b"")  # a full scan: from the first key to the end of the space

_SIGN = 1 << 63
EPOCH_DATE = EPOCH.date()
STRING_END = b"\x00\x01"


def encode_int64(value: int) -> bytes:
    """Two's complement with the sign bit flipped: byte order is numeric order."""
    if not -_SIGN <= value < _SIGN:
        raise ValueError(f"{value} does not fit in INT64")
    return ((value + _SIGN) & 0xFFFF_FFFF_FFFF_FFFF).to_bytes(8, "big")


def encode_bytes(value: bytes) -> bytes:
    """0x00 escaped as 0x00 0xFF and a 0x00 0x01 terminator: "ab" < "ab\\x00" < "abc"."""
    return value.replace(b"\x00", b"\x00\xff") + STRING_END


_INVERTED = bytes(range(255, -1, -1))


def invert(encoded: bytes) -> bytes:
    """A DESC column: every byte inverted, so byte order runs backwards."""
    return encoded.translate(_INVERTED)


def encode_value(value) -> bytes:
    """One Spanner key column value, ascending; the type follows the Python value."""
    if value is None:  # NULL sorts first in ascending order
        return b"\x00"
    if isinstance(value, bool):  # a BOOL column: FALSE, then TRUE, after NULL
        return bytes((1, value))
    if isinstance(value, int):
        return encode_int64(value)
    if isinstance(value, str):
        return encode_bytes(value.encode())
    if isinstance(value, bytes | bytearray):
        return encode_bytes(bytes(value))
    if isinstance(value, dt.datetime):
        return encode_int64(ts_us_of(value))
    if isinstance(value, dt.date):  # a DATE: days since the epoch
        return encode_int64((value - EPOCH_DATE).days)
    if isinstance(value, float | decimal.Decimal):  # FLOAT64, NUMERIC: IEEE 754 bits in numeric order
        bits = struct.unpack(">q", struct.pack(">d", float(value)))[0]
        return encode_int64(bits if bits >= 0 else -bits - 2**63)
    raise TypeError(f"cannot encode key value of type {type(value).__name__}")


def spanner_key_bytes(parts: tuple[Part, ...], values: tuple) -> bytes:
    """The leading `values` of a Spanner key; a shorter tuple gives the prefix every longer
    key starting with those values begins with (the encoding of each column is prefix-free)."""
    return b"".join(column_bytes(value, part.descending) for part, value in zip(parts, values, strict=False))


def column_bytes(value, descending: bool) -> bytes:
    if isinstance(value, bytearray):  # the one encodable value that cannot be remembered (unhashable)
        value = bytes(value)
    return _encoded_column(type(value).__qualname__, value, descending)


@functools.lru_cache(maxsize=1 << 16)
def _encoded_column(kind: str, value, descending: bool) -> bytes:
    """One column's bytes, remembered: a read's spans repeat the same values (every shard
    bucket of a fanned-out read, its two bounds), read after read. `kind` keeps 1, 1.0 and
    True apart, which compare equal."""
    del kind
    encoded = encode_value(value)
    return invert(encoded) if descending else encoded


def prefix_successor(prefix: bytes) -> bytes:
    """The smallest key greater than every key that starts with `prefix` (b"": none is)."""
    stripped = prefix.rstrip(b"\xff")
    return stripped[:-1] + bytes([stripped[-1] + 1]) if stripped else b""


def bigtable_row_range(parts: tuple[Part, ...], separator: str, span: Span) -> tuple[bytes, bytes, bool] | None:
    """(start, end, end_inclusive) of a span over Bigtable row keys; end b"" is open.
    None when the span is empty because its ends are inverted (unpadded numbers: "95" > "105")."""
    nparts = len(parts)
    start = join_segments(parts, span.lo, separator, open_end=len(span.lo) < nparts)
    if len(span.hi) < nparts:
        end, inclusive = prefix_successor(join_segments(parts, span.hi, separator, open_end=True)), False
    else:
        end, inclusive = join_segments(parts, span.hi, separator), True
    if end and (start > end or (start == end and not inclusive)):
        return None
    return start, end, inclusive


def index_key_parts(strategy, index) -> tuple[Part, ...]:
    """An index entry's key: the index columns, then the primary-key columns it lacks."""
    held = {p.column for p in index.parts}
    return tuple(index.parts) + tuple(p for p in strategy.parts if p.column not in held)


_STATEMENT_TABLE = creates(TABLE_KIND)
_STATEMENT_INDEX = creates(INDEX_KIND)
_PRIMARY_KEY = re.compile(r"PRIMARY\s+KEY\s*\(([^)]*)\)", re.I)
_INTERLEAVED_IN = re.compile(rf"INTERLEAVE\s+IN\s+(?:PARENT\s+)?({QUALIFIED_NAME})", re.I)


def root_key_columns(ddl: tuple[str, ...]) -> dict[str, int]:
    """Per interleaved table or index (lower-case name): how many leading key columns its
    root table's key has, read from the statements' PRIMARY KEY and INTERLEAVE IN clauses."""
    key_columns: dict[str, int] = {}
    parent: dict[str, str] = {}
    for statement in ddl:
        named = _STATEMENT_TABLE.match(statement) or _STATEMENT_INDEX.match(statement)
        if not named:
            continue
        name = created_name(named).lower()
        key = _PRIMARY_KEY.search(statement)
        if key and _STATEMENT_TABLE.match(statement):
            key_columns[name] = len([c for c in key.group(1).split(",") if c.strip()])
        interleaved = _INTERLEAVED_IN.search(statement)
        if interleaved:
            parent[name] = created_name(interleaved).lower()
    roots = {}
    for name in parent:
        root, seen = name, set()
        while root in parent and root not in seen:  # walk up to the root table
            seen.add(root)
            root = parent[root]
        if root in key_columns:
            roots[name] = key_columns[root]
    return roots


@dataclass(frozen=True)
class KeyEncoder:
    """Turns a strategy's keys, index entries and read requests into bytes of its key spaces."""

    strategy: Strategy

    @property
    def spaces(self) -> tuple[str, ...]:
        return (TABLE_SPACE,) + tuple(i.name for i in self.strategy.indexes)

    @cached_property
    def _index_layouts(self) -> dict[str, tuple[tuple[Part, ...], tuple[int, ...]]]:
        """Per index, worked out once (every insert writes its entries): the entry's key parts,
        and where in a row's key the primary-key columns it appends sit."""
        layouts = {}
        for index in self.strategy.indexes:
            held = {p.column for p in index.parts}
            appended = tuple(i for i, p in enumerate(self.strategy.parts) if p.column not in held)
            layouts[index.name] = (index_key_parts(self.strategy, index), appended)
        return layouts

    @cached_property
    def _unit_columns(self) -> dict[str, int]:
        """Per space whose splits fall only between root rows: the root key's column count."""
        if self.strategy.backend != "spanner":
            return {}
        roots = root_key_columns(self.strategy.ddl)
        out = {}
        if self.strategy.table.lower() in roots:
            out[TABLE_SPACE] = roots[self.strategy.table.lower()]
        for index in self.strategy.indexes:
            if index.name.lower() in roots:
                out[index.name] = roots[index.name.lower()]
        return out

    def unit_length(self, space: str, parts: tuple[Part, ...], values: tuple, encoded: bytes) -> int:
        """The length of a key's split unit: its root row's key, or the whole key."""
        columns = self._unit_columns.get(space)
        if columns is None or columns >= len(parts):
            return len(encoded)
        return len(spanner_key_bytes(parts[:columns], values[:columns]))

    def parts_of(self, space: str) -> tuple[Part, ...]:
        if space == TABLE_SPACE:
            return self.strategy.parts
        return self._index_layouts[space][0]

    def table_key(self, key: tuple) -> bytes:
        """The stored key of a row: `key` as the backend's insert returned it (generated values filled in)."""
        if self.strategy.backend == "bigtable":
            return join_segments(self.strategy.parts, key, self.strategy.separator or "")
        return spanner_key_bytes(self.strategy.parts, key)

    def write_keys(self, key: tuple, event: WriteEvent) -> list[tuple[str, bytes, int]]:
        """(space, key bytes, split-unit length) of every entry one insert writes: the row
        and each index entry."""
        table_key = self.table_key(key)
        out = [(TABLE_SPACE, table_key, self.unit_length(TABLE_SPACE, self.strategy.parts, key, table_key))]
        for index in self.strategy.indexes:
            parts, appended = self._index_layouts[index.name]
            own = index.key_values(event)
            if index.holds(own):  # a NULL_FILTERED index has no entry for a row with a NULL key column
                values = own + tuple(key[i] for i in appended)
                encoded = spanner_key_bytes(parts, values)
                out.append((index.name, encoded, self.unit_length(index.name, parts, values, encoded)))
        return out

    def span_interval(self, span: Span, space: str = TABLE_SPACE) -> tuple[bytes, bytes] | None:
        """A prefix-closed span as [start, end) bytes; None when the span is empty."""
        parts = self.parts_of(space)
        if self.strategy.backend == "bigtable":
            bounds = bigtable_row_range(parts, self.strategy.separator or "", span)
            if bounds is None:
                return None
            start, end, inclusive = bounds
            return start, (end + b"\x00" if inclusive else end)  # the next key after an inclusive end
        start = spanner_key_bytes(parts, span.lo)
        end = prefix_successor(spanner_key_bytes(parts, span.hi))
        if end and start >= end:
            return None
        return start, end

    def read_intervals(self, request: ReadRequest) -> tuple[str, list[tuple[bytes, bytes]]]:
        """The key space a read touches and its byte intervals; a full scan is the whole space."""
        space = request.index or TABLE_SPACE
        if request.spans is None:
            return space, [FULL_SPACE]
        if self.strategy.backend == "spanner" and (fast := spanner_intervals(
                self.parts_of(space), request.spans, self._encoded_values.setdefault(space, {}))):
            return space, fast
        intervals = [self.span_interval(s, space) for s in request.spans]
        return space, [i for i in intervals if i is not None]

    @cached_property
    def _encoded_values(self) -> dict[str, dict[tuple[int, type], dict]]:
        """Per space, per column and type of value: the values its reads' spans encoded."""
        return {}


_NEXT_BYTE = [bytes((b + 1,)) for b in range(255)]
ENCODED_VALUES = 1 << 16  # values remembered per column: a long run's reads bring new times


def spanner_intervals(parts: tuple[Part, ...], spans: Sequence[Span], encoded: dict) -> list[tuple[bytes, bytes]]:
    """span_interval of each Spanner span, the empty ones left out, worked out a column at a
    time: a value is encoded once (`encoded` remembers them), and a fanned-out read's spans
    share theirs (every shard bucket and the same two times). [] when the spans' bounds
    differ in length or a column holds values of several types (1 and True are one key of a
    dict): then span by span."""
    starts = _column_keys(parts, [span.lo for span in spans], encoded)
    ends = _column_keys(parts, [span.hi for span in spans], encoded)
    if not starts or ends is None:
        return []
    ends = [end[:-1] + _NEXT_BYTE[end[-1]] if end and end[-1] != 0xFF else prefix_successor(end) for end in ends]
    return [(start, end) for start, end in zip(starts, ends, strict=True) if not end or start < end]


def _column_keys(parts: tuple[Part, ...], rows: list[tuple], encoded: dict) -> list[bytes] | None:
    """spanner_key_bytes of each row of values, a column at a time; None when the rows
    differ in length."""
    try:
        by_column = list(zip(*rows, strict=True))
    except ValueError:
        return None
    columns = []
    for i, (part, values) in enumerate(zip(parts, by_column, strict=False)):
        kinds = {type(v) for v in values}
        if len(kinds) > 1 or bytearray in kinds:
            return None
        known = encoded.setdefault((i, kinds.pop()), {})
        missing = set(values).difference(known)
        if len(known) + len(missing) > ENCODED_VALUES:
            known.clear()
            missing = set(values)
        known.update((v, column_bytes(v, part.descending)) for v in missing)
        columns.append(list(map(known.__getitem__, values)))
    if not columns:
        return [b""] * len(rows)
    return columns[0] if len(columns) == 1 else list(map(b"".join, zip(*columns, strict=True)))


# --- database-generated keys -------------------------------------------------------------

_OPTION = r"{}\s*=\s*(-?\d+)"


def sequence_options(ddl: tuple[str, ...]) -> tuple[int, int | None, int | None]:
    """(start_with_counter, skip_range_min, skip_range_max) of a strategy's bit_reversed_positive
    sequence, read from its DDL (CREATE SEQUENCE ... OPTIONS, ALTER SEQUENCE ... SET OPTIONS)."""
    text = " ".join(s for s in ddl if re.search(r"\bSEQUENCE\b", s, re.IGNORECASE))

    def option(name: str) -> int | None:
        found = re.findall(_OPTION.format(name), text, re.IGNORECASE)
        return int(found[-1]) if found else None

    start = option("start_with_counter")
    return (1 if start is None else start), option("skip_range_min"), option("skip_range_max")


def bit_reversed_array(n: np.ndarray) -> np.ndarray:
    """keys.bit_reversed for a uint64/int64 array: the 63 value bits in reverse order."""
    n = np.asarray(n, dtype=np.uint64)
    table = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)
    as_bytes = n.astype("<u8").view(np.uint8).reshape(-1, 8)
    reversed64 = table[as_bytes].view(">u8").ravel()  # little-endian bytes reversed, read big-endian
    return (reversed64 >> np.uint64(1)).astype(np.int64)


def generated_values(ddl: tuple[str, ...], seq: np.ndarray) -> np.ndarray:
    """What a bit_reversed_positive sequence returns for the inserts numbered `seq` (1, 2, ...):
    bit_reversed(counter), counting from start_with_counter and passing over counters whose
    value falls in the skip range, as the emulator's sequence does. Only the counters of
    the inserts asked for are made: with a skip range, the count resumes from where an
    earlier call left it (a simulation asks a block of inserts at a time, in order), so
    time and memory follow the block, not the insert numbers."""
    start, skip_min, skip_max = sequence_options(ddl)
    seq = np.asarray(seq, dtype=np.int64)
    if len(seq) == 0:
        return seq
    if skip_min is None or skip_max is None:
        return bit_reversed_array(start + seq - 1)
    first, last = int(seq.min()), int(seq.max())
    marks = _SEQUENCE_MARKS.setdefault((start, skip_min, skip_max), [(0, start)])
    kept, counter = marks[bisect.bisect_right(marks, (first - 1, _COUNTER_END)) - 1]  # inserts kept before `counter`
    values, counters, found = [], [], 0
    block = max(last - kept + 64, 1024)
    while found < last - kept:
        candidates = np.arange(counter, counter + block, dtype=np.int64)
        made = bit_reversed_array(candidates)
        keep = (made < skip_min) | (made > skip_max)
        values.append(made[keep])
        counters.append(candidates[keep])
        found += int(keep.sum())
        counter += block
        block *= 2  # a huge skip range: count further
    made, at = np.concatenate(values), np.concatenate(counters)
    mark = (last, int(at[last - kept - 1]) + 1)  # after insert `last`: the next counter to try
    if mark not in marks:
        bisect.insort(marks, mark)
        if len(marks) > _MAX_MARKS:
            del marks[1:len(marks) // 2]  # the oldest resumption points go first
    return made[seq - kept - 1]


# Per sequence (start, skip range): (inserts numbered so far, the counter after the last of
# them), ascending: where a later call resumes the count.
_SEQUENCE_MARKS: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
_MAX_MARKS = 4096
_COUNTER_END = 2**63
