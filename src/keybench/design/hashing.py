"""Hashes and bit permutations that are the same in every process and run (Python's hash() is
salted): the stable hash behind categories and device types, the 64-bit bucket hash behind
shard and salt parts, and the bit-reversed counter of a bit_reversed_positive sequence."""

from __future__ import annotations

import hashlib
from typing import Any


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
    digests = b"".join([blake2b(template % row, digest_size=8).digest() for row in zip(*arrays, strict=True)])
    return np.frombuffer(digests, dtype=">u8").astype(np.uint64)


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


def bit_reversed(n: int) -> int:
    """The 63 value bits of a positive INT64 in reverse order, as a bit_reversed_positive
    sequence returns them: consecutive counters land far apart."""
    return int(f"{n:063b}"[::-1], 2)
