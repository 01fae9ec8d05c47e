"""UUIDs as the documents' key designs use them: random version 4 (as text, bytes or two INT64
halves), and version 1 and version 7 UUIDs for a moment, whose text or bytes lead with time."""

from __future__ import annotations

import random
import uuid


def random_uuid4(rng: random.Random) -> uuid.UUID:
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


def _signed64(n: int) -> int:
    return n - 2**64 if n >= 2**63 else n


def uuid4_high(rng: random.Random) -> int:
    """The first 64 bits of a version-4 UUID as a signed INT64 (version nibble 4)."""
    return _signed64(rng.getrandbits(64) & ~0xF000 | 0x4000)


def uuid4_low(rng: random.Random) -> int:
    """The last 64 bits of a version-4 UUID as a signed INT64 (RFC 4122 variant bits 10)."""
    return _signed64(rng.getrandbits(62) | 0b10 << 62)
