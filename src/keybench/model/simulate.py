"""Simulation: a strategy's key stream made by its key generator alone, then modelled.

No database: `rows` events with entities drawn from a population, timestamps advancing at
a steady synthetic rate and insert numbers 1..rows; the keys encoded as the database
orders them (`design/byteorder.py`); a sample of the strategy's reads built by its read plans;
the split model run over it all (`splitmodel.py`).

Key generation is vectorised with numpy for the common parts (times, users, devices,
insert numbers, bit-reversed and generated sequences, UUID text); any other part goes
through the real per-event `Part.compute`, one Python call per row. The vectorised parts
produce exactly the bytes the per-event path produces for the same event (UUID parts: the
same format and ordering from a different random stream); tests compare the two.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

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
    prefix_successor,
)
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.events import WriteEvent, device_number
from keybench.design.hashing import bucket_hash, stable_hashes
from keybench.design.keys import (
    DEFAULT_POPULATION,
    DEFAULT_SEED,
    LONG_MAX,
    MAX_POPULATION,
    TS_DIGITS,
    Part,
    preload_keys,
    separator_after,
)
from keybench.design.plans import (
    DEFAULT_LATEST_N,
    DEFAULT_NUMBER_SPAN,
    DEFAULT_WINDOW_S,
    strategy_plans,
)
from keybench.design.uuids import UUID1_EPOCH_OFFSET
from keybench.errors import check_range
from keybench.model.keystream import KeyStream
from keybench.model.params import (
    DEFAULT_RATE_PER_S,
    DEFAULT_READS,
    MAX_READS,
    MAX_ROWS,
    SplitParams,
)
from keybench.model.splitmodel import ModelResult, SpaceModel
from keybench.model.verdict import judge

START_US = 1_790_000_000_000_000  # 2026-09-21: the synthetic clock's first write
CHUNK_ROWS = 1_000_000  # rows generated at a time: bounds the temporary arrays


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
    for name in _UUID_HEX_GROUPS.names:
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


def encode_events(strategy, events: EventColumns, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
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


# --- reads -------------------------------------------------------------------------------------

def _point_interval(strategy, key: bytes) -> tuple[bytes, bytes]:
    return (key, key + b"\x00") if strategy.backend == "bigtable" else (key, prefix_successor(key))


@dataclass(frozen=True)
class SampleRead:
    """One sample read, before it is built: its operation, the insert (0-based) at whose
    time it runs, and the earlier row whose key or entity it asks for (None: neither)."""

    operation: str
    position: int
    row: int | None


def sample_read_plan(strategy, rows: int, per_operation: int, seed: int, after_fraction: float = 0.1) -> list[SampleRead]:
    """`per_operation` reads of every read operation, at evenly spread positions after the
    first `after_fraction` of the run, each asking for a row drawn among the earlier ones."""
    if per_operation <= 0 or rows == 0:
        return []
    rng = random.Random(f"reads:{seed}")
    positions = np.linspace(int(rows * after_fraction), rows - 1, per_operation).astype(np.int64)
    return [SampleRead(op, int(p), rng.randrange(p + 1) if op in ("point_read", "latest_n", "prefix_scan") else None)
            for op in strategy_plans(strategy, DEFAULT_LATEST_N) for p in positions]


def build_reads(strategy, plan: list[SampleRead], key_of, entity_of, ts_us_of, window_s: float = DEFAULT_WINDOW_S,
                number_span: int = DEFAULT_NUMBER_SPAN):
    """(time s, intervals, space, operation) of each planned read, built by the strategy's
    read plan as a live run would; `key_of(row)` is a row's table key, `entity_of(row)` its
    user or device, `ts_us_of(position)` an insert's time."""
    encoder, plans = KeyEncoder(strategy), strategy_plans(strategy, DEFAULT_LATEST_N)
    for read in plan:
        op, p = read.operation, read.position
        now_us = int(ts_us_of(p))
        t_s = float(now_us) / 1e6
        if op == "point_read":
            yield t_s, [_point_interval(strategy, key_of(read.row))], TABLE_SPACE, op
            continue
        if op in ("latest_n", "prefix_scan"):
            request = plans[op].build(int(entity_of(read.row)))
        elif op == "time_window":
            request = plans[op].build(now_us - int(window_s * 1e6), now_us)
        else:
            seq = p + 1
            request = plans[op].build(max(1, seq - number_span + 1), seq)
        space, intervals = encoder.read_intervals(request)
        yield t_s, intervals, space, op


def add_sample_reads(stream: KeyStream, strategy, events: EventColumns, keys: np.ndarray, lengths: np.ndarray,
                     per_operation: int, seed: int, window_s: float = DEFAULT_WINDOW_S,
                     number_span: int = DEFAULT_NUMBER_SPAN,
                     after_fraction: float = 0.1) -> None:
    """The sample reads (sample_read_plan) of a run whose events and table keys are all at hand."""
    plan = sample_read_plan(strategy, len(events), per_operation, seed, after_fraction)
    for t_s, intervals, space, op in build_reads(strategy, plan, lambda row: keys[row].ljust(int(lengths[row]), b"\x00"),
                                                 lambda row: events.entity[row], lambda p: events.ts_us[p],
                                                 window_s, number_span):
        stream.add_read(t_s, intervals, space, op)


# --- the whole simulation ------------------------------------------------------------------------

def _initial_rows(strategy, seed: int, population: int) -> KeyStream:
    """A migration's source rows, the data the table starts with, as a stream's initial rows."""
    stream = KeyStream()
    if strategy.preload:
        spec = strategy.preload
        keys = preload_keys(spec["keys"], spec["rows"], seed, tuple(spec.get("with_keys", ())))
        stream.record_initial(KeyEncoder(strategy), [((k,), WriteEvent(i % population + 1, START_US - 86_400_000_000 + i * 1000,
                                                                          "", 0)) for i, k in enumerate(keys)])
    return stream


def _chunks(strategy, rows: int, seed: int, population: int, rate_per_s: float, skew: Skew):
    """(events, {space: (times, keys, lengths, units)}) per block of CHUNK_ROWS inserts."""
    for first in range(0, rows, CHUNK_ROWS):
        events = make_events(min(CHUNK_ROWS, rows - first), population, seed, rate_per_s, first, skew)
        times = events.ts_us / 1e6
        held = index_rows(strategy, events)
        spaces = {}
        for space, (keys, lengths, units) in encode_events(strategy, events, seed).items():
            kept = held.get(space, slice(None))  # a NULL_FILTERED index: the rows with its key columns set
            spaces[space] = (times[kept], keys[kept], lengths[kept], None if units is None else units[kept])
        yield events, spaces


def simulate_stream(strategy, rows: int, seed: int = DEFAULT_SEED, population: int = DEFAULT_POPULATION,
                    rate_per_s: float = DEFAULT_RATE_PER_S, reads_per_operation: int = DEFAULT_READS,
                    read_window_s: float = DEFAULT_WINDOW_S, skew: Skew = UNIFORM) -> KeyStream:
    """The key stream a run of `rows` inserts at a steady rate would write, plus sample reads
    (a time_window read covers the last `read_window_s` seconds), held in memory."""
    stream = _initial_rows(strategy, seed, population)
    entities = []
    for events, spaces in _chunks(strategy, rows, seed, population, rate_per_s, skew):
        for space, (times, keys, lengths, units) in spaces.items():
            stream.add_writes(space, times, keys, lengths, units)
        entities.append(events.entity.astype(np.int32))
    if reads_per_operation and entities:
        entity = np.concatenate(entities)
        # Times and insert numbers follow from the position: rebuilt, not kept per chunk.
        seq = np.arange(1, rows + 1, dtype=np.int64)
        events = EventColumns(entity, START_US + np.floor((seq - 1) * (1_000_000 / rate_per_s)).astype(np.int64), seq)
        # The stream already holds the table keys; reuse its arrays rather than joining the chunks again.
        _, keys, lengths = stream.writes(TABLE_SPACE)
        add_sample_reads(stream, strategy, events, keys, lengths, reads_per_operation, seed, read_window_s)
    return stream


def _space_writes(strategy, rows: int, seed: int, population: int, rate_per_s: float, skew: Skew) -> dict[str, int]:
    """Writes per key space: every insert writes the table and each index, except a
    NULL_FILTERED index, whose entries are counted in a first pass over the events."""
    counts = {TABLE_SPACE: rows, **{index.name: 0 if index.null_filtered else rows for index in strategy.indexes}}
    if any(index.null_filtered for index in strategy.indexes):
        for first in range(0, rows, CHUNK_ROWS):
            events = make_events(min(CHUNK_ROWS, rows - first), population, seed, rate_per_s, first, skew)
            for name, mask in index_rows(strategy, events).items():
                counts[name] += int(mask.sum())
    return counts


def simulate_model(strategy, rows: int, params: SplitParams, seed: int = DEFAULT_SEED,
                   population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                   reads_per_operation: int = DEFAULT_READS, read_window_s: float = DEFAULT_WINDOW_S,
                   skew: Skew = UNIFORM) -> ModelResult:
    """The split model over the stream `simulate_stream` would make, generated and modelled
    a block of inserts at a time: memory stays bounded whatever `rows` is."""
    initial = _initial_rows(strategy, seed, population)
    writes = _space_writes(strategy, rows, seed, population, rate_per_s, skew)
    models: dict[str, SpaceModel] = {}
    plan = sample_read_plan(strategy, rows, reads_per_operation, seed)
    wanted = {r.row for r in plan if r.row is not None}
    rows_at: dict[int, tuple[bytes, int]] = {}  # the rows reads ask for: table key and entity
    step_us = 1_000_000 / rate_per_s
    for events, spaces in _chunks(strategy, rows, seed, population, rate_per_s, skew):
        first = int(events.seq[0]) - 1
        _, keys, lengths, _ = spaces[TABLE_SPACE]
        for row in sorted(r for r in wanted if first <= r < first + len(events)):
            rows_at[row] = (keys[row - first].ljust(int(lengths[row - first]), b"\x00"), int(events.entity[row - first]))
        for space in spaces:
            if space not in models and writes.get(space, 0):
                models[space] = SpaceModel(params, space, writes[space], initial.initial(space))
        due = [r for r in plan if first <= r.position < first + len(events)]
        for t_s, intervals, space, op in build_reads(strategy, due, lambda row: rows_at[row][0],
                                                     lambda row: rows_at[row][1],
                                                     lambda p: START_US + int(np.floor(p * step_us)), read_window_s):
            if space in models:
                models[space].add_reads([(t_s, intervals, op)])
        for space, (times, keys, lengths, units) in spaces.items():
            if space in models and len(times):
                models[space].add(times, keys, lengths, units)
    result = ModelResult(nodes=params.nodes)
    for space, model in models.items():
        result.spaces[space] = model.finish()
    return result


def simulate_strategy(strategy, rows: int, nodes: int | None = None, seed: int = DEFAULT_SEED,
                      population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                      reads_per_operation: int = DEFAULT_READS,
                      params: SplitParams | None = None, read_window_s: float | None = None,
                      skew: Skew = UNIFORM) -> ModelResult:
    """Generates `rows` writes with the strategy's key generator (no database), a sample of its
    reads, and runs the split model. `params` overrides the model's defaults; `nodes`, when
    given, replaces its node count.

    The model's ranges are scaled to the run (see SplitParams), so a read's span of time is
    scaled too: by default a time_window read covers a tenth of one model window's writes,
    as 2 s of writes are a sliver of a multi-GB split in production."""
    check_range("--rows", rows, 1, MAX_ROWS)
    check_range("--population", population, 1, MAX_POPULATION)
    check_range("--reads", reads_per_operation, 0, MAX_READS)
    params = params or SplitParams()
    if nodes is not None:
        params = replace(params, nodes=nodes)
    params.validate()
    if read_window_s is None:
        read_window_s = params.window_size(rows) / 10 / rate_per_s
    return simulate_model(strategy, rows, params, seed, population, rate_per_s, reads_per_operation, read_window_s, skew)



def simulate_verdicts(chosen, rows: int, seed: int = DEFAULT_SEED, population: int = DEFAULT_POPULATION,
                      params: SplitParams | None = None, reads_per_operation: int = DEFAULT_READS,
                      skew: Skew = UNIFORM) -> list[dict]:
    """Per strategy: its simulated stream's verdict against its claim, then every model figure."""
    out = []
    for strategy in chosen:
        result = simulate_strategy(strategy, rows, seed=seed, population=population, params=params,
                                   reads_per_operation=reads_per_operation, skew=skew)
        verdict = judge(result)
        out.append({"backend": strategy.backend, "strategy": strategy.name, "dialect": strategy.dialect,
                    "rows": rows, "skew": str(skew), "expected": strategy.claim, "verdict": verdict.verdict,
                    "agrees": verdict.agreement(strategy.claim),
                    "hot_node_share_se": round(verdict.hot_node_share_se, 4), "verdict_reason": verdict.reason,
                    **result.summary()})
    return out
