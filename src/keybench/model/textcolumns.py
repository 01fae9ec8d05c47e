"""Key parts of many writes at once as byte matrices: a column is a (rows, width) uint8 matrix,
or Ragged when its rows differ in width (a domain, an unpadded number, escaped bytes). Text
forms (decimal digits, hex, dates, Spanner's timestamp text) are built by arithmetic on whole
arrays and table lookups, never by formatting one row at a time; `join` puts columns side by
side into the byte-ordered keys the split model replays."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from keybench.design.byteorder import STRING_END


@dataclass(frozen=True)
class Ragged:
    """Rows of differing widths: a (rows, widest) matrix, each row's bytes first, then padding
    of any value (join writes over it or zeroes it)."""

    matrix: np.ndarray
    widths: np.ndarray  # int64, per row

    def __len__(self) -> int:
        return len(self.widths)

    def take(self, rows) -> Ragged:
        return Ragged(_rows_of(self.matrix, rows), self.widths[rows])


Column = np.ndarray | Ragged


def from_bytes(encoded: list[bytes]) -> Column:
    """Per-row bytes as a matrix when they share one width, else as Ragged (built in C, not row by row)."""
    widths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    widest = int(widths.max()) if len(encoded) else 0
    if (widths == widest).all():
        return np.frombuffer(b"".join(encoded), dtype=np.uint8).reshape(len(encoded), widest)
    matrix = np.array(encoded, dtype=f"S{widest}").view(np.uint8).reshape(len(encoded), widest)
    return Ragged(matrix, widths)


def lookup(values: list[bytes], where: np.ndarray) -> Column:
    """Row i takes values[where[i]]: a few distinct values (a tenant, a domain) for many rows."""
    table = from_bytes(values) if values else np.zeros((0, 0), dtype=np.uint8)
    return take(table, where)


def widths_of(column: Column, rows: int) -> np.ndarray:
    return column.widths if isinstance(column, Ragged) else np.full(rows, column.shape[1], dtype=np.int64)


def inverted(column: Column) -> Column:
    """A DESC column: every byte inverted."""
    if isinstance(column, Ragged):
        return Ragged(255 - column.matrix, column.widths)
    return 255 - column


def take(column: Column, rows) -> Column:
    return column.take(rows) if isinstance(column, Ragged) else _rows_of(column, rows)


def _rows_of(matrix: np.ndarray, rows) -> np.ndarray:
    """matrix[rows] for a (rows, width) byte matrix, each row copied as one item."""
    if not matrix.shape[1]:
        return matrix[rows]
    return row_items(matrix)[rows].view(np.uint8).reshape(-1, matrix.shape[1])


# Distinct per-row offsets a column is copied at by slices (one copy per offset); past this
# many, a single scatter of every byte is cheaper.
_SLICED_OFFSETS = 32


def join(columns: list[Column], rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns side by side: (keys as an 'S' array, zero-padded; each key's true length)."""
    fixed = [c for c in columns if isinstance(c, np.ndarray)]
    if len(fixed) == len(columns):
        # one column is its own key matrix: no copy (view() needs it contiguous, as a fresh column is)
        matrix = np.ascontiguousarray(fixed[0]) if len(fixed) == 1 else _side_by_side(fixed, rows)
        width = matrix.shape[1]
        return matrix.view(f"S{width}").ravel(), np.full(rows, width, dtype=np.uint16)
    segments = _segments(columns, rows)
    bound = sum(c.matrix.shape[1] if isinstance(c, Ragged) else c.shape[1] for c in segments)
    out = np.zeros((rows, max(1, bound)), dtype=np.uint8)
    offset: int | np.ndarray = 0
    for column in segments:
        matrix = column.matrix if isinstance(column, Ragged) else column
        width = matrix.shape[1]
        if width and isinstance(offset, int):
            row_field(out, offset, width)[:] = row_items(matrix)
        elif width and isinstance(offset, np.ndarray):
            counts = np.bincount(offset)
            starts = np.flatnonzero(counts)
            if len(starts) <= _SLICED_OFFSETS:
                items = row_items(matrix)
                for start in starts.tolist():
                    at = offset == start if counts[start] < rows else slice(None)
                    row_field(out, start, width)[at] = items[at]
            else:
                step = np.arange(width)
                valid = step[None, :] < widths_of(column, rows)[:, None]
                row = np.broadcast_to(np.arange(rows)[:, None], valid.shape)
                out[row[valid], (offset[:, None] + step[None, :])[valid]] = matrix[valid]
        offset = offset + column.widths if isinstance(column, Ragged) else offset + width
    lengths = np.asarray(offset, dtype=np.int64)
    widest = max(1, int(lengths.max()) if rows else 1)
    out = np.ascontiguousarray(out[:, :widest])
    zero_past(out, lengths)  # what padding left past each key's end
    return out.view(f"S{widest}").ravel(), lengths.astype(np.uint16)


def zero_past(matrix: np.ndarray, lengths: np.ndarray) -> None:
    """Zeroes the bytes of each row of a contiguous byte matrix past its length: by slices
    where rows come in few lengths."""
    width = matrix.shape[1]
    lengths = np.minimum(lengths, width)
    ends = np.flatnonzero(np.bincount(lengths, minlength=width + 1)[:width])
    if len(ends) <= _SLICED_OFFSETS:
        for end in ends.tolist():
            row_field(matrix, end, width - end)[lengths == end] = np.zeros(1, dtype=f"V{width - end}")
    else:
        matrix[np.arange(width)[None, :] >= lengths[:, None]] = 0


def first_bytes(keys: np.ndarray, width: int) -> np.ndarray:
    """The first `width` bytes of each fixed-width key (an 'S' array), as a (rows, width) byte
    matrix: each row copied as one item."""
    keys = np.ascontiguousarray(keys)
    return row_items(keys.view(np.uint8).reshape(len(keys), keys.dtype.itemsize)[:, :width]).copy().view(
        np.uint8).reshape(len(keys), width)


def row_items(matrix: np.ndarray) -> np.ndarray:
    """A (rows, width) byte matrix as one void item a row: numpy copies items whole, and
    the bytes of a two-dimensional selection one by one."""
    source = matrix if matrix.strides[1] == 1 else np.ascontiguousarray(matrix)
    return source.view(f"V{matrix.shape[1]}").ravel()


def row_field(matrix: np.ndarray, offset: int, width: int) -> np.ndarray:
    """Bytes offset..offset+width of each row of a contiguous byte matrix, as one void item a
    row (a view: what is written to it is written to the matrix)."""
    field = np.dtype({"names": ["c"], "formats": [f"V{width}"], "offsets": [offset], "itemsize": matrix.shape[1]})
    return matrix.view(field).ravel()["c"]


def _segments(columns: list[Column], rows: int) -> list[Column]:
    """The columns with each run of fixed-width ones made one matrix: each run is then placed
    at its rows' offsets once, not column by column."""
    out: list[Column] = []
    run: list[np.ndarray] = []
    for column in [*columns, None]:
        if isinstance(column, np.ndarray):
            run.append(column)
            continue
        if run:
            out.append(run[0] if len(run) == 1 else _side_by_side(run, rows))
            run = []
        if column is not None:
            out.append(column)
    return out


def _side_by_side(columns: list[np.ndarray], rows: int) -> np.ndarray:
    """(rows, width) byte matrices as one: each column copied as one item a row (a void
    field at its offset), not byte by byte as np.hstack copies them."""
    total = sum(c.shape[1] for c in columns)
    matrix = np.empty((rows, total), dtype=np.uint8)
    offset = 0
    for column in columns:
        width = column.shape[1]
        if width and rows:
            row_field(matrix, offset, width)[:] = row_items(column)
        offset += width
    return matrix


def constant(data: bytes, rows: int) -> np.ndarray:
    """The same bytes on every row, as a read-only view: no copy until the columns are joined."""
    encoded = np.frombuffer(data, dtype=np.uint8)
    return np.broadcast_to(encoded[None, :], (rows, len(encoded)))


def escaped(raw: np.ndarray) -> Column:
    """Fixed-width bytes as a Spanner STRING or BYTES key column (byteorder.encode_bytes):
    each 0x00 followed by 0xFF, then the 0x00 0x01 terminator."""
    rows, width = raw.shape
    plain = np.zeros((rows, width + len(STRING_END)), dtype=np.uint8)
    plain[:, :width] = raw
    plain[:, width:] = np.frombuffer(STRING_END, dtype=np.uint8)
    with_zero = np.flatnonzero((raw == 0).any(axis=1))
    if not len(with_zero):
        return plain
    # The rows holding a 0x00: each byte moves right by the zeros before it.
    some = raw[with_zero]
    zero = some == 0
    before = np.cumsum(zero, axis=1) - zero
    dest = np.arange(width)[None, :] + before
    moved = np.zeros((len(some), 2 * width + len(STRING_END)), dtype=np.uint8)
    np.put_along_axis(moved, dest, some, axis=1)
    np.put_along_axis(moved, np.where(zero, dest + 1, dest), np.where(zero, 0xFF, some).astype(np.uint8), axis=1)
    end = width + zero.sum(axis=1)
    moved[np.arange(len(some)), end] = STRING_END[0]
    moved[np.arange(len(some)), end + 1] = STRING_END[1]
    matrix = np.zeros((rows, moved.shape[1]), dtype=np.uint8)
    matrix[:, :plain.shape[1]] = plain
    matrix[with_zero] = moved
    widths = np.full(rows, plain.shape[1], dtype=np.int64)
    widths[with_zero] = end + len(STRING_END)
    return Ragged(matrix, widths)


# --- text --------------------------------------------------------------------------------------

# "0000".."9999" as 4 bytes, each digit's character made by arithmetic (see _HEX_QUADS)
_DIGIT_GROUPS = (np.arange(10_000)[:, None] // np.array([1000, 100, 10, 1]) % 10 + ord("0")).astype(np.uint8).view(
    np.uint32).ravel()


def digits(values: np.ndarray, width: int) -> np.ndarray | None:
    """Zero-padded decimal text, or None when a value needs more than `width` digits."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and (values.min() < 0 or values.max() >= 10**width):
        return None
    groups = -(-width // 4)
    text = np.empty((len(values), groups), dtype=np.uint32)  # four digits a group, written as text
    group = np.empty_like(values)
    for g in range(groups - 1, 0, -1):
        # // and a product, not np.divmod: numpy divides by a constant with a fast path divmod lacks
        high = values // 10_000
        np.multiply(high, 10_000, out=group)
        np.subtract(values, group, out=group)
        text[:, g] = _DIGIT_GROUPS[group]
        values = high
    if groups:
        text[:, 0] = _DIGIT_GROUPS[values]  # below 10,000: the width bounds the values
    return text.view(np.uint8)[:, 4 * groups - width:]


def padded(values: np.ndarray, width: int) -> np.ndarray:
    """digits() of values known to fit `width` (a clock field, a bucket number)."""
    text = digits(values, width)
    if text is None:
        raise ValueError(f"a value does not fit in {width} decimal digits")
    return text


def distinct_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True) of small non-negative integers (entities are
    1..population) in one pass, not a sort: which values occur, then each one's rank."""
    if not len(values) or values.min() < 0 or values.max() > 4 * len(values) + (1 << 16):
        return np.unique(values, return_inverse=True)
    present = np.zeros(int(values.max()) + 1, dtype=bool)
    present[values] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present).astype(values.dtype), rank[values]


# ".000".."999", and "000".."999" then a zero byte: a second's fraction, four bytes at a time
_DOT_TRIPLES = np.array([f".{i:03d}".encode() for i in range(1000)]).view(np.uint32)
_TRIPLES = np.array([f"{i:03d}\0".encode() for i in range(1000)]).view(np.uint32)


def fraction_text(micros: np.ndarray) -> Ragged:
    """A second's fraction as Spanner casts a TIMESTAMP to STRING: nothing on a whole second,
    ".fff" on a whole millisecond, ".ffffff" otherwise."""
    millis, rest = np.divmod(np.asarray(micros, dtype=np.int32), 1000)
    text = np.empty((len(millis), 2), dtype=np.uint32)
    text[:, 0] = _DOT_TRIPLES[millis]
    text[:, 1] = _TRIPLES[rest]
    return Ragged(text.view(np.uint8), np.where(rest == 0, np.where(millis == 0, 0, 4), 7))


def zone_text(offsets_us: np.ndarray) -> Ragged:
    """UTC offsets as Spanner writes them after a time: "-08", "+05:30" (whole minutes). A
    zone has a few offsets: each one's text is worked out once, then looked up."""
    offsets_us = np.asarray(offsets_us, dtype=np.int64)
    # whole seconds, made non-negative (offsets lie within a day): a key per distinct offset
    distinct, where = distinct_inverse(offsets_us // 1_000_000 + 86_400)
    offsets = (distinct - 86_400) * 1_000_000
    minutes = np.abs(offsets) // 60_000_000
    table = np.zeros((len(distinct), 6), dtype=np.uint8)
    table[:, 0] = np.where(offsets < 0, ord("-"), ord("+"))
    table[:, 1:3] = padded(minutes // 60, 2)
    table[:, 3] = ord(":")
    table[:, 4:] = padded(minutes % 60, 2)
    widths = np.where(minutes % 60 == 0, 3, 6)
    return Ragged(_rows_of(table, where), widths[where])


def unpadded_digits(values: np.ndarray) -> Column:
    """Non-negative numbers as decimal text without padding ("3", "20"): rows differ in width."""
    values = np.asarray(values, dtype=np.int64)
    if not len(values):
        return np.zeros((0, 1), dtype=np.uint8)
    widths = np.ones(len(values), dtype=np.int64)
    for power in range(1, 19):
        widths += values >= 10**power
    widest = int(widths.max())
    text = padded(values, widest)
    if (widths == widest).all():
        return text
    shifted = np.zeros_like(text)
    for width in np.unique(widths).tolist():  # the leading zeros dropped: each row's digits first
        at = widths == width
        shifted[at, :width] = text[at, widest - width:]
    return Ragged(shifted, widths)


_HEX_PAIRS = np.array([f"{i:02x}".encode() for i in range(256)]).view(np.uint16)  # "00".."ff" as 2 bytes
# The hex text of two bytes b0, b1 (at index b0 + 256 b1) as 4 bytes: half the lookups of _HEX_PAIRS.
# Built from the pairs, not from 65,536 formatted strings: that took 80 ms of every keybench
# process's start (a `keybench --version` takes about a second).
_HEX_QUADS = np.stack([np.tile(_HEX_PAIRS, 256), np.repeat(_HEX_PAIRS, 256)], axis=1).view(np.uint32).ravel()


def hex_text(raw: np.ndarray) -> np.ndarray:
    """(rows, width) bytes as (rows, 2 width) lower-case hex text."""
    raw = np.ascontiguousarray(raw)
    if raw.shape[1] % 2:
        return _HEX_PAIRS[raw].view(np.uint8)
    return _HEX_QUADS[raw.view("<u2")].view(np.uint8)


def be_bytes(values: np.ndarray, width: int) -> np.ndarray:
    """The low `width` bytes of each number, big-endian."""
    return np.asarray(values, dtype=np.uint64).astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - width:]


def _civil(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(year, month, day) of days since 1970-01-01, proleptic Gregorian (H. Hinnant's civil_from_days)."""
    z = days + 719_468
    era = np.floor_divide(z, 146_097)
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    return yoe + era * 400 + (month <= 2), month, day


_US_PER_DAY = 86_400_000_000


_FIELD_WIDTHS = {"Y": 4, "m": 2, "d": 2, "H": 2, "M": 2, "S": 2, "f": 6}


def date_time_text(ts_us: np.ndarray, fields: str) -> np.ndarray:
    """Times (µs since the epoch, UTC) as text, one field after another, each zero-padded:
    fields from "YmdHMSf" with any single-byte separators between them, as strftime writes
    "%Y-%m-%d %H:%M:%S" ("f": the six digits of the microseconds)."""
    ts_us = np.asarray(ts_us, dtype=np.int64)
    seconds, micros = np.divmod(ts_us, 1_000_000)
    first, last = (int(seconds.min()), int(seconds.max())) if len(seconds) else (0, 0)
    if not len(seconds) or last - first >= len(seconds) // 4:
        return _date_time_text(ts_us, fields)
    # Times of a few seconds each (a run's, a simulation's): each second's text is worked out
    # once, then each time's microseconds written over it.
    text = _rows_of(_date_time_text(np.arange(first, last + 1, dtype=np.int64) * 1_000_000, fields), seconds - first)
    offset = 0
    for char in fields:
        if char == "f":
            row_field(text, offset, 6)[:] = row_items(padded(micros, 6))
        offset += _FIELD_WIDTHS.get(char, 1)
    return text


def _date_time_text(ts_us: np.ndarray, fields: str) -> np.ndarray:
    days, of_day = np.divmod(ts_us, _US_PER_DAY)
    first, last = (int(days.min()), int(days.max())) if len(days) else (0, 0)
    if len(days) and last - first < len(days) // 4:
        # times of a few days (a run's, a simulation's): each day's date worked out once
        year, month, day = (field[days - first] for field in _civil(np.arange(first, last + 1)))
    else:
        year, month, day = _civil(days)
    seconds, micros = np.divmod(of_day, 1_000_000)
    values = {"Y": year, "m": month, "d": day, "H": seconds // 3600, "M": seconds // 60 % 60, "S": seconds % 60,
              "f": micros}
    parts = []
    for char in fields:
        if char in values:
            parts.append(padded(values[char], _FIELD_WIDTHS[char]))
        else:
            parts.append(constant(char.encode(), len(ts_us)))
    return _side_by_side(parts, len(ts_us)) if parts else np.zeros((len(ts_us), 0), dtype=np.uint8)


def utc_offsets_us(ts_us: np.ndarray, zone: dt.tzinfo) -> np.ndarray:
    """Each time's UTC offset in `zone`, in µs. Zones change offset on whole UTC hours (every
    zone today; the rare historical exception is looked up row by row), so it is looked up
    once per hour the times span."""
    ts_us = np.asarray(ts_us, dtype=np.int64)
    if not len(ts_us):
        return np.zeros(0, dtype=np.int64)
    hours = np.floor_divide(ts_us, 3_600_000_000)
    first, last = int(hours.min()), int(hours.max())
    span = np.arange(first, last + 1) if last - first < 100_000 else np.unique(hours)

    def offset(us: int) -> int:
        moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=us)
        delta = moment.astimezone(zone).utcoffset()
        assert delta is not None
        return delta // dt.timedelta(microseconds=1)

    starts = [offset(int(h) * 3_600_000_000) for h in span]
    ends = [offset(int(h) * 3_600_000_000 + 3_599_999_999) for h in span]
    table = np.array(starts, dtype=np.int64)
    out = table[np.searchsorted(span, hours)]
    for h, start, end in zip(span.tolist(), starts, ends, strict=True):
        if start != end:  # an offset that changes within the hour: those rows one by one
            at = np.flatnonzero(hours == h)
            out[at] = [offset(int(us)) for us in ts_us[at]]
    return out
