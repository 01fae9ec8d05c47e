"""The keys of many writes at once: the synthetic write events as columns, and each key part
as a vectorised (rows, width) byte matrix, joined into the byte-ordered keys the split model
replays, with no Python per row where the part allows."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from keybench.design.byteorder import (
    STRING_END,
    TABLE_SPACE,
    KeyEncoder,
    bit_reversed_array,
    encode_value,
    generated_values,
    index_key_parts,
)
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.events import (
    SUBDOMAINS,
    WriteEvent,
    device_number,
    fingerprint_shard,
    los_angeles,
    never_accessed_rows,
    subdomain_indices,
    unread_rows,
)
from keybench.design.hashing import bucket_hash, fingerprint64_rows, stable_hashes
from keybench.design.keys import (
    LONG_MAX,
    TS_DIGITS,
    Part,
    separator_after,
)
from keybench.design.uuids import UUID1_EPOCH_OFFSET
from keybench.model.entityvalues import entity_column
from keybench.model.textcolumns import (
    Column,
    Ragged,
    be_bytes,
    constant,
    date_time_text,
    digits,
    distinct_inverse,
    escaped,
    fraction_text,
    from_bytes,
    hex_text,
    inverted,
    join,
    lookup,
    padded,
    take,
    unpadded_digits,
    utc_offsets_us,
    widths_of,
    zone_text,
)

START_US = 1_790_000_000_000_000  # 2026-09-21: the synthetic clock's first write


@dataclass(frozen=True)
class EventColumns:
    """A block of events as arrays: entity, time (µs) and insert number."""

    entity: np.ndarray
    ts_us: np.ndarray
    seq: np.ndarray
    _nulls: dict[Part, np.ndarray | None] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.seq)

    def nulls(self, part: Part) -> np.ndarray | None:
        """Which events leave the part NULL (a boolean array; None: none does), worked out
        once: a NULL_FILTERED index's entries and the key columns both ask."""
        if part not in self._nulls:
            self._nulls[part] = _nulls(part, self)
        return self._nulls[part]

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


# --- vectorised columns: each part as a byte matrix (textcolumns.Column) -----------------------

def _int64_column(values: np.ndarray) -> np.ndarray:
    flipped = np.asarray(values, dtype=np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    return flipped.astype(">u8").view(np.uint8).reshape(-1, 8)


def _byte_groups(offsets: list[int], itemsize: int) -> np.dtype:
    """The UUID's five hex groups as fields at `offsets` of a row of `itemsize` bytes: a
    group is then copied as one item per row, not byte by byte."""
    return np.dtype({"names": [f"g{i}" for i in range(5)], "formats": ["V8", "V4", "V4", "V4", "V12"],
                     "offsets": offsets, "itemsize": itemsize})


_UUID_HEX_GROUPS = _byte_groups([0, 8, 12, 16, 20], 32)  # the 32 hex digits, back to back
_UUID_TEXT_GROUPS = [0, 9, 14, 19, 24]  # where the groups go in the text; dashes between them


def _uuid_text(raw: np.ndarray, suffix: bytes = b"") -> np.ndarray:
    """(rows, 16) UUID bytes as (rows, 36) canonical lower-case text, then `suffix`: each hex
    group copied as one item per row, not byte by byte."""
    out = np.full((len(raw), 36 + len(suffix)), ord("-"), dtype=np.uint8)
    hexed = hex_text(raw).view(_UUID_HEX_GROUPS).ravel()
    text = out.view(_byte_groups(_UUID_TEXT_GROUPS, out.shape[1])).ravel()
    for name in _UUID_HEX_GROUPS.names or ():
        text[name] = hexed[name]
    out[:, 36:] = np.frombuffer(suffix, dtype=np.uint8)
    return out


def _random64(rng: np.random.Generator, rows: int) -> np.ndarray:
    return rng.integers(0, 2**64, size=rows, dtype=np.uint64, endpoint=False)


def _uuid4_raw(rng: np.random.Generator, rows: int) -> np.ndarray:
    # the bytes rng.integers(0, 256, (rows, 16), np.uint8) draws (it takes them four to a
    # 32-bit draw, low byte first), drawn as 32-bit numbers in half the time
    raw = rng.integers(0, 2**32, size=rows * 4, dtype="<u4").view(np.uint8).reshape(rows, 16)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    return raw


def _uuid7_raw(ts_us: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    raw = _uuid4_raw(rng, len(ts_us))
    raw[:, :6] = be_bytes(ts_us // 1000, 6)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x70
    return raw


def _uuid1_raw(ts_us: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    t = ts_us.astype(np.uint64) * np.uint64(10) + np.uint64(UUID1_EPOCH_OFFSET)
    raw = _uuid4_raw(rng, len(ts_us))
    raw[:, 0:4] = be_bytes(t & np.uint64(0xFFFFFFFF), 4)
    raw[:, 4:6] = be_bytes((t >> np.uint64(32)) & np.uint64(0xFFFF), 2)
    raw[:, 6:8] = be_bytes(((t >> np.uint64(48)) & np.uint64(0x0FFF)) | np.uint64(0x1000), 2)
    raw[:, 10] |= 0x01  # multicast bit of the node: not a MAC, as keys.uuid1_at sets it
    return raw


def _uuid4_half(rng: np.random.Generator, rows: int, low: bool) -> np.ndarray:
    """uuids.uuid4_high / uuid4_low for many rows: 64 random bits, the version or variant set."""
    bits = _random64(rng, rows)
    if low:
        bits = (bits >> np.uint64(2)) | np.uint64(0b10 << 62)
    else:
        bits = (bits & ~np.uint64(0xF000)) | np.uint64(0x4000)
    return bits.view(np.int64)


def _text(values: list[str | bytes]) -> Column:
    return from_bytes([v if isinstance(v, bytes) else v.encode() for v in values])


def _hash_buckets(part: Part, events: EventColumns) -> np.ndarray:
    """A stable-hash bucket part (shard, salt) for a block of events."""
    hashes = bucket_hash(*(getattr(events, field) for field in part.hashed))
    return (hashes % np.uint64(len(part.buckets))).astype(np.int64)


def _farm_shards(ts_us: np.ndarray, count: int) -> np.ndarray:
    """MOD(FARM_FINGERPRINT(CAST(ts AS STRING)), count) as the database computes it
    (events.farm_fingerprint_shard), for many times: the text built and hashed in numpy."""
    keys, lengths = join(spanner_timestamp_text(ts_us), len(ts_us))
    matrix = keys.view(np.uint8).reshape(len(keys), keys.dtype.itemsize)
    fingerprints = np.zeros(len(keys), dtype=np.uint64)
    for width in np.flatnonzero(np.bincount(lengths)).tolist():  # a few widths: with or without a fraction
        at = lengths == width
        fingerprints[at] = fingerprint64_rows(take(matrix[:, :width], at))
    return fingerprint_shard(fingerprints, count)


def spanner_timestamp_text(ts_us: np.ndarray) -> list[Column]:
    """events.spanner_timestamp_text for many times, as columns: the local date and time, the
    fraction (none, milliseconds or microseconds) and the UTC offset in hours."""
    offsets = utc_offsets_us(ts_us, los_angeles())
    local = ts_us + offsets
    return [date_time_text(local, "Y-m-d H:M:S"), fraction_text(np.mod(local, 1_000_000)), zone_text(offsets)]


def _per_event(part: Part, events: EventColumns, rng: random.Random) -> list:
    return [part.compute(events.event(i), rng) for i in range(len(events))]


# Parts whose value is never NULL; any other part's NULLs are found one event at a time.
_NEVER_NULL = frozenset({"user", "ts", "sequence", "bit_reversed_sequence", "shard", "uuid4_string", "uuid4_bytes",
                         "uuid1", "uuid7", "uuid4_high", "uuid4_low", "farm_fingerprint_shard", "label", "category",
                         "zipf", "fill"})


def _nulls(part: Part, events: EventColumns) -> np.ndarray | None:
    """Which writes leave the part NULL (a boolean array); None: none does."""
    if part.name in _NEVER_NULL:
        return None
    if part.name == "last_access":
        return never_accessed_rows(events.entity, events.ts_us)
    if part.name == "unread":
        return ~unread_rows(events.entity, events.ts_us)
    return np.fromiter((v is None for v in _per_event(part, events, random.Random(0))), dtype=bool, count=len(events))


def _nullable(column: np.ndarray, nulls: np.ndarray | None) -> Column:
    """A column's value where set, and NULL (one 0x00 byte, which sorts first) where not."""
    if nulls is None or not nulls.any():
        return column
    matrix = np.array(column)
    matrix[nulls, 0] = 0
    return Ragged(matrix, np.where(nulls, 1, matrix.shape[1]))


def spanner_column(part: Part, events: EventColumns, strategy, seed: int, rng: np.random.Generator) -> Column:
    """One Spanner key column, ascending encoding (the caller inverts DESC columns)."""
    column = _spanner_values(part, events, strategy, rng)
    if column is not None:
        return column
    values = _per_event(part, events, random.Random(seed))
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return _int64_column(np.array(values, dtype=np.int64))
    return from_bytes([encode_value(v) for v in values])


def _spanner_values(part: Part, events: EventColumns, strategy, rng: np.random.Generator) -> Column | None:
    """A part's column computed on whole arrays; None: a part with no such form. The parts
    below `typed` are so computed only with the values their own vocabulary gives (no `type`)."""
    name, rows = part.name, len(events)
    integers = {"user": lambda: events.entity, "ts": lambda: events.ts_us, "sequence": lambda: events.seq,
                "bit_reversed_sequence": lambda: bit_reversed_array(events.seq),
                "generated": lambda: generated_values(strategy.ddl, events.seq),
                "shard": lambda: _hash_buckets(part, events)}
    typed = {"uuid4_high": lambda: _uuid4_half(rng, rows, low=False),
             "uuid4_low": lambda: _uuid4_half(rng, rows, low=True),
             "farm_fingerprint_shard": lambda: _farm_shards(events.ts_us, (len(part.buckets) + 1) // 2)}
    if name in integers:
        return _int64_column(integers[name]())
    if part.sql_type is None and name in typed:
        return _int64_column(typed[name]())
    if part.of_columns is not None:
        return _int64_column(part.of_columns(events.entity, events.ts_us, events.seq))
    if name in ("uuid4_string", "generated_uuid"):  # GENERATE_UUID() makes version-4 UUIDs too
        return _uuid_text(_uuid4_raw(rng, rows), STRING_END)
    if name == "uuid7":
        return _uuid_text(_uuid7_raw(events.ts_us, rng), STRING_END)
    if name == "uuid1":
        return _uuid_text(_uuid1_raw(events.ts_us, rng), STRING_END)
    if name == "uuid4_bytes":
        return escaped(_uuid4_raw(rng, rows))
    if part.sql_type is not None:
        return None
    if name == "label":
        return constant(encode_value(part.buckets[0]), rows)
    if name == "last_access":
        return _nullable(_int64_column(events.ts_us), events.nulls(part))
    if name == "unread":
        return _nullable(constant(encode_value(True), rows), events.nulls(part))
    return None


def _entity_lookup(part: Part, events: EventColumns) -> Column:
    """A part that depends on the entity alone: computed once per entity, then looked up."""
    entities, where = distinct_inverse(events.entity)
    return entity_column(part, entities, where)


def bigtable_column(part: Part, events: EventColumns, seed: int, width: int | None) -> Column:
    """One Bigtable row-key segment as bytes."""
    name = part.name
    if name == "ts" and (column := digits(events.ts_us, TS_DIGITS)) is not None:
        return column
    if name == "reverse_ts" and (column := digits(LONG_MAX - events.ts_us, 19)) is not None:
        return column
    if name == "sequence" and width and (column := digits(events.seq, width)) is not None:
        return column
    if name == "reversed_sequence" and width and (column := digits(events.seq, width)) is not None:
        return column[:, ::-1]
    if name == "number" and len(events) and events.seq.min() >= 0:
        return unpadded_digits(events.seq)
    if name == "device":
        return hex_text(be_bytes(device_number(events.entity.astype(np.uint64)), 4))
    if name == "device_bytes":
        return be_bytes(device_number(events.entity.astype(np.uint64)), 4)
    if name == "ts_bytes" and len(events) and events.ts_us.min() >= 0:
        return be_bytes(events.ts_us, 8)
    if name == "salt":
        return padded(_hash_buckets(part, events), len(part.buckets[0]))
    if name == "hash":
        return hex_text(be_bytes(stable_hashes("row", events.entity, events.ts_us), 8))
    if name == "label":
        return constant(str(part.buckets[0]).encode(), len(events))
    if name == "subdomain":
        return lookup([s.encode() for s in SUBDOMAINS], subdomain_indices(events.ts_us).astype(np.int64))
    if name == "date_ts":
        return date_time_text(events.ts_us, "YmdHMSf")
    if name == "interval" and part.interval_us:
        return date_time_text(events.ts_us - events.ts_us % part.interval_us, "YmdHMS")
    if name in ("device_type", "tenant", "domain", "reverse_domain"):
        return _entity_lookup(part, events)
    return _text(_per_event(part, events, random.Random(seed)))


Spaces = dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]


def encode_events(strategy, events: EventColumns, seed: int, held: dict[str, np.ndarray] | None = None) -> Spaces:
    """Every key space's key bytes for a block of events: {space: (keys, lengths, split-unit
    lengths)}. A NULL_FILTERED index holds the rows `held` names (index_rows, computed when not given)."""
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
                    columns.append(constant(sep.encode(), rows))
        return {TABLE_SPACE: (*join(columns, rows), None)}
    held = index_rows(strategy, events) if held is None else held
    unit_columns = KeyEncoder(strategy)._unit_columns
    by_column = {}
    for part in strategy.parts:
        column = spanner_column(part, events, strategy, seed, rng)
        by_column[part.column] = inverted(column) if part.descending else column
    table_columns = [by_column[p.column] for p in strategy.parts]
    out = {TABLE_SPACE: (*join(table_columns, rows), _unit(table_columns, unit_columns.get(TABLE_SPACE), rows))}
    for index in strategy.indexes:
        own = {p.column for p in index.parts}
        columns = []
        for part in index_key_parts(strategy, index):
            if part.column in own:
                column = spanner_column(part, events, strategy, seed, rng)
                columns.append(inverted(column) if part.descending else column)
            else:
                columns.append(by_column[part.column])
        kept = held.get(index.name)
        if kept is not None:
            columns = [take(c, kept) for c in columns]
        count = rows if kept is None else int(kept.sum())
        out[index.name] = (*join(columns, count), _unit(columns, unit_columns.get(index.name), count))
    return out


def _unit(columns: list[Column], root_columns: int | None, rows: int) -> np.ndarray | None:
    """Split-unit lengths of an interleaved space (its root key's columns); None: whole keys."""
    if root_columns is None:
        return None
    return sum((widths_of(c, rows) for c in columns[:root_columns]), np.zeros(rows, dtype=np.int64)).astype(np.uint16)


def index_rows(strategy, events: EventColumns) -> dict[str, np.ndarray]:
    """Per NULL_FILTERED index, the rows that have an entry in it (a boolean mask): those
    whose index key columns are all set."""
    out = {}
    for index in strategy.indexes:
        if index.null_filtered:
            nulls = np.zeros(len(events), dtype=bool)
            for part in index.parts:
                part_nulls = events.nulls(part)
                if part_nulls is not None:
                    nulls |= part_nulls
            out[index.name] = ~nulls
    return out


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
