"""The keys of many writes at once: the synthetic write events as columns, and each key part
as a vectorised (rows, width) byte matrix, joined into the byte-ordered keys the split model
replays, with no Python per row where the part allows."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from keybench.design.byteorder import (
    STRING_END,
    TABLE_SPACE,
    KeyEncoder,
    bit_reversed_array,
    encode_value,
    generated_values,
    index_key_parts,
    invert,
)
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.events import WriteEvent, device_number
from keybench.design.hashing import bucket_hash, stable_hashes
from keybench.design.keys import (
    LONG_MAX,
    TS_DIGITS,
    Part,
    separator_after,
)
from keybench.design.uuids import UUID1_EPOCH_OFFSET

START_US = 1_790_000_000_000_000  # 2026-09-21: the synthetic clock's first write


@dataclass(frozen=True)
class EventColumns:
    """A block of events as arrays: entity, time (µs) and insert number."""

    entity: np.ndarray
    ts_us: np.ndarray
    seq: np.ndarray

    def __len__(self) -> int:
        return len(self.seq)

    def event(self, i: int) -> WriteEvent:
        return WriteEvent(int(self.entity[i]), int(self.ts_us[i]), "", int(self.seq[i]))


def make_events(rows: int, population: int, seed: int, rate_per_s: float, first: int = 0,
                skew: Skew = UNIFORM) -> EventColumns:
    """EventColumns first+1..first+rows of the synthetic workload: entities drawn from the
    population, uniformly or with `skew` (entity 1 the heaviest)."""
    rng = np.random.default_rng([seed, first])
    seq = np.arange(first + 1, first + rows + 1, dtype=np.int64)
    step_us = 1_000_000 / rate_per_s
    ts = START_US + np.floor((seq - 1) * step_us).astype(np.int64)
    if skew.exponent is None:
        entity = rng.integers(1, population + 1, size=rows, dtype=np.int64)
    else:
        entity = 1 + skew.indices(rng.random(rows), population)
    return EventColumns(entity, ts, seq)


# --- vectorised columns: each part as an (rows, width) uint8 matrix ---------------------------

def _int64_column(values: np.ndarray) -> np.ndarray:
    flipped = np.asarray(values, dtype=np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    return flipped.astype(">u8").view(np.uint8).reshape(-1, 8)


_DIGIT_GROUPS = np.array([f"{i:04d}".encode() for i in range(10_000)]).view(np.uint32)  # "0000".."9999" as 4 bytes


def _digits(values: np.ndarray, width: int) -> np.ndarray | None:
    """Zero-padded decimal text, or None when a value needs more than `width` digits."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and (values.min() < 0 or values.max() >= 10**width):
        return None
    groups = -(-width // 4)
    text = np.empty((len(values), groups), dtype=np.uint32)  # four digits a group, written as text
    for g in range(groups - 1, -1, -1):
        values, group = np.divmod(values, 10_000)
        text[:, g] = _DIGIT_GROUPS[group]
    return text.view(np.uint8)[:, 4 * groups - width:]


_HEX_PAIRS = np.array([f"{i:02x}".encode() for i in range(256)]).view(np.uint16)  # "00".."ff" as 2 bytes
# The hex text of two bytes b0, b1 (at index b0 + 256 b1) as 4 bytes: half the lookups of _HEX_PAIRS.
_HEX_QUADS = np.array([f"{i & 255:02x}{i >> 8:02x}".encode() for i in range(1 << 16)]).view(np.uint32)


def _hex(raw: np.ndarray) -> np.ndarray:
    """(rows, width) bytes as (rows, 2 width) lower-case hex text."""
    raw = np.ascontiguousarray(raw)
    if raw.shape[1] % 2:
        return _HEX_PAIRS[raw].view(np.uint8)
    return _HEX_QUADS[raw.view("<u2")].view(np.uint8)


def _byte_groups(offsets: list[int], itemsize: int) -> np.dtype:
    """The UUID's five hex groups as fields at `offsets` of a row of `itemsize` bytes: a
    group is then copied as one item per row, not byte by byte."""
    return np.dtype({"names": [f"g{i}" for i in range(5)], "formats": ["V8", "V4", "V4", "V4", "V12"],
                     "offsets": offsets, "itemsize": itemsize})


_UUID_HEX_GROUPS = _byte_groups([0, 8, 12, 16, 20], 32)  # the 32 hex digits, back to back
_UUID_TEXT_GROUPS = [0, 9, 14, 19, 24]  # where the groups go in the text; dashes between them


def _uuid_text(raw: np.ndarray, suffix: bytes = b"") -> np.ndarray:
    """(rows, 16) UUID bytes as (rows, 36) canonical lower-case text, then `suffix`."""
    out = np.full((len(raw), 36 + len(suffix)), ord("-"), dtype=np.uint8)
    hexed = _hex(raw).view(_UUID_HEX_GROUPS).ravel()
    text = out.view(_byte_groups(_UUID_TEXT_GROUPS, out.shape[1])).ravel()
    for name in _UUID_HEX_GROUPS.names or ():
        text[name] = hexed[name]
    out[:, 36:] = np.frombuffer(suffix, dtype=np.uint8)
    return out


def _be_bytes(values: np.ndarray, width: int) -> np.ndarray:
    return np.asarray(values, dtype=np.uint64).astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - width:]


def _uuid4_raw(rng: np.random.Generator, rows: int) -> np.ndarray:
    # the bytes rng.integers(0, 256, (rows, 16), np.uint8) draws (it takes them four to a
    # 32-bit draw, low byte first), drawn as 32-bit numbers in half the time
    raw = rng.integers(0, 2**32, size=rows * 4, dtype="<u4").view(np.uint8).reshape(rows, 16)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    return raw


def _uuid7_raw(ts_us: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    raw = _uuid4_raw(rng, len(ts_us))
    raw[:, :6] = _be_bytes(ts_us // 1000, 6)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x70
    return raw


def _uuid1_raw(ts_us: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    t = ts_us.astype(np.uint64) * np.uint64(10) + np.uint64(UUID1_EPOCH_OFFSET)
    raw = _uuid4_raw(rng, len(ts_us))
    raw[:, 0:4] = _be_bytes(t & np.uint64(0xFFFFFFFF), 4)
    raw[:, 4:6] = _be_bytes((t >> np.uint64(32)) & np.uint64(0xFFFF), 2)
    raw[:, 6:8] = _be_bytes(((t >> np.uint64(48)) & np.uint64(0x0FFF)) | np.uint64(0x1000), 2)
    raw[:, 10] |= 0x01  # multicast bit of the node: not a MAC, as keys.uuid1_at sets it
    return raw


def _text(values: list[str | bytes]) -> np.ndarray | list[bytes]:
    return _column([v if isinstance(v, bytes) else v.encode() for v in values])


def _column(encoded: list[bytes]) -> np.ndarray | list[bytes]:
    """Per-row bytes as a matrix when they share one width, else the list itself."""
    widths = {len(b) for b in encoded}
    if len(widths) == 1:
        return np.frombuffer(b"".join(encoded), dtype=np.uint8).reshape(len(encoded), widths.pop())
    return encoded


def _hash_buckets(part: Part, events: EventColumns) -> np.ndarray:
    """A stable-hash bucket part (shard, salt) for a block of events."""
    hashes = bucket_hash(*(getattr(events, field) for field in part.hashed))
    return (hashes % np.uint64(len(part.buckets))).astype(np.int64)


def _per_event(part: Part, events: EventColumns, rng: random.Random) -> list:
    return [part.compute(events.event(i), rng) for i in range(len(events))]


def spanner_column(part: Part, events: EventColumns, strategy, seed: int, rng: np.random.Generator):
    """One Spanner key column, ascending encoding (the caller inverts DESC columns)."""
    name = part.name
    if name == "user":
        return _int64_column(events.entity)
    if name == "ts":
        return _int64_column(events.ts_us)
    if name == "sequence":
        return _int64_column(events.seq)
    if name == "bit_reversed_sequence":
        return _int64_column(bit_reversed_array(events.seq))
    if name == "generated":
        return _int64_column(generated_values(strategy.ddl, events.seq))
    if name in ("uuid4_string", "generated_uuid"):  # GENERATE_UUID() makes version-4 UUIDs too
        return _uuid_text(_uuid4_raw(rng, len(events)), STRING_END)
    if name == "uuid7":
        return _uuid_text(_uuid7_raw(events.ts_us, rng), STRING_END)
    if name == "uuid1":
        return _uuid_text(_uuid1_raw(events.ts_us, rng), STRING_END)
    if name == "shard":
        return _int64_column(_hash_buckets(part, events))
    if name == "uuid4_bytes":
        return _column([encode_value(r.tobytes()) for r in _uuid4_raw(rng, len(events))])
    values = _per_event(part, events, random.Random(seed))
    if values and all(isinstance(v, int) for v in values):
        return _int64_column(np.array(values, dtype=np.int64))
    return _column([encode_value(v) for v in values])


def _entity_lookup(part: Part, events: EventColumns) -> np.ndarray | list[bytes]:
    """A part that depends on the entity alone: computed once per entity, then looked up."""
    entities, where = np.unique(events.entity, return_inverse=True)
    values = [part.compute(WriteEvent(int(e), 0, "", 0), random.Random(0)).encode() for e in entities]
    column = _column(values)
    if isinstance(column, np.ndarray):
        return column[where]
    return [values[i] for i in where]


def bigtable_column(part: Part, events: EventColumns, seed: int, width: int | None):
    """One Bigtable row-key segment as bytes."""
    name = part.name
    if name == "ts":
        return _digits(events.ts_us, TS_DIGITS)
    if name == "reverse_ts":
        return _digits(LONG_MAX - events.ts_us, 19)
    if name == "sequence" and width and (column := _digits(events.seq, width)) is not None:
        return column
    if name == "reversed_sequence" and width and (column := _digits(events.seq, width)) is not None:
        return column[:, ::-1]
    if name == "device":
        return _hex(_be_bytes(device_number(events.entity.astype(np.uint64)), 4))
    if name == "device_bytes":
        return _be_bytes(device_number(events.entity.astype(np.uint64)), 4)
    if name == "salt":
        return _digits(_hash_buckets(part, events), len(part.buckets[0]))
    if name == "hash":
        return _hex(_be_bytes(stable_hashes("row", events.entity, events.ts_us), 8))
    if name in ("device_type", "tenant", "domain", "reverse_domain"):
        return _entity_lookup(part, events)
    return _text(_per_event(part, events, random.Random(seed)))


def _rows_of(column, rows: int) -> list[bytes]:
    if isinstance(column, np.ndarray):
        flat = column.tobytes()
        w = column.shape[1]
        return [flat[i * w:(i + 1) * w] for i in range(rows)]
    return column


def _side_by_side(columns: list[np.ndarray], rows: int) -> np.ndarray:
    """(rows, width) byte matrices as one: each column copied as one item a row (a void
    field at its offset), not byte by byte as np.hstack copies them."""
    total = sum(c.shape[1] for c in columns)
    matrix = np.empty((rows, total), dtype=np.uint8)
    offset = 0
    for column in columns:
        width = column.shape[1]
        if width and rows:
            field = np.dtype({"names": ["c"], "formats": [f"V{width}"], "offsets": [offset], "itemsize": total})
            source = column if column.strides[1] == 1 else np.ascontiguousarray(column)
            matrix.view(field).ravel()["c"] = source.view(f"V{width}").ravel()
        offset += width
    return matrix


def _join(columns: list, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns side by side: (keys 'S' array, true lengths)."""
    if all(isinstance(c, np.ndarray) for c in columns):
        # one column is its own key matrix: no copy (view() needs it contiguous, as a fresh column is)
        matrix = np.ascontiguousarray(columns[0]) if len(columns) == 1 else _side_by_side(columns, rows)
        width = matrix.shape[1]
        return matrix.view(f"S{width}").ravel(), np.full(rows, width, dtype=np.uint16)
    per_row = [b"".join(pieces) for pieces in zip(*(_rows_of(c, rows) for c in columns), strict=True)]
    lengths = np.fromiter(map(len, per_row), dtype=np.uint16, count=rows)
    return np.array(per_row, dtype=f"S{max(1, int(lengths.max()))}"), lengths


def _widths(columns: list, rows: int) -> np.ndarray:
    """Per row, the summed byte width of some leading columns: a split unit's length."""
    total = np.zeros(rows, dtype=np.int64)
    for c in columns:
        total += c.shape[1] if isinstance(c, np.ndarray) else np.fromiter(map(len, c), dtype=np.int64, count=rows)
    return total.astype(np.uint16)


def _separator_column(text: str, rows: int) -> np.ndarray:
    """The same bytes on every row, as a read-only view: no copy until the columns are joined."""
    encoded = np.frombuffer(text.encode(), dtype=np.uint8)
    return np.broadcast_to(encoded[None, :], (rows, len(encoded)))


def encode_events(strategy, events: EventColumns,
                  seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Every key space's key bytes for a block of events: {space: (keys, lengths, split-unit lengths)}."""
    rng = np.random.default_rng([seed, int(events.seq[0]) if len(events) else 0])
    rows = len(events)
    if strategy.backend == "bigtable":
        columns = []
        specs = _bigtable_widths(strategy)
        for i, part in enumerate(strategy.parts):
            columns.append(bigtable_column(part, events, seed, specs[i]))
            if i < len(strategy.parts) - 1:
                sep = separator_after(part, strategy.separator)
                if sep:
                    columns.append(_separator_column(sep, rows))
        return {TABLE_SPACE: (*_join(columns, rows), None)}
    unit_columns = KeyEncoder(strategy)._unit_columns
    by_column = {}
    for part in strategy.parts:
        column = spanner_column(part, events, strategy, seed, rng)
        by_column[part.column] = _descending(column) if part.descending else column
    table_columns = [by_column[p.column] for p in strategy.parts]
    out = {TABLE_SPACE: (*_join(table_columns, rows), _unit(table_columns, unit_columns.get(TABLE_SPACE), rows))}
    for index in strategy.indexes:
        held = {p.column for p in index.parts}
        columns = []
        for part in index_key_parts(strategy, index):
            if part.column in held:
                column = spanner_column(part, events, strategy, seed, rng)
                columns.append(_descending(column) if part.descending else column)
            else:
                columns.append(by_column[part.column])
        out[index.name] = (*_join(columns, rows), _unit(columns, unit_columns.get(index.name), rows))
    return out


def _unit(columns: list, root_columns: int | None, rows: int) -> np.ndarray | None:
    """Split-unit lengths of an interleaved space (its root key's columns); None: whole keys."""
    return None if root_columns is None else _widths(columns[:root_columns], rows)


def index_rows(strategy, events: EventColumns) -> dict[str, np.ndarray]:
    """Per NULL_FILTERED index, the rows that have an entry in it (a boolean mask)."""
    return {index.name: np.fromiter((index.holds_write(events.event(i)) for i in range(len(events))),
                                    dtype=bool, count=len(events))
            for index in strategy.indexes if index.null_filtered}


def _descending(column):
    return 255 - column if isinstance(column, np.ndarray) else [invert(b) for b in column]


def _bigtable_widths(strategy) -> list[int | None]:
    """The text width of each segment of insert number 1: a sequence part's zero padding."""
    probe = WriteEvent(1, START_US, "", 1)
    return [len(p.compute(probe, random.Random(0))) for p in strategy.parts]


def per_event_keys(strategy, events: EventColumns, seed: int) -> dict[str, list[bytes]]:
    """The same key bytes through the real per-event path: KeyGenerator.key and KeyEncoder,
    with a generated column filled as the sequence would fill it."""
    generator, encoder = strategy.key_generator(seed), KeyEncoder(strategy)
    made = generated_values(strategy.ddl, events.seq) if any(p.generated for p in strategy.parts) else None
    out: dict[str, list[bytes]] = {}
    for i in range(len(events)):
        event = events.event(i)
        key = generator.key(event)
        if made is not None:
            key = tuple(int(made[i]) if p.generated else v for p, v in zip(strategy.parts, key, strict=True))
        for space, encoded, _ in encoder.write_keys(key, event):
            out.setdefault(space, []).append(encoded)
    return out
