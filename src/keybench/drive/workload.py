"""The workload: which operation each user does next, on which user or device, and when.

Identical for every strategy of a backend: the same operation mix, population and
seeded choices, so that strategies differ only in their key design.

Each user has one role for its whole life: a writer only inserts, a reader only reads
(choosing its reads by their weights in the mix). A read can take a hundred times longer
than an insert (a full scan on the emulator: 100-900 ms), and a user that did both would
insert only between its reads, so reads and writes come from separate users and a slow
read never throttles the write rate.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field

from keybench.backends.base import DEFAULT_PAYLOAD_BYTES, DEFAULT_TIMEOUT_S
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.keys import DEFAULT_POPULATION, MAX_POPULATION
from keybench.design.plans import (
    DEFAULT_LATEST_N,
    DEFAULT_NUMBER_SPAN,
    DEFAULT_WINDOW_S,
    READ_OPERATIONS,
)
from keybench.errors import KeybenchError, check_range

INSERT = "insert"
MAX_PAYLOAD_BYTES = 256 * 1024 * 1024  # Bigtable's hard row limit; each backend's own rule is checked per design
MAX_BATCH_SIZE = 10_000
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 0.1, 3600.0
MAX_WEIGHT = 1_000_000
MAX_USERS = 10_000  # per stage
DEFAULT_MIX = {INSERT: 8, "point_read": 1, "latest_n": 1, "prefix_scan": 1, "time_window": 1, "number_range": 1}
WRITER, READER = "writer", "reader"
# How many of a stage's users read, and how much of their time, unless --readers,
# --read-share or --read-rate say otherwise: measured so that a stage of the default
# comparison keeps at least half the insert rate of an insert-only stage of the same design
# (benchmarks/write_rate_under_reads.py; a reader back to back cut Spanner's to about a quarter).
DEFAULT_READERS = 1
DEFAULT_READ_SHARE = 0.2
MIN_READ_SHARE = 0.01


@dataclass(frozen=True)
class Roles:
    """How a stage's users split: writers only insert, readers only read."""

    writers: int
    readers: int


@dataclass(frozen=True)
class WorkloadSettings:
    population: int = DEFAULT_POPULATION  # users (Spanner) or devices (Bigtable)
    skew: str = str(UNIFORM)  # how a write picks its user or device (--skew): "uniform" or "zipf:S"
    latest_n: int = DEFAULT_LATEST_N  # rows a latest_n read returns
    window_s: float = DEFAULT_WINDOW_S  # a time_window read covers the last window_s seconds
    number_span: int = DEFAULT_NUMBER_SPAN  # a number_range read covers this many consecutive insert numbers
    payload_bytes: int = DEFAULT_PAYLOAD_BYTES  # the non-key column every row carries
    mix: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MIX))
    users: int = 1  # Locust users per stage, split into writers and readers (`keybench run` sets --users)
    readers: int | None = None  # users that only read; None: DEFAULT_READERS, leaving at least one writer
    insert_rate: float = 0.0  # open loop: inserts per second per stage, spread over the writers; 0 = closed loop
    read_rate: float = 0.0  # open loop: reads per second per stage, spread over the readers; 0 = closed loop
    read_share: float = DEFAULT_READ_SHARE  # closed loop: the share of a reader's time spent reading (see ReadShare)
    timeout_s: float = DEFAULT_TIMEOUT_S  # Bigtable: a data operation's deadline, retries included (--op-timeout)
    batch_size: int = 1  # rows per insert operation: one commit (Spanner) or one mutate_rows call (Bigtable)

    def validate(self, backends) -> None:
        """The refusals of the workload's options, for the backends it will load."""
        check_range("--population", self.population, 1, MAX_POPULATION)
        Skew.parse(self.skew)
        check_range("--payload-bytes", self.payload_bytes, 0, MAX_PAYLOAD_BYTES)
        check_range("--batch-size", self.batch_size, 1, MAX_BATCH_SIZE)
        check_range("--op-timeout (seconds)", self.timeout_s, MIN_TIMEOUT_S, MAX_TIMEOUT_S)
        check_mix(self.mix, backends)
        self.check_readers(backends)
        check_range("--read-share", self.read_share, MIN_READ_SHARE, 1.0)

    def check_readers(self, backends) -> None:
        """An explicit --readers must leave a writer and find a read to do."""
        if self.readers is None:
            return
        check_range("--readers", self.readers, 0, MAX_USERS)
        if self.mix.get(INSERT, 0) == 0:
            raise KeybenchError(f"--readers {self.readers}: --mix gives insert weight 0, so every user reads; "
                                "leave --readers out")
        if self.readers and not any(self.read_weights(b) for b in backends):
            raise KeybenchError(f"--readers {self.readers}: --mix gives every read weight 0, so no user reads; "
                                "weigh a read or leave --readers out")
        if self.readers >= self.users:
            raise KeybenchError(f"--readers {self.readers} leaves no writer among --users {self.users}: give fewer "
                                "readers, or insert weight 0 in --mix for a stage that only reads")

    def operations(self, backend: str) -> tuple[str, ...]:
        return backend_operations(backend)

    def weights(self, backend: str) -> list[int]:
        return [self.mix.get(op, 0) for op in self.operations(backend)]

    def read_weights(self, backend: str) -> dict[str, int]:
        """The reads a reader of `backend` chooses from, by weight (positive weights only)."""
        return {op: self.mix[op] for op in READ_OPERATIONS[backend] if self.mix.get(op, 0) > 0}

    def roles(self, backend: str) -> Roles:
        """The stage's writers and readers: a mix without reads (for this backend) has no
        readers, one without inserts no writers; otherwise `readers` of the users read."""
        if not self.read_weights(backend):
            return Roles(self.users, 0)
        if self.mix.get(INSERT, 0) == 0:
            return Roles(0, self.users)
        readers = self.reader_count()
        return Roles(self.users - readers, readers)

    def reader_count(self) -> int:
        """--readers as given, else DEFAULT_READERS, but never every user (one user writes)."""
        return self.readers if self.readers is not None else max(0, min(DEFAULT_READERS, self.users - 1))

    def local_roles(self, backend: str, partition: Partition) -> Roles:
        """This process's share of the writers and readers, as Locust shares out the users."""
        users, readers = partition.share(self.users), partition.share(self.roles(backend).readers)
        return Roles(users - readers, readers)

    def role(self, backend: str, local_index: int, partition: Partition) -> str:
        """The role of this process's `local_index`-th user (from 1): writers first, so the
        first rows are on their way when the readers start; any user beyond --users (added
        in the web UI) writes."""
        local = self.local_roles(backend, partition)
        return READER if local.writers < local_index <= local.writers + local.readers else WRITER

    def rate_per_user(self, backend: str, role: str) -> float:
        """Open loop: operations per second each user of `role` is due to start; 0 = closed loop."""
        roles = self.roles(backend)
        total, users = (self.insert_rate, roles.writers) if role == WRITER else (self.read_rate, roles.readers)
        return total / users if total and users else 0.0


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


USERS_PER_WORKER = 100_000  # user indexes per worker: worker i's users are i * 100,000 + 1, + 2, ...


@dataclass(frozen=True)
class Partition:
    """This process's share of a distributed run: worker `index` of `count`. Workers take
    disjoint entities and insert numbers, so two of them never write the same key."""

    index: int = 0
    count: int = 1

    def entity(self, rng: random.Random, population: int, skew: Skew = UNIFORM) -> int:
        """An entity of this partition's share (every count-th from index + 1), picked as `skew`
        says: the partition's first entity is its heaviest."""
        share = (population - 1 - self.index) // self.count + 1
        if skew.exponent is None:
            return rng.randint(0, share - 1) * self.count + self.index + 1
        return skew.index(rng.random(), share) * self.count + self.index + 1

    def insert_numbers(self) -> itertools.count:
        return itertools.count(self.index + 1, self.count)

    def user_index(self, local: int) -> int:
        return local if self.count == 1 else self.index * USERS_PER_WORKER + local

    @staticmethod
    def writer_of(write_id: str) -> int | None:
        """The index of the worker whose user wrote `write_id` (UserWorkload.next_write_id);
        None for a row no user wrote (a preload row)."""
        tag = write_id.rsplit("-", 2)[-2] if write_id.count("-") >= 2 else ""
        user = tag.split(".", 1)[0]
        return int(user) // USERS_PER_WORKER if user.isdigit() else None

    def share(self, total: int) -> int:
        """This worker's share of `total` users of one role, spread as evenly as Locust spreads users."""
        return total // self.count + (1 if self.index < total % self.count else 0)


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


class ReadShare:
    """Closed loop with rests, for readers: after a read that took d seconds the reader rests
    d * (1 - share) / share, so its reads fill `share` of its time. A read that costs ten times
    more is sent ten times less often: each reader loads the database by about `share`,
    whatever a design's reads cost (a point read takes ~5 ms, a full scan 100-900 ms), where a
    fixed rate either starves cheap designs of reads or lets expensive ones crowd out the writes."""

    def __init__(self, share: float):
        self.rest_per_busy_s = (1.0 - share) / share
        self.rest_s = 0.0  # before the next read

    def after(self, seconds: float) -> None:
        self.rest_s = seconds * self.rest_per_busy_s


class UserWorkload:
    """One simulated user's seeded stream of choices, in one role (WRITER or READER)."""

    _tags = itertools.count(1)

    def __init__(self, settings: WorkloadSettings, backend: str, seed: int, index: int,
                 partition: Partition | None = None, role: str = WRITER):
        self.settings = settings
        self.backend = backend
        self.partition = partition or SOLE
        self.skew = Skew.parse(settings.skew)
        self.role = role
        self.rng = random.Random(f"{seed}:{backend}:{index}")
        self.weights = {INSERT: 1} if role == WRITER else settings.read_weights(backend)
        # Each reader starts its turn at a different point, so two readers do not read in step.
        self.credit = {op: self.rng.random() * w for op, w in self.weights.items()}
        self.tag = f"{index}.{next(self._tags)}"
        self.sequence = 0

    def next_operation(self) -> str:
        """The operation whose turn it is, by smooth weighted round robin: every operation gets
        its weight's share within each round of sum(weights) picks. A reader makes only tens of
        reads in a short stage; a random draw would leave some read with no sample at all."""
        if len(self.weights) == 1:
            return next(iter(self.weights))
        total = 0
        for op, weight in self.weights.items():
            self.credit[op] += weight
            total += weight
        op = max(self.credit, key=self.credit.__getitem__)
        self.credit[op] -= total
        return op

    def next_entity(self) -> int:
        return self.partition.entity(self.rng, self.settings.population, self.skew)

    def pacer(self) -> Pacer | None:
        rate = self.settings.rate_per_user(self.backend, self.role)
        return Pacer(rate, self.rng.random()) if rate > 0 else None

    def read_share(self) -> ReadShare | None:
        """A closed-loop reader's rests (None: a writer, an open-loop reader, or share 1)."""
        share = self.settings.read_share
        if self.role != READER or self.settings.read_rate or share >= 1.0:
            return None
        return ReadShare(share)

    def next_write_id(self, run_tag: str) -> str:
        self.sequence += 1
        return f"{run_tag}-{self.tag}-{self.sequence}"

    def pick(self, items):
        return items[self.rng.randrange(len(items))]
