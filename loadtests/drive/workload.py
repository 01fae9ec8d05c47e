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

from loadtests.backends.base import DEFAULT_PAYLOAD_BYTES, DEFAULT_TIMEOUT_S
from loadtests.design.keys import DEFAULT_POPULATION, MAX_POPULATION
from loadtests.design.plans import DEFAULT_LATEST_N, DEFAULT_NUMBER_SPAN, DEFAULT_WINDOW_S, READ_OPERATIONS
from loadtests.errors import KeybenchError, check_range

INSERT = "insert"
MAX_PAYLOAD_BYTES = 256 * 1024 * 1024  # Bigtable's hard row limit; each backend's own rule is checked per design
MAX_BATCH_SIZE = 10_000
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 0.1, 3600.0
MAX_WEIGHT = 1_000_000
DEFAULT_MIX = {INSERT: 8, "point_read": 1, "latest_n": 1, "prefix_scan": 1, "time_window": 1, "number_range": 1}


@dataclass(frozen=True)
class WorkloadSettings:
    population: int = DEFAULT_POPULATION  # users (Spanner) or devices (Bigtable)
    latest_n: int = DEFAULT_LATEST_N  # rows a latest_n read returns
    window_s: float = DEFAULT_WINDOW_S  # a time_window read covers the last window_s seconds
    number_span: int = DEFAULT_NUMBER_SPAN  # a number_range read covers this many consecutive insert numbers
    payload_bytes: int = DEFAULT_PAYLOAD_BYTES  # the non-key column every row carries
    mix: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MIX))
    user_rate: float = 0.0  # open loop: operations per second each user is due to start; 0 = closed loop
    timeout_s: float = DEFAULT_TIMEOUT_S  # Bigtable: a data operation's deadline, retries included (--op-timeout)
    batch_size: int = 1  # rows per insert operation: one commit (Spanner) or one mutate_rows call (Bigtable)

    def validate(self, backends) -> None:
        """The refusals of the workload's options, for the backends it will load."""
        check_range("--population", self.population, 1, MAX_POPULATION)
        check_range("--payload-bytes", self.payload_bytes, 0, MAX_PAYLOAD_BYTES)
        check_range("--batch-size", self.batch_size, 1, MAX_BATCH_SIZE)
        check_range("--op-timeout (seconds)", self.timeout_s, MIN_TIMEOUT_S, MAX_TIMEOUT_S)
        check_mix(self.mix, backends)

    def operations(self, backend: str) -> tuple[str, ...]:
        return backend_operations(backend)

    def weights(self, backend: str) -> list[int]:
        return [self.mix.get(op, 0) for op in self.operations(backend)]


def backend_operations(backend: str) -> tuple[str, ...]:
    return (INSERT,) + READ_OPERATIONS[backend]


def all_operations() -> tuple[str, ...]:
    """Every operation a mix may weigh, over both backends."""
    return (INSERT,) + tuple(dict.fromkeys(op for ops in READ_OPERATIONS.values() for op in ops))


def parse_mix(text: str) -> dict[str, int]:
    """`insert=8,point_read=1,...`: a weight per operation; operations left out weigh 0."""
    valid = all_operations()
    mix: dict[str, int] = {}
    for item in (i.strip() for i in text.split(",")):
        name, sep, weight = item.partition("=")
        name, weight = name.strip(), weight.strip()
        if name not in valid:
            raise KeybenchError(f"--mix: unknown operation {name!r}; valid operations: {', '.join(valid)}")
        if not sep or not weight.isdigit() or int(weight) > MAX_WEIGHT:
            raise KeybenchError(f"--mix: the weight of {name} must be a whole number from 0 to {MAX_WEIGHT:,}, got {item!r}; "
                                f"e.g. --mix insert=8,point_read=1")
        mix[name] = int(weight)
    return mix


def check_mix(mix: dict[str, int], backends) -> None:
    """Each chosen backend needs some operation of positive weight: an all-zero mix picks nothing."""
    for backend in backends:
        operations = backend_operations(backend)
        if not any(mix.get(op, 0) > 0 for op in operations):
            raise KeybenchError(f"--mix gives every {backend} operation weight 0; give at least one of "
                                f"{', '.join(operations)} a positive weight")


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


@dataclass(frozen=True)
class Partition:
    """This process's share of a distributed run: worker `index` of `count`. Workers take
    disjoint entities and insert numbers, so two of them never write the same key."""

    index: int = 0
    count: int = 1

    def entity(self, rng: random.Random, population: int) -> int:
        return rng.randint(0, (population - 1 - self.index) // self.count) * self.count + self.index + 1

    def insert_numbers(self) -> itertools.count:
        return itertools.count(self.index + 1, self.count)

    def user_index(self, local: int) -> int:
        return local if self.count == 1 else self.index * 100_000 + local


SOLE = Partition()  # a run without workers


class Pacer:
    """Open loop: a user's operations fall due every `interval_s`, whether or not the one
    before has returned. `wait()` sleeps until the next one is due and returns when that was,
    so the collector can measure from the schedule rather than from the late start."""

    def __init__(self, rate_per_s: float, phase: float):
        self.interval_s = 1.0 / rate_per_s
        self.due = time.perf_counter() + phase * self.interval_s  # users start out of step

    def wait(self) -> float:
        due = self.due
        self.due += self.interval_s
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)  # gevent-patched: other users run meanwhile
        return due


class UserWorkload:
    """One simulated user's seeded stream of choices."""

    _tags = itertools.count(1)

    def __init__(self, settings: WorkloadSettings, backend: str, seed: int, index: int,
                 partition: Partition | None = None):
        self.settings = settings
        self.partition = partition or SOLE
        self.rng = random.Random(f"{seed}:{backend}:{index}")
        self.operations = settings.operations(backend)
        self.weights = settings.weights(backend)
        self.tag = f"{index}.{next(self._tags)}"
        self.sequence = 0

    def next_operation(self) -> str:
        return self.rng.choices(self.operations, self.weights)[0]

    def next_entity(self) -> int:
        return self.partition.entity(self.rng, self.settings.population)

    def pacer(self) -> Pacer | None:
        rate = self.settings.user_rate
        return Pacer(rate, self.rng.random()) if rate > 0 else None

    def next_write_id(self, run_tag: str) -> str:
        self.sequence += 1
        return f"{run_tag}-{self.tag}-{self.sequence}"

    def pick(self, items):
        return items[self.rng.randrange(len(items))]
