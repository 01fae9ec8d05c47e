"""A write event, as the workload decides it before any key design applies, and the values
key parts derive from it: the device, tenant and domain of an entity, the event's time as
Spanner stores and prints it, and the roles a key part's value plays towards the event."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from keybench.design.hashing import stable_hash, stable_hashes

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
DEVICE_TYPES = ("phone", "tablet", "watch")
SUBDOMAINS = ("www", "maps", "mail", "docs", "news", "shop", "api", "blog")
TENANTS = 20  # tenants the devices are spread over, unless a tenant part sets `tenants`
# A `last_access` part is NULL for one write in this many: a user who never accessed.
NEVER_ACCESSED_ONE_IN = 4


@dataclass(frozen=True, slots=True)
class WriteEvent:
    """One write as the workload decides it, before any key design is applied."""

    entity: int  # user id (Spanner) or device number (Bigtable), 1..population
    ts_us: int  # microseconds since the epoch
    write_id: str  # unique per acknowledged write; the integrity audit counts these
    seq: int = 0  # the stage's insert number, 1, 2, 3, ...: what an auto-increment id would be


DEVICE_MULTIPLIER = 0x9E3779B1  # odd: multiplying permutes the 32-bit numbers


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


def subdomain_indices(ts_us):
    """subdomain's choice (an index into SUBDOMAINS) for a numpy array of times."""
    return stable_hashes("sub", ts_us) % len(SUBDOMAINS)


def timestamp(ts_us: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=ts_us)


def never_accessed(event: WriteEvent) -> bool:
    """Whether a write's `last_access` is NULL: one write in NEVER_ACCESSED_ONE_IN, by a stable hash."""
    return stable_hash("last_access", event.entity, event.ts_us) % NEVER_ACCESSED_ONE_IN == 0


def never_accessed_rows(entity, ts_us):
    """never_accessed for numpy arrays of entities and times: a boolean array."""
    return stable_hashes("last_access", entity, ts_us) % NEVER_ACCESSED_ONE_IN == 0


UNREAD_ONE_IN = 10  # an `unread` part is TRUE for one write in this many, NULL for the rest


def unread(event: WriteEvent) -> bool | None:
    """A mailbox's is_unread: TRUE for one message in UNREAD_ONE_IN, NULL (not FALSE) for the
    rest, so that a NULL_FILTERED index holds the unread ones only."""
    return True if stable_hash("unread", event.entity, event.ts_us) % UNREAD_ONE_IN == 0 else None


def unread_rows(entity, ts_us):
    """Whether `unread` is TRUE, for numpy arrays of entities and times."""
    return stable_hashes("unread", entity, ts_us) % UNREAD_ONE_IN == 0


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
LOS_ANGELES = None  # loaded on first use: the time zone Spanner's CAST(TIMESTAMP AS STRING) uses


def los_angeles() -> dt.tzinfo:
    """The time zone Spanner's CAST(TIMESTAMP AS STRING) writes in, loaded on first use."""
    global LOS_ANGELES
    if LOS_ANGELES is None:
        from zoneinfo import ZoneInfo

        LOS_ANGELES = ZoneInfo("America/Los_Angeles")
    return LOS_ANGELES


def spanner_timestamp_text(ts_us: int) -> str:
    """CAST(ts AS STRING) as Spanner writes it: America/Los_Angeles, fractional seconds in
    groups of three digits, the offset in hours: `2026-11-21 23:00:00.120-08`."""
    local = timestamp(ts_us).astimezone(los_angeles())
    micros = local.microsecond
    fraction = "" if micros == 0 else f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    utc_offset = local.utcoffset()
    assert utc_offset is not None  # `local` is an aware time
    offset = int(utc_offset.total_seconds())
    sign, offset = ("-" if offset < 0 else "+"), abs(offset)
    zone = f"{sign}{offset // 3600:02d}" + (f":{offset % 3600 // 60:02d}" if offset % 3600 else "")
    return f"{local:%Y-%m-%d %H:%M:%S}{fraction}{zone}"


def farm_fingerprint_shard(ts_us: int, count: int) -> int:
    """MOD(FARM_FINGERPRINT(CAST(ts AS STRING)), count), as the database computes it: the
    fingerprint is a signed INT64 and MOD keeps the dividend's sign, so -count < shard < count."""
    import farmhash

    return fingerprint_shard(farmhash.fingerprint64(spanner_timestamp_text(ts_us)), count)


def fingerprint_shard(fingerprint, count: int):
    """MOD(fingerprint, count) of Fingerprint64's unsigned result read as Spanner's signed INT64,
    with MOD's sign: of an int, an int; of a numpy uint64 array, an int64 array."""
    if isinstance(fingerprint, int):
        fingerprint -= 2**64 if fingerprint >= 2**63 else 0
        shard = abs(fingerprint) % count
        return shard if fingerprint >= 0 else -shard
    import numpy as np

    negative = fingerprint >= np.uint64(2**63)
    with np.errstate(over="ignore"):
        magnitude = np.where(negative, ~fingerprint + np.uint64(1), fingerprint)  # |x| of the signed value
    shard = (magnitude % np.uint64(count)).astype(np.int64)
    return np.where(negative, -shard, shard)
