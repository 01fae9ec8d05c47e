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

import bisect
import dataclasses
import datetime as dt
import functools
import hashlib
import math
import random
import uuid
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from keybench.errors import KeybenchError

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
DEVICE_TYPES = ("phone", "tablet", "watch")
TS_DIGITS = 16  # microseconds since the epoch, zero-padded so that text order is time order
LONG_MAX = 2**63 - 1  # Java's Long.MAX_VALUE, which the documents subtract timestamps from
SUBDOMAINS = ("www", "maps", "mail", "docs", "news", "shop", "api", "blog")
TENANTS = 20  # tenants the devices are spread over, unless a tenant part sets `tenants`
MAX_TENANTS = 100_000
DEFAULT_POPULATION = 1000  # users (Spanner) or devices (Bigtable) the writes are spread over
MAX_POPULATION = 1_000_000_000
DEFAULT_SEED = 1  # the seed of every random choice: key generators, users, simulations
# A shard or salt count (`buckets`): every read of a bucketed key fans out to each bucket, so
# past a few thousand a read is thousands of requests; the documents' own example uses 2048.
MAX_BUCKETS = 4096
MAX_INTERVAL_S = 86_400  # an interval part's length: at most a day
MAX_CATEGORY_VALUES = 10**12  # a category or zipf part's distinct values
DEFAULT_ZIPF_EXPONENT = 1.1
# A `last_access` part is NULL for one write in this many: a user who never accessed.
NEVER_ACCESSED_ONE_IN = 4


@dataclass(frozen=True, slots=True)
class WriteEvent:
    """One write as the workload decides it, before any key design is applied."""

    entity: int  # user id (Spanner) or device number (Bigtable), 1..population
    ts_us: int  # microseconds since the epoch
    write_id: str  # unique per acknowledged write; the integrity audit counts these
    seq: int = 0  # the stage's insert number, 1, 2, 3, ...: what an auto-increment id would be


def stable_hash(*values: Any) -> int:
    """A hash that is the same in every process and run (Python's hash() is salted)."""
    text = "\x1f".join(str(v) for v in values).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def stable_hashes(*columns: Any):
    """stable_hash of each row of `columns` (numpy integer arrays of one length, or single
    values every row shares), as a numpy uint64 array: the text is formatted and hashed in
    one tight loop, with no event objects."""
    import numpy as np

    arrays = [c.tolist() for c in columns if isinstance(c, np.ndarray)]
    # the same text as stable_hash: integers in decimal, the shared values as they are
    template = b"\x1f".join(b"%d" if isinstance(c, np.ndarray) else str(c).encode().replace(b"%", b"%%")
                             for c in columns)
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(template % row, digest_size=8).digest() for row in zip(*arrays)])
    return np.frombuffer(digests, dtype=">u8").astype(np.uint64)


DEVICE_MULTIPLIER = 0x9E3779B1  # odd: multiplying permutes the 32-bit numbers


_MASK64 = 2**64 - 1
_GOLDEN64 = 0x9E3779B97F4A7C15


def _mix64(x):
    """splitmix64's finaliser: a bijection of 64-bit numbers whose every output bit depends
    on every input bit. The same arithmetic on an int and on a numpy uint64 array (which
    wraps at 2^64 as the mask does)."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def bucket_hash(*values):
    """A 64-bit hash of integers that is the same in every process and run: of ints, an int;
    of numpy integer arrays (one length; ints mixed in are shared by every row), a numpy
    uint64 array of each row's hash, with no per-row Python. One definition for a live
    run's key generator (a shard or salt part) and the simulation's vectorised keys."""
    if all(isinstance(v, int) for v in values):
        return _combine(v & _MASK64 for v in values)
    import numpy as np

    with np.errstate(over="ignore"):  # uint64 arithmetic wraps at 2^64, as the mask does for ints
        # an array's negative numbers become their two's complement, as the mask makes of an int
        return _combine(v.astype(np.uint64) if isinstance(v, np.ndarray) else np.uint64(int(v) & _MASK64)
                        for v in values)


def _combine(values):
    h = 0
    for position, value in enumerate(values, start=1):
        h = _mix64(h ^ ((value + (position * _GOLDEN64 & _MASK64)) & _MASK64))
    return h


def device_number(entity):
    """The 32-bit number behind a device id, of an int or of a numpy integer array."""
    return (entity * DEVICE_MULTIPLIER) & 0xFFFFFFFF


def device_id(entity: int) -> str:
    """An 8-hex-digit device id such as the documents' `4c410523`; one-to-one for entities
    below 2^32 (an odd multiplier permutes 32-bit numbers), so two devices never share one."""
    return f"{device_number(entity):08x}"


def device_type(entity: int) -> str:
    return DEVICE_TYPES[stable_hash("type", entity) % len(DEVICE_TYPES)]


def domain(entity: int) -> str:
    """A registered domain per entity: example0042.com, ..."""
    return f"example{entity:04d}.{('com', 'org', 'net')[entity % 3]}"


def reversed_domain(entity: int) -> str:
    """com.example0042, as the documents' com.google.maps reverses maps.google.com."""
    return ".".join(reversed(domain(entity).split(".")))


def tenant(entity: int, tenants: int = TENANTS) -> str:
    return f"tenant{entity % tenants:0{max(2, len(str(tenants - 1)))}d}"


def subdomain(event: WriteEvent) -> str:
    return SUBDOMAINS[stable_hash("sub", event.ts_us) % len(SUBDOMAINS)]


def timestamp(ts_us: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=ts_us)


def never_accessed(event: WriteEvent) -> bool:
    """Whether a write's `last_access` is NULL: one write in NEVER_ACCESSED_ONE_IN, by a stable hash."""
    return stable_hash("last_access", event.entity, event.ts_us) % NEVER_ACCESSED_ONE_IN == 0


def ts_us_of(value: dt.datetime) -> int:
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# What a read planner may assume about a part.
ENTITY = "entity"  # equals the user / device: a prefix read can fix it
TIME = "time"  # the event time: a range read can bound it
NUMBER = "number"  # the insert number: a range read can bound it (correctly only if zero-padded)
BUCKET = "bucket"  # one of a few values: a planner can enumerate them all
DERIVED = "derived"  # computed from the entity alone: known once the entity is known
OPAQUE = "opaque"  # random or hashed: no read can use it as a bound


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


def _uuid4(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


UUID1_EPOCH_OFFSET = 0x01B21DD213814000  # 100-ns intervals from 1582-10-15 to 1970-01-01


def uuid1_at(ts_us: int, rng: random.Random) -> uuid.UUID:
    """A version-1 UUID for a moment: its text starts with the timestamp's low 32 bits."""
    t = ts_us * 10 + UUID1_EPOCH_OFFSET
    clock_seq, node = rng.getrandbits(14), rng.getrandbits(48) | (1 << 40)  # multicast bit: not a MAC
    return uuid.UUID(fields=(t & 0xFFFFFFFF, (t >> 32) & 0xFFFF, ((t >> 48) & 0x0FFF) | 0x1000,
                             0x80 | (clock_seq >> 8), clock_seq & 0xFF, node))


def uuid7_at(ts_us: int, rng: random.Random) -> uuid.UUID:
    """A version-7 UUID (RFC 9562): 48 bits of Unix milliseconds first, then random bits."""
    value = (ts_us // 1000) << 80 | 0x7 << 76 | rng.getrandbits(12) << 64 | 0b10 << 62 | rng.getrandbits(62)
    return uuid.UUID(int=value)


LOS_ANGELES = None  # loaded on first use: the time zone Spanner's CAST(TIMESTAMP AS STRING) uses


def spanner_timestamp_text(ts_us: int) -> str:
    """CAST(ts AS STRING) as Spanner writes it: America/Los_Angeles, fractional seconds in
    groups of three digits, the offset in hours: `2026-11-21 23:00:00.120-08`."""
    global LOS_ANGELES
    if LOS_ANGELES is None:
        from zoneinfo import ZoneInfo

        LOS_ANGELES = ZoneInfo("America/Los_Angeles")
    local = timestamp(ts_us).astimezone(LOS_ANGELES)
    micros = local.microsecond
    fraction = "" if micros == 0 else f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    offset = int(local.utcoffset().total_seconds())
    sign, offset = ("-" if offset < 0 else "+"), abs(offset)
    zone = f"{sign}{offset // 3600:02d}" + (f":{offset % 3600 // 60:02d}" if offset % 3600 else "")
    return f"{local:%Y-%m-%d %H:%M:%S}{fraction}{zone}"


def farm_fingerprint_shard(ts_us: int, count: int) -> int:
    """MOD(FARM_FINGERPRINT(CAST(ts AS STRING)), count), as the database computes it: the
    fingerprint is a signed INT64 and MOD keeps the dividend's sign, so -count < shard < count."""
    import farmhash

    fingerprint = farmhash.fingerprint64(spanner_timestamp_text(ts_us))
    fingerprint -= 2**64 if fingerprint >= 2**63 else 0
    shard = abs(fingerprint) % count
    return shard if fingerprint >= 0 else -shard


def _signed64(n: int) -> int:
    return n - 2**64 if n >= 2**63 else n


def uuid4_high(rng: random.Random) -> int:
    """The first 64 bits of a version-4 UUID as a signed INT64 (version nibble 4)."""
    return _signed64(rng.getrandbits(64) & ~0xF000 | 0x4000)


def uuid4_low(rng: random.Random) -> int:
    """The last 64 bits of a version-4 UUID as a signed INT64 (RFC 4122 variant bits 10)."""
    return _signed64(rng.getrandbits(62) | 0b10 << 62)


def bit_reversed(n: int) -> int:
    """The 63 value bits of a positive INT64 in reverse order, as a bit_reversed_positive
    sequence returns them: consecutive counters land far apart."""
    return int(f"{n:063b}"[::-1], 2)


def _values(spec: dict) -> int:
    return _count(spec, "values", MAX_CATEGORY_VALUES)


def _uniform(column: str, count: int) -> Callable[[WriteEvent, random.Random], int]:
    """One of `count` values, uniform over the writes; the same for the same write and column
    (a table and its index compute it apart)."""
    return lambda e, r: stable_hash(column, e.seq, e.ts_us) % count


class ZipfInverse:
    """Rank k (0-based) of `count` with probability proportional to 1 / (k + 1)^exponent, from
    a uniform draw u in [0, 1): a few ranks take most draws. It inverts the cumulative weights
    of the first ranks and, past them, of the continuous tail, so a billion ranks cost no
    table of a billion. One home for every skewed choice: a zipf key part and `--skew`."""

    HEAD = 100_000

    def __init__(self, count: int, exponent: float):
        self.count, self.exponent = count, exponent
        self.head = min(count, self.HEAD)
        cumulative, total = [], 0.0
        for k in range(self.head):
            total += 1 / (k + 1) ** exponent
            cumulative.append(total)
        self.cumulative, self.total = cumulative, total
        s, head = exponent, self.head
        tail = 0.0
        if count > head:  # the integral of x^-s from head to count
            tail = math.log(count / head) if s == 1 else (count ** (1 - s) - head ** (1 - s)) / (1 - s)
        self.grand = total + tail

    def rank(self, u: float) -> int:
        v = u * self.grand
        if v < self.total:
            return bisect.bisect_left(self.cumulative, v)
        rest, s = v - self.total, self.exponent  # invert the tail's integral
        x = self.head * math.exp(rest) if s == 1 else (self.head ** (1 - s) + rest * (1 - s)) ** (1 / (1 - s))
        return min(self.count - 1, int(x))

    def ranks(self, u):
        """The same for a numpy array of draws."""
        import numpy as np

        v = np.asarray(u, dtype=np.float64) * self.grand
        out = np.searchsorted(np.asarray(self.cumulative), np.minimum(v, self.total), side="left")
        beyond = v >= self.total
        if beyond.any():
            rest, s = v[beyond] - self.total, self.exponent
            x = self.head * np.exp(rest) if s == 1 else (self.head ** (1 - s) + rest * (1 - s)) ** (1 / (1 - s))
            out[beyond] = np.minimum(self.count - 1, x.astype(np.int64))
        return np.minimum(out, self.count - 1).astype(np.int64)


@functools.lru_cache(maxsize=16)
def zipf_inverse(count: int, exponent: float) -> ZipfInverse:
    return ZipfInverse(count, exponent)


def _zipf(column: str, count: int, exponent: float) -> Callable[[WriteEvent, random.Random], int]:
    """Value k (0-based) of `count`, zipf-distributed over the writes (ZipfInverse); the same
    for the same write and column (a table and its index compute it apart)."""
    inverse = zipf_inverse(count, exponent)
    return lambda e, r: inverse.rank(stable_hash("zipf", column, e.seq, e.ts_us) / 2**64)


MAX_SKEW_EXPONENT = 10.0


@dataclass(frozen=True)
class Skew:
    """How the writes pick their user or device (`--skew`): uniform over the population, or
    `zipf:S`, where the k-th entity takes a share proportional to 1 / k^S (entity 1 the most),
    e.g. a few heavy users or devices."""

    exponent: float | None = None  # None: uniform

    @classmethod
    def parse(cls, text: str) -> Skew:
        text = str(text).strip()
        if text == "uniform":
            return cls()
        name, _, value = text.partition(":")
        try:
            exponent = float(value)
        except ValueError:
            exponent = float("nan")
        if name != "zipf" or not 0 < exponent <= MAX_SKEW_EXPONENT:
            raise KeybenchError(f"--skew must be 'uniform' or 'zipf:S' with 0 < S <= {MAX_SKEW_EXPONENT:g} "
                             f"(e.g. zipf:1.2), got {text!r}")
        return cls(exponent)

    def __str__(self) -> str:
        return "uniform" if self.exponent is None else f"zipf:{self.exponent:g}"

    def index(self, u: float, count: int) -> int:
        """Which of `count` entities (0-based) a uniform draw u in [0, 1) picks."""
        if self.exponent is None:
            return min(count - 1, int(u * count))
        return zipf_inverse(count, self.exponent).rank(u)

    def indices(self, u, count: int):
        """The same for a numpy array of draws."""
        import numpy as np

        if self.exponent is None:
            return np.minimum(count - 1, (np.asarray(u) * count).astype(np.int64))
        return zipf_inverse(count, self.exponent).ranks(u)


UNIFORM = Skew()


def spanner_part(spec: dict) -> Part:
    """A Spanner key column from its declaration: {column, value, order?, type?, ...}; with
    `type` (a user's own column) its values are converted to that column type."""
    part = _spanner_part(spec)
    return part if spec.get("type") is None or part.sql_type else _typed(part, str(spec["type"]))


def _typed(part: Part, sql_type: str) -> Part:
    from keybench.design.typed import convert, interval_of, parse_type

    parse_type(sql_type)  # a type keybench cannot write is refused here, with the type named
    compute, when_set = part.compute, part.when_set
    return dataclasses.replace(
        part, compute=lambda e, r: convert(compute(e, r), sql_type),
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
        return Part("uuid4_string", OPAQUE, lambda e, r: str(_uuid4(r)), column, desc)
    if value == "uuid4_bytes":
        return Part("uuid4_bytes", OPAQUE, lambda e, r: _uuid4(r).bytes, column, desc)
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
        return Part("category", OPAQUE, _uniform(column, _values(spec)), column, desc)
    if value == "zipf":
        exponent = spec.get("exponent", DEFAULT_ZIPF_EXPONENT)
        if not isinstance(exponent, int | float) or isinstance(exponent, bool) or not 0 < exponent <= 10:
            raise ValueError(f"part 'zipf' takes 'exponent', a number above 0 and at most 10, got {exponent!r}")
        return Part("zipf", OPAQUE, _zipf(column, _values(spec), float(exponent)), column, desc)
    if value == "unread":
        # A mailbox's is_unread: TRUE for about one message in ten, NULL (not FALSE) for the rest,
        # so that a NULL_FILTERED index holds the unread ones only.
        return Part("unread", OPAQUE, lambda e, r: True if stable_hash("unread", e.entity, e.ts_us) % 10 == 0 else None,
                    column, desc)
    if value == "fill":
        # A NOT NULL column of a user's table that the design says nothing about: any value
        # of its type (typed.fill), so the insert is accepted.
        from keybench.design.typed import fill, parse_type

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
        f"unknown Spanner key value {value!r}; known: user, ts, last_access, shard, uuid4_string, uuid4_bytes, uuid1, uuid7, "
        "uuid4_high, uuid4_low, sequence, bit_reversed_sequence, generated, generated_uuid, farm_fingerprint_shard, label, "
        "category, zipf, unread, fill"
    )


def _label(spec: dict, **kw) -> Part:
    """A fixed string, the same in every key (Bigtable: `memusage`)."""
    text = spec.get("text")
    if not isinstance(text, str) or not text:
        raise ValueError("part 'label' needs 'text', the fixed string it writes")
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
    width = spec.get("width", 10)
    if value == "device":
        return Part("device", ENTITY, lambda e, r: device_id(e.entity), separator=sep)
    if value == "device_type":
        return _derived("device_type", device_type, buckets=DEVICE_TYPES, separator=sep)
    if value == "tenant":
        tenants = spec.get("tenants", TENANTS)
        if not isinstance(tenants, int) or isinstance(tenants, bool) or not 1 <= tenants <= MAX_TENANTS:
            raise ValueError(f"part 'tenant' takes 'tenants', a whole number from 1 to {MAX_TENANTS:,}, got {tenants!r}")
        of_entity = lambda entity: tenant(entity, tenants)  # noqa: E731
        return _derived("tenant", of_entity, buckets=tuple(of_entity(i) for i in range(tenants)), separator=sep)
    if value == "domain":
        return Part("domain", ENTITY, lambda e, r: domain(e.entity), separator=sep)
    if value == "reverse_domain":
        domains = spec.get("domains")
        if domains is None:  # every device its own domain
            return Part("reverse_domain", ENTITY, lambda e, r: reversed_domain(e.entity), separator=sep)
        if not isinstance(domains, int) or domains < 1:
            raise ValueError("part 'reverse_domain' takes 'domains', a positive integer: how many domains all devices share")
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
            raise ValueError(f"part 'interval' needs 'seconds', a whole number from 1 to {MAX_INTERVAL_S}, got {seconds!r}")
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

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def key(self, event: WriteEvent) -> tuple:
        return tuple(p.compute(event, self._rng) for p in self.parts)

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


def preload_keys(kind: str, rows: int, seed: int, with_keys: tuple = ()) -> list:
    """Keys of a migrated source: `uint32` spread over 1..2^32 as its own counter or hash
    left them; `bit_reversed_counter` the bit-reversed values of 1..rows. `with_keys` are
    source keys a scenario needs among them: they come first, and the rows stay `rows`."""
    if kind == "uint32":
        rng = random.Random(f"preload:{seed}")
        drawn = rng.sample(range(1, 2**32 + 1), rows)
    elif kind == "bit_reversed_counter":
        drawn = [bit_reversed(n) for n in range(1, rows + 1)]
    elif kind == "uuid4_string":  # a source whose own generator made version-4 UUIDs
        rng = random.Random(f"preload:{seed}")
        drawn = [str(_uuid4(rng)) for _ in range(rows)]
    else:
        raise ValueError(f"unknown preload keys {kind!r}; known: {', '.join(PRELOAD_KINDS)}")
    chosen = set(with_keys)
    return [*with_keys, *(k for k in drawn if k not in chosen)][:rows]
