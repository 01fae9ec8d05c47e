"""Key generators: small, pure, seeded objects that turn a write event into a key.

A key is a tuple of parts. Each part is one of a fixed vocabulary (the event's time,
its user or device, a shard or salt bucket, a UUID, ...). A strategy declares its key as
an ordered list of parts in its `strategy.toml`; this module knows how to compute each
part and what a read planner may assume about it (is it the entity, the time, a small
enumerable set of buckets, or opaque).

Spanner parts produce typed column values (int, str, datetime); Bigtable parts produce
string segments that are joined with a separator into the row key. Nothing here talks to
a database or reads a clock.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from keybench.design.distributions import (
    DEFAULT_ZIPF_EXPONENT,
    uniform_columns,
    uniform_values,
    zipf_columns,
    zipf_values,
)
from keybench.design.events import (
    BUCKET,
    DERIVED,
    DEVICE_TYPES,
    ENTITY,
    NUMBER,
    OPAQUE,
    TENANTS,
    TIME,
    WriteEvent,
    device_id,
    device_type,
    domain,
    farm_fingerprint_shard,
    never_accessed,
    reversed_domain,
    subdomain,
    tenant,
    timestamp,
    unread,
)
from keybench.design.hashing import bit_reversed, bucket_hash, stable_hash
from keybench.design.typed import convert, fill, interval_of, parse_type
from keybench.design.uuids import (
    random_uuid4,
    uuid1_at,
    uuid4_high,
    uuid4_low,
    uuid7_at,
)

TS_DIGITS = 16  # microseconds since the epoch, zero-padded so that text order is time order
LONG_MAX = 2**63 - 1  # Java's Long.MAX_VALUE, which the documents subtract timestamps from
MAX_TENANTS = 100_000
DEFAULT_POPULATION = 1000  # users (Spanner) or devices (Bigtable) the writes are spread over
MAX_POPULATION = 1_000_000_000
DEFAULT_SEED = 1  # the seed of every random choice: key generators, users, simulations
# A shard or salt count (`buckets`): every read of a bucketed key fans out to each bucket, so
# past a few thousand a read is thousands of requests; the documents' own example uses 2048.
MAX_BUCKETS = 4096
MAX_INTERVAL_S = 366 * 86_400  # an interval part's length: up to a year, as real designs bucket by the week or month
MAX_CATEGORY_VALUES = 10**12  # a category or zipf part's distinct values
# A sequence's digits, or a label's bytes: far above any key limit (Bigtable's row key 4 KB,
# Spanner's index key 8 KiB), so that the documented rules (design/limits.py) speak first, but
# bounded, since even the one probe key those rules build would otherwise take any size.
MAX_SEGMENT_BYTES = 64 * 1024
MAX_DOMAINS = 100_000  # domains all devices share: each is listed for the readers, as tenants are
DEFAULT_WIDTH = 10  # a sequence's digits


@dataclass(frozen=True)
class Part:
    """One component of a key."""

    name: str  # vocabulary word, e.g. "ts", "shard"
    role: str  # ENTITY, TIME, BUCKET, DERIVED or OPAQUE
    compute: Callable[[WriteEvent, random.Random], Any]
    column: str | None = None  # Spanner key column; None for Bigtable segments
    descending: bool = False  # Spanner: the column is declared DESC
    buckets: tuple[Any, ...] = ()  # every value a BUCKET part can take
    hashed: tuple[str, ...] = ()  # a bucket by stable hash: the WriteEvent fields it hashes
    of_entity: Callable[[int], Any] | None = None  # DERIVED: value from the entity
    separator: str | None = None  # Bigtable: what follows this segment, if not the key's separator
    generated: bool = False  # Spanner: the database makes the value (a sequence default)
    computed_by_database: bool = False  # Spanner: a stored generated column keybench can also compute
    interval_us: int = 0  # TIME parts that bucket time: the interval's length; its writes share one value
    # A nullable part (NULL for some writes): its value for a write that sets it. A read's bounds
    # and a key's largest size take this value; a NULL bounds nothing.
    when_set: Callable[[WriteEvent, random.Random], Any] | None = None
    sql_type: str | None = None  # Spanner: the column's type the values are converted to (a user's own table)
    # The part's values for whole numpy columns of events (entity, ts_us, seq), as `compute`
    # gives them one event at a time: the simulation's fast path. None: one event at a time.
    of_columns: Callable[[Any, Any, Any], Any] | None = None

    def value_when_set(self, event: WriteEvent, rng: random.Random) -> Any:
        """The part's value for `event` as if the write set it (the same as `compute` unless nullable)."""
        return (self.when_set or self.compute)(event, rng)


def _bucket_of(fields: tuple[str, ...], count: int) -> Callable[[WriteEvent], int]:
    def bucket(event: WriteEvent) -> int:
        return bucket_hash(*(getattr(event, f) for f in fields)) % count

    return bucket


_EVENT_FIELDS = {"entity": "entity", "user": "entity", "device": "entity", "ts": "ts_us"}


def _fields(spec: dict) -> tuple[str, ...]:
    names = spec.get("of", ["ts", "entity"])
    if not isinstance(names, list):
        raise ValueError(f"'of' is a list of fields (of {sorted(_EVENT_FIELDS)}), got {names!r}")
    try:
        return tuple(_EVENT_FIELDS[n] for n in names)
    except KeyError as exc:
        raise ValueError(f"'of' may name only {sorted(_EVENT_FIELDS)}, not {exc.args[0]!r}") from None


def _count(spec: dict, key: str, most: int) -> int:
    """A part's whole-number setting from 1 to `most` (`buckets`, `values`), or one clear error."""
    count = spec.get(key)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise ValueError(f"part {spec.get('value')!r} needs {key!r}, a whole number from 1 to {most:,}, got {count!r}")
    return count


def _buckets(spec: dict) -> int:
    return _count(spec, "buckets", MAX_BUCKETS)


def _values(spec: dict) -> int:
    return _count(spec, "values", MAX_CATEGORY_VALUES)


def spanner_part(spec: dict) -> Part:
    """A Spanner key column from its declaration: {column, value, order?, type?, ...}; with
    `type` (a user's own column) its values are converted to that column type."""
    part = _spanner_part(spec)
    return part if spec.get("type") is None or part.sql_type else _typed(part, str(spec["type"]))


def _typed(part: Part, sql_type: str) -> Part:
    parse_type(sql_type)  # a type keybench cannot write is refused here, with the type named
    compute, when_set = part.compute, part.when_set
    return dataclasses.replace(
        part, compute=lambda e, r: convert(compute(e, r), sql_type), of_columns=None,
        when_set=None if when_set is None else (lambda e, r: convert(when_set(e, r), sql_type)),
        buckets=tuple(convert(b, sql_type) for b in part.buckets), sql_type=sql_type,
        interval_us=part.interval_us or interval_of(sql_type, part.role))


def _spanner_part(spec: dict) -> Part:
    value, column = spec.get("value"), spec.get("column")
    if not column:
        raise ValueError("every Spanner key part needs a 'column'")
    desc = str(spec.get("order", "asc")).lower() == "desc"
    if value == "user":
        return Part("user", ENTITY, lambda e, r: e.entity, column, desc)
    if value == "ts":
        return Part("ts", TIME, lambda e, r: timestamp(e.ts_us), column, desc)
    if value == "shard":
        count, bucket = _buckets(spec), _bucket_of(_fields(spec), _buckets(spec))
        return Part("shard", BUCKET, lambda e, r: bucket(e), column, desc, tuple(range(count)), hashed=_fields(spec))
    if value == "uuid4_string":
        return Part("uuid4_string", OPAQUE, lambda e, r: str(random_uuid4(r)), column, desc)
    if value == "uuid4_bytes":
        return Part("uuid4_bytes", OPAQUE, lambda e, r: random_uuid4(r).bytes, column, desc)
    if value == "uuid1":
        return Part("uuid1", OPAQUE, lambda e, r: str(uuid1_at(e.ts_us, r)), column, desc)
    if value == "uuid7":
        return Part("uuid7", OPAQUE, lambda e, r: str(uuid7_at(e.ts_us, r)), column, desc)
    if value == "uuid4_high":
        return Part("uuid4_high", OPAQUE, lambda e, r: uuid4_high(r), column, desc)
    if value == "uuid4_low":
        return Part("uuid4_low", OPAQUE, lambda e, r: uuid4_low(r), column, desc)
    if value == "sequence":
        return Part("sequence", NUMBER, lambda e, r: e.seq, column, desc)
    if value == "bit_reversed_sequence":
        return Part("bit_reversed_sequence", OPAQUE, lambda e, r: bit_reversed(e.seq), column, desc)
    if value == "farm_fingerprint_shard":
        count = _buckets(spec)
        return Part("farm_fingerprint_shard", BUCKET, lambda e, r: farm_fingerprint_shard(e.ts_us, count), column,
                    desc, tuple(range(-count + 1, count)), computed_by_database=True)
    if value == "generated":
        # Known only once the database returns it (DML ... THEN RETURN).
        return Part("generated", OPAQUE, lambda e, r: None, column, desc, generated=True)
    if value == "generated_uuid":
        # GENERATE_UUID() as the column default: a version-4 UUID the database makes.
        return Part("generated_uuid", OPAQUE, lambda e, r: None, column, desc, generated=True)
    if value == "label":
        return _label(spec, column=column, descending=desc)
    if value == "category":
        # N values, uniform over the writes (a region, a customer among N): no read can enumerate them.
        count = _values(spec)
        return Part("category", OPAQUE, uniform_values(column, count), column, desc,
                    of_columns=uniform_columns(column, count))
    if value == "zipf":
        exponent = spec.get("exponent", DEFAULT_ZIPF_EXPONENT)
        if not isinstance(exponent, int | float) or isinstance(exponent, bool) or not 0 < exponent <= 10:
            raise ValueError(f"part 'zipf' takes 'exponent', a number above 0 and at most 10, got {exponent!r}")
        count = _values(spec)
        return Part("zipf", OPAQUE, zipf_values(column, count, float(exponent)), column, desc,
                    of_columns=zipf_columns(column, count, float(exponent)))
    if value == "unread":
        return Part("unread", OPAQUE, lambda e, r: unread(e), column, desc)
    if value == "fill":
        # A NOT NULL column of a user's table that the design says nothing about: any value
        # of its type (typed.fill), so the insert is accepted.

        if not spec.get("type"):
            raise ValueError("part 'fill' needs 'type', the column's type")
        sql_type = str(spec["type"])
        parse_type(sql_type)
        return Part("fill", OPAQUE, lambda e, r: fill(e, sql_type), column, desc, sql_type=sql_type)
    if value == "last_access":
        # The page's nullable Users.LastAccess: the write's time, or NULL for a user who never
        # accessed (one write in NEVER_ACCESSED_ONE_IN), decided by a stable hash of the write so
        # that the row, its NULL_FILTERED index entry, the reads' truth and the simulation agree.
        return Part("last_access", TIME, lambda e, r: None if never_accessed(e) else timestamp(e.ts_us), column, desc,
                    when_set=lambda e, r: timestamp(e.ts_us))
    raise ValueError(
        f"unknown Spanner key value {value!r}; known: user, ts, last_access, shard, uuid4_string, uuid4_bytes, uuid1, "
        "uuid7, "
        "uuid4_high, uuid4_low, sequence, bit_reversed_sequence, generated, generated_uuid, farm_fingerprint_shard, "
        "label, "
        "category, zipf, unread, fill"
    )


def _label(spec: dict, **kw) -> Part:
    """A fixed string, the same in every key (Bigtable: `memusage`)."""
    text = spec.get("text")
    if not isinstance(text, str) or not text:
        raise ValueError("part 'label' needs 'text', the fixed string it writes")
    if len(text.encode()) > MAX_SEGMENT_BYTES:
        raise ValueError(f"part 'label': its text is {len(text.encode()):,} bytes, more than any key may hold "
                         f"(at most {MAX_SEGMENT_BYTES:,})")
    return Part("label", BUCKET, lambda e, r: text, buckets=(text,), **kw)


def _derived(name: str, fn: Callable[[int], Any], **kw) -> Part:
    return Part(name, DERIVED, lambda e, r: fn(e.entity), of_entity=fn, **kw)


BIGTABLE_VALUES = ("device", "device_type", "tenant", "domain", "reverse_domain", "subdomain", "ts", "date_ts",
                   "interval", "reverse_ts", "sequence", "number", "reversed_sequence", "device_bytes", "ts_bytes",
                   "hash", "label", "salt")


def bigtable_part(spec: dict | str) -> Part:
    """A Bigtable row-key segment from its declaration: a word or {value, ...}."""
    spec = {"value": spec} if isinstance(spec, str) else spec
    value, sep = spec.get("value"), spec.get("separator")
    width = _count({"width": DEFAULT_WIDTH, **spec}, "width", MAX_SEGMENT_BYTES) if value in (
        "sequence", "reversed_sequence") else DEFAULT_WIDTH
    if value == "device":
        return Part("device", ENTITY, lambda e, r: device_id(e.entity), separator=sep)
    if value == "device_type":
        return _derived("device_type", device_type, buckets=DEVICE_TYPES, separator=sep)
    if value == "tenant":
        tenants = spec.get("tenants", TENANTS)
        if not isinstance(tenants, int) or isinstance(tenants, bool) or not 1 <= tenants <= MAX_TENANTS:
            raise ValueError(f"part 'tenant' takes 'tenants', a whole number from 1 to {MAX_TENANTS:,}, got "
                             f"{tenants!r}")
        of_entity = lambda entity: tenant(entity, tenants)  # noqa: E731
        return _derived("tenant", of_entity, buckets=tuple(of_entity(i) for i in range(tenants)), separator=sep)
    if value == "domain":
        return Part("domain", ENTITY, lambda e, r: domain(e.entity), separator=sep)
    if value == "reverse_domain":
        domains = spec.get("domains")
        if domains is None:  # every device its own domain
            return Part("reverse_domain", ENTITY, lambda e, r: reversed_domain(e.entity), separator=sep)
        domains = _count(spec, "domains", MAX_DOMAINS)  # how many domains all devices share
        of_entity = lambda entity: reversed_domain(entity % domains + 1)  # noqa: E731
        return _derived("reverse_domain", of_entity, buckets=tuple(of_entity(i) for i in range(domains)), separator=sep)
    if value == "subdomain":
        # A site's subdomains are an open set: no reader can enumerate them.
        return Part("subdomain", OPAQUE, lambda e, r: subdomain(e), separator=sep)
    if value == "ts":
        return Part("ts", TIME, lambda e, r: f"{e.ts_us:0{TS_DIGITS}d}", separator=sep)
    if value == "date_ts":
        # The documents' date form (`20200501`), followed by the time to the microsecond so that
        # one device's readings never share a key: 20200501142536123456.
        return Part("date_ts", TIME, lambda e, r: f"{timestamp(e.ts_us):%Y%m%d%H%M%S%f}", separator=sep)
    if value == "interval":
        # The start of the interval the write falls in, in the documents' date form to the second
        # (20200501142536): an application that keeps a fast-changing counter in memory writes one
        # row per device per interval, and that interval's writes land on the row as new cells.
        seconds = spec.get("seconds")
        if not isinstance(seconds, int) or isinstance(seconds, bool) or not 1 <= seconds <= MAX_INTERVAL_S:
            raise ValueError(f"part 'interval' needs 'seconds', a whole number from 1 to {MAX_INTERVAL_S}, got "
                             f"{seconds!r}")
        length = seconds * 1_000_000
        return Part("interval", TIME, lambda e, r: f"{timestamp(e.ts_us - e.ts_us % length):%Y%m%d%H%M%S}",
                    separator=sep, interval_us=length)
    if value == "reverse_ts":
        return Part("reverse_ts", TIME, lambda e, r: f"{LONG_MAX - e.ts_us:019d}", descending=True, separator=sep)
    if value == "sequence":
        return Part("sequence", NUMBER, lambda e, r: f"{e.seq:0{width}d}", separator=sep)
    if value == "number":
        # Written as text without padding: "3" sorts after "20".
        return Part("number", NUMBER, lambda e, r: str(e.seq), separator=sep)
    if value == "reversed_sequence":
        return Part("reversed_sequence", OPAQUE, lambda e, r: f"{e.seq:0{width}d}"[::-1], separator=sep)
    if value == "device_bytes":
        # Raw bytes, not text: the 32 bits of the device id (`4c410523`) as 4 bytes.
        return Part("device_bytes", ENTITY, lambda e, r: bytes.fromhex(device_id(e.entity)), separator=sep)
    if value == "ts_bytes":
        return Part("ts_bytes", TIME, lambda e, r: e.ts_us.to_bytes(8, "big"), separator=sep)
    if value == "hash":
        return Part("hash", OPAQUE, lambda e, r: f"{stable_hash('row', e.entity, e.ts_us):016x}", separator=sep)
    if value == "label":
        return _label(spec, separator=sep)
    if value == "salt":
        count, bucket = _buckets(spec), _bucket_of(_fields(spec), _buckets(spec))
        digits = len(str(count - 1))
        return Part(
            "salt", BUCKET, lambda e, r: f"{bucket(e):0{digits}d}",
            buckets=tuple(f"{i:0{digits}d}" for i in range(count)), separator=sep, hashed=_fields(spec),
        )
    raise ValueError(f"unknown Bigtable key value {value!r}; known: {', '.join(BIGTABLE_VALUES)}")


@dataclass
class KeyGenerator:
    """Turns events into keys for one strategy. Seeded, so a run can be replayed."""

    parts: tuple[Part, ...]
    seed: int = 0
    separator: str | None = None  # Bigtable: segments are joined into one row key
    _rng: random.Random = field(init=False, repr=False)
    _computes: list[Callable[[WriteEvent, random.Random], Any]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._computes = [p.compute for p in self.parts]

    def key(self, event: WriteEvent) -> tuple:
        rng = self._rng  # every insert computes one: a list, not a generator, costs it less
        return tuple([compute(event, rng) for compute in self._computes])

    def row_key(self, key: tuple) -> bytes:
        """Bigtable: the row key bytes of a key tuple."""
        return join_segments(self.parts, key, self.separator or "")


def separator_after(part: Part, default: str) -> str:
    return default if part.separator is None else part.separator


def join_segments(parts: tuple[Part, ...], values: tuple, default_separator: str, open_end: bool = False) -> bytes:
    """Bigtable row-key bytes of the leading `values`; open_end appends the separator that
    follows the last one, so the result is the prefix of every key that starts with them."""
    out = []
    for i, value in enumerate(values):
        out.append(value if isinstance(value, bytes) else value.encode())  # raw-byte segments stay as they are
        if i < len(values) - 1 or open_end:
            out.append(separator_after(parts[i], default_separator).encode())
    return b"".join(out)


PRELOAD_KINDS = ("uint32", "bit_reversed_counter", "uuid4_string")


def preload_keys(kind: str, rows: int, seed: int, with_keys: tuple = ()) -> list[int] | list[str]:
    """Keys of a migrated source: `uint32` spread over 1..2^32 as its own counter or hash
    left them; `bit_reversed_counter` the bit-reversed values of 1..rows. `with_keys` are
    source keys a scenario needs among them: they come first, and the rows stay `rows`."""
    drawn: list[int] | list[str]
    if kind == "uint32":
        rng = random.Random(f"preload:{seed}")
        drawn = rng.sample(range(1, 2**32 + 1), rows)
    elif kind == "bit_reversed_counter":
        drawn = [bit_reversed(n) for n in range(1, rows + 1)]
    elif kind == "uuid4_string":  # a source whose own generator made version-4 UUIDs
        rng = random.Random(f"preload:{seed}")
        drawn = [str(random_uuid4(rng)) for _ in range(rows)]
    else:
        raise ValueError(f"unknown preload keys {kind!r}; known: {', '.join(PRELOAD_KINDS)}")
    chosen = set(with_keys)
    return [*with_keys, *(k for k in drawn if k not in chosen)][:rows]
