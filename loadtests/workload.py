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
DEFAULT_MIX = {INSERT: 8, "point_read": 1, "latest_n": 1, "prefix_scan": 1, "time_window": 1, "number_range": 1}


@dataclass(frozen=True)
class WorkloadSettings:
    population: int = 1000  # users (Spanner) or devices (Bigtable)
    latest_n: int = 10  # rows a latest_n read returns
    window_s: float = 2.0  # a time_window read covers the last window_s seconds
    number_span: int = 100  # a number_range read covers this many consecutive insert numbers
    payload_bytes: int = 100  # the non-key column every row carries
    mix: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MIX))
    batch_size: int = 1  # rows per insert operation: one commit (Spanner) or one mutate_rows call (Bigtable)

    def operations(self, backend: str) -> tuple[str, ...]:
        return (INSERT,) + READ_OPERATIONS[backend]

    def weights(self, backend: str) -> list[int]:
        return [self.mix.get(op, 0) for op in self.operations(backend)]


class Clock:
    """Microseconds since the epoch, strictly increasing within the process, so two writes
    never share a time; and one entity's writes never share a millisecond, the granularity
    of Bigtable cell versions (a design that rewrites one row keeps each reading)."""

    def __init__(self) -> None:
        self._last = 0
        self._last_ms: dict[int, int] = {}
        self._lock = threading.Lock()

    def now_us(self, entity: int | None = None) -> int:
        with self._lock:
            t = max(time.time_ns() // 1000, self._last + 1)
            if entity is not None:
                floor_ms = self._last_ms.get(entity, -1) + 1
                if t // 1000 < floor_ms:
                    t = floor_ms * 1000
                self._last_ms[entity] = t // 1000
            self._last = t
            return t


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
