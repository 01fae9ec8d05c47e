"""The workload: which operation each user does next, on which user or device, and when.

Identical for every strategy of a backend: the same operation mix, population and
seeded choices, so that strategies differ only in their key design.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field

from loadtests.plans import READ_OPERATIONS

INSERT = "insert"
DEFAULT_MIX = {INSERT: 8, "point_read": 1, "latest_n": 1, "prefix_scan": 1, "time_window": 1}


@dataclass(frozen=True)
class WorkloadSettings:
    population: int = 1000  # users (Spanner) or devices (Bigtable)
    latest_n: int = 10  # rows a latest_n read returns
    window_s: float = 2.0  # a time_window read covers the last window_s seconds
    mix: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MIX))

    def operations(self, backend: str) -> tuple[str, ...]:
        return (INSERT,) + READ_OPERATIONS[backend]

    def weights(self, backend: str) -> list[int]:
        return [self.mix.get(op, 0) for op in self.operations(backend)]


class Clock:
    """Microseconds since the epoch, strictly increasing within the process, so that two
    writes of one user or device never share a time (and so never a time-based key)."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def now_us(self) -> int:
        with self._lock:
            self._last = max(time.time_ns() // 1000, self._last + 1)
            return self._last


CLOCK = Clock()


class UserWorkload:
    """One simulated user's seeded stream of choices."""

    _tags = itertools.count(1)

    def __init__(self, settings: WorkloadSettings, backend: str, seed: int, index: int):
        self.settings = settings
        self.rng = random.Random(f"{seed}:{backend}:{index}")
        self.operations = settings.operations(backend)
        self.weights = settings.weights(backend)
        self.tag = f"{index}.{next(self._tags)}"
        self.sequence = 0

    def next_operation(self) -> str:
        return self.rng.choices(self.operations, self.weights)[0]

    def next_entity(self) -> int:
        return self.rng.randint(1, self.settings.population)

    def next_write_id(self, run_tag: str) -> str:
        self.sequence += 1
        return f"{run_tag}-{self.tag}-{self.sequence}"

    def pick(self, items):
        return items[self.rng.randrange(len(items))]
