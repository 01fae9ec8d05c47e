"""The workload's settings: the operation mix, the population and its skew, the users' roles
and rates, with each default and its limit in one place. Identical for every strategy of a
backend, so that strategies differ only in their key design."""

from __future__ import annotations

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
from keybench.drive.partition import Partition
from keybench.errors import KeybenchError, check_range

INSERT = "insert"
MAX_PAYLOAD_BYTES = 256 * 1024 * 1024  # Bigtable's hard row limit; each backend's own rule is checked per design
MAX_BATCH_SIZE = 10_000
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 0.1, 3600.0
MAX_WEIGHT = 1_000_000
MAX_USERS = 10_000  # per stage
MAX_RATE = 1_000_000.0  # operations per second per stage (--rate, --read-rate)
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
        self.check_rates(backends)

    def check_rates(self, backends) -> None:
        """--rate and --read-rate: in range, and each with users to pace."""
        check_range("--rate", self.insert_rate, 0, MAX_RATE)
        if self.insert_rate and self.mix.get(INSERT, 0) == 0:
            raise KeybenchError("--rate paces the writers, and --mix gives insert weight 0 (no writers); "
                                "pace the readers with --read-rate")
        check_range("--read-rate", self.read_rate, 0, MAX_RATE)
        if self.read_rate and not any(self.roles(b).readers for b in backends):
            raise KeybenchError(f"--read-rate {self.read_rate:g} paces the readers, and this run has none "
                                "(--readers 0, or every read weight 0 in --mix)")

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

    def running_operations(self, backend: str) -> tuple[str, ...]:
        """The operations a stage of `backend` runs: inserts if it has writers, and the reads
        of the mix if it has readers."""
        roles = self.roles(backend)
        return (INSERT,) * (roles.writers > 0) + tuple(self.read_weights(backend)) * (roles.readers > 0)

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


def given_rate(option: str, rate: float | None) -> float:
    """An open-loop rate as the option gave it (positive), or 0.0 (closed loop) when not given."""
    if rate is not None and not rate > 0:
        raise KeybenchError(f"{option} must be positive, got {rate:g}")
    return rate or 0.0


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
            raise KeybenchError(f"--mix: the weight of {name} must be a whole number from 0 to {MAX_WEIGHT:,}, got "
                                f"{item!r}; "
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
