"""How writes spread over values: uniform, or Zipf-skewed through one inverse of the cumulative
weights (ZipfInverse) that serves a zipf key part, a category part and `--skew`."""

from __future__ import annotations

import bisect
import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from keybench.design.events import WriteEvent
from keybench.design.hashing import stable_hash, stable_hashes
from keybench.errors import KeybenchError

DEFAULT_ZIPF_EXPONENT = 1.1


def uniform_values(column: str, count: int) -> Callable[[WriteEvent, random.Random], int]:
    """One of `count` values, uniform over the writes; the same for the same write and column
    (a table and its index compute it apart)."""
    return lambda e, r: stable_hash(column, e.seq, e.ts_us) % count


def uniform_columns(column: str, count: int) -> Callable:
    """uniform_values for numpy arrays of (entity, ts_us, seq): an int64 array."""
    return lambda entity, ts_us, seq: (stable_hashes(column, seq, ts_us) % count).astype("int64")


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


def zipf_values(column: str, count: int, exponent: float) -> Callable[[WriteEvent, random.Random], int]:
    """Value k (0-based) of `count`, zipf-distributed over the writes (ZipfInverse); the same
    for the same write and column (a table and its index compute it apart)."""
    inverse = zipf_inverse(count, exponent)
    return lambda e, r: inverse.rank(stable_hash("zipf", column, e.seq, e.ts_us) / 2**64)


def zipf_columns(column: str, count: int, exponent: float) -> Callable:
    """zipf_values for numpy arrays of (entity, ts_us, seq): an int64 array (a uint64 hash
    turns into the same float as the int's true division by 2^64: both round once)."""
    inverse = zipf_inverse(count, exponent)
    return lambda entity, ts_us, seq: inverse.ranks(stable_hashes("zipf", column, seq, ts_us).astype("float64") / 2**64)


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
