"""Hashes and bit permutations that are the same in every process and run (Python's hash() is
salted): the stable hash behind categories and device types, the 64-bit bucket hash behind
shard and salt parts, and the bit-reversed counter of a bit_reversed_positive sequence."""

from __future__ import annotations

import functools
import hashlib
from typing import Any


def stable_hash(*values: Any) -> int:
    """A 64-bit hash that is the same in every process and run (Python's hash() is salted):
    bucket_hash's mixing of the values, a string (a tag such as "type" or a column name)
    taken as the 64-bit number its BLAKE2b digest starts with. Integers are mixed as
    numbers, so that stable_hashes computes the same hash of whole columns in numpy."""
    return bucket_hash(*(_word(v) for v in values))


def stable_hashes(*columns: Any):
    """stable_hash of each row of `columns` (numpy integer arrays of one length, or single
    values every row shares), as a numpy uint64 array, with no Python per row."""
    import numpy as np

    return bucket_hash(*(c if isinstance(c, np.ndarray) else _word(c) for c in columns))


@functools.lru_cache(maxsize=4096)
def _text_word(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _word(value: Any) -> int:
    """A value stable_hash mixes: an integer as itself, anything else by the digest of its text."""
    return value if isinstance(value, int) else _text_word(str(value))


_MASK64 = 2**64 - 1
_GOLDEN64 = 0x9E3779B97F4A7C15


_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64's finaliser's multipliers


def _mix64(x: int) -> int:
    """splitmix64's finaliser: a bijection of 64-bit numbers whose every output bit depends
    on every input bit (`mix_rows` does the same to each number of a numpy array)."""
    x = ((x ^ (x >> 30)) * _MIX1) & _MASK64
    x = ((x ^ (x >> 27)) * _MIX2) & _MASK64
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
        return _combine_rows(values)


ROWS_BLOCK = 1 << 15


def _combine_rows(values):
    """_combine of numpy integer arrays (ints mixed in are shared by every row), in place on
    one array: the ints before the first array are mixed once, as ints."""
    import numpy as np

    count = next((len(v) for v in values if isinstance(v, np.ndarray)), 0)
    if count > ROWS_BLOCK:  # a block at a time: its temporaries stay in cache
        out = np.empty(count, dtype=np.uint64)
        for lo in range(0, count, ROWS_BLOCK):
            out[lo:lo + ROWS_BLOCK] = _combine_rows([v[lo:lo + ROWS_BLOCK] if isinstance(v, np.ndarray) else v
                                                    for v in values])
        return out
    h, rows = 0, None
    for position, value in enumerate(values, start=1):
        offset = position * _GOLDEN64 & _MASK64
        if not isinstance(value, np.ndarray):
            word = ((int(value) & _MASK64) + offset) & _MASK64
            if rows is None:
                h = _mix64(h ^ word)
                continue
            rows ^= np.uint64(word)
        else:
            added = value.astype(np.uint64)  # a copy; negative numbers in two's complement, as the mask makes them
            added += np.uint64(offset)
            if rows is None:
                rows, spare = added, np.empty_like(added)
                rows ^= np.uint64(h)
            else:
                rows ^= added
        mix_rows(rows, spare)
    return np.uint64(h) if rows is None else rows


def mix_rows(x, spare) -> None:
    """_mix64 of each number of a numpy uint64 array, in place (it wraps at 2^64 as the mask
    does); `spare`: an array as long, overwritten."""
    import numpy as np

    for shift, multiplier in ((30, _MIX1), (27, _MIX2), (31, None)):
        np.right_shift(x, np.uint64(shift), out=spare)
        x ^= spare
        if multiplier is not None:
            x *= np.uint64(multiplier)


def _combine(values):
    h = 0
    for position, value in enumerate(values, start=1):
        h = _mix64(h ^ ((value + (position * _GOLDEN64 & _MASK64)) & _MASK64))
    return h


def bit_reversed(n: int) -> int:
    """The 63 value bits of a positive INT64 in reverse order, as a bit_reversed_positive
    sequence returns them: consecutive counters land far apart."""
    return int(f"{n:063b}"[::-1], 2)


# FarmHash's Fingerprint64 (farmhashna::Hash64), which Spanner's FARM_FINGERPRINT returns (as
# a signed INT64): its constants, and its paths for 17 to 32 bytes in numpy, the lengths of
# the timestamp text a generated shard column hashes. farmhash.fingerprint64 is the reference.
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
FINGERPRINT_WIDTHS = range(17, 33)  # the lengths fingerprint64_rows computes in numpy


def _rotate(x, shift: int):
    import numpy as np

    return (x >> np.uint64(shift)) | (x << np.uint64(64 - shift))


def _hash_len16(u, v, mul):
    import numpy as np

    a = (u ^ v) * mul
    a ^= a >> np.uint64(47)
    b = (v ^ a) * mul
    b ^= b >> np.uint64(47)
    return b * mul


def fingerprint64_rows(matrix):
    """Fingerprint64 of each row of a (rows, width) uint8 matrix, as numpy uint64: in numpy for
    a width in FINGERPRINT_WIDTHS, row by row with the farmhash package otherwise."""
    import numpy as np

    width = matrix.shape[1]
    if width not in FINGERPRINT_WIDTHS:
        import farmhash

        return np.array([farmhash.fingerprint64(bytes(row)) for row in matrix], dtype=np.uint64)

    rows = np.ascontiguousarray(matrix)

    def fetch(at: int):  # each row's 8 bytes from `at` as a little-endian word, read as one item
        word = np.dtype({"names": ["w"], "formats": ["<u8"], "offsets": [at], "itemsize": width})
        return rows.view(word).ravel()["w"].astype(np.uint64)

    with np.errstate(over="ignore"):  # uint64 arithmetic wraps at 2^64, as the C code's does
        k1, k2, mul = np.uint64(_K1), np.uint64(_K2), np.uint64(_K2 + 2 * width)
        a, b = fetch(0) * k1, fetch(8)
        c, d = fetch(width - 8) * mul, fetch(width - 16) * k2
        return _hash_len16(_rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + k2, 18) + c, mul)
