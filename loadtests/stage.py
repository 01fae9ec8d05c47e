"""A stage: one strategy's fresh table under the workload, from schema to audit.

Both `keybench run` and the plain `locust -f` scenarios drive stages; the Locust users
only ask the stage for the next operation.
"""

from __future__ import annotations

import collections
import time
import uuid
from dataclasses import dataclass

from loadtests.backends.base import Backend
from loadtests.collector import Collector, Series
from loadtests.keys import Event
from loadtests.plans import FULL_SCAN, WRITE, StoredRow, read_plans
from loadtests.strategies import Strategy
from loadtests.workload import CLOCK, INSERT, UserWorkload, WorkloadSettings

RECENT_ROWS = 4096  # acknowledged rows that point and entity reads pick from
PROJECT, INSTANCE = "keybench-local", "keybench"  # the emulator's project and instance


@dataclass(frozen=True)
class Integrity:
    acknowledged: int
    stored: int
    lost: int  # acknowledged, not stored
    duplicates: int  # stored more than once
    unexpected: int  # stored, never written by this stage
    unknown: int  # the call failed or was cut off: stored or not, now resolved by the read-back
    unknown_stored: int

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.duplicates == 0 and self.unexpected == 0

    def describe(self) -> str:
        text = (f"{'ok' if self.ok else 'MISMATCH'} ({self.acknowledged} acknowledged, {self.stored} stored, "
                f"{self.lost} lost, {self.duplicates} duplicated, {self.unexpected} unexpected")
        if self.unknown:
            text += f"; {self.unknown} with unknown outcome, {self.unknown_stored} of them stored"
        return text + ")"


def make_backend(strategy: Strategy, location: str, project: str, instance: str) -> Backend:
    if strategy.backend == "spanner":
        from loadtests.backends.spanner import SpannerBackend

        return SpannerBackend(strategy, location, project, instance)
    from loadtests.backends.bigtable import BigtableBackend

    return BigtableBackend(strategy, location, project, instance)


def run_tag(epoch_s: float | None = None) -> str:
    """A short base-36 stamp of the start time, to keep database ids within 30 characters."""
    n, digits, out = int(time.time() if epoch_s is None else epoch_s), "0123456789abcdefghijklmnopqrstuvwxyz", ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


def location_name(run_id: str, strategy: Strategy) -> str:
    """A database (<= 30 chars) or table id that carries the keybench prefix and the run id."""
    base = f"kb-{run_id}-{strategy.name}".replace("_", "-")
    if len(base) <= 30:
        return base
    return f"{base[:25]}-{uuid.uuid5(uuid.NAMESPACE_URL, base).hex[:4]}"


class Stage:
    def __init__(
        self, strategy: Strategy, backend: Backend, settings: WorkloadSettings, seed: int,
        events=None, tag: str | None = None,
    ):
        self.strategy = strategy
        self.backend = backend
        self.settings = settings
        self.seed = seed
        self.tag = tag or run_tag()
        self.collector = Collector(events)
        self.generator = strategy.key_generator(seed)
        self.plans = read_plans(strategy.backend, strategy.parts, settings.latest_n)
        self.recent: collections.deque[tuple[tuple, StoredRow]] = collections.deque(maxlen=RECENT_ROWS)
        self.users = 0
        self.series = {}
        for op in settings.operations(strategy.backend):
            series = Series(strategy.backend, strategy.name, strategy.dialect, op)
            self.series[op] = series
            self.collector.register(series, WRITE if op == INSERT else self.plans[op].access)

    def setup(self) -> None:
        self.backend.create()

    def new_user(self) -> UserWorkload:
        self.users += 1
        return UserWorkload(self.settings, self.strategy.backend, self.seed, self.users)

    def step(self, user: UserWorkload) -> None:
        """Run the user's next operation through the collector."""
        op = user.next_operation()
        if op != INSERT and not self.recent:
            op = INSERT  # nothing to read yet
        if op == INSERT:
            self.insert(user)
        elif op == "point_read":
            key, row = user.pick(self.recent)
            self.read(op, self.plans[op].build(key, row), expect_rows=1)
        elif op == "time_window":
            t1 = CLOCK.now_us()
            self.read(op, self.plans[op].build(t1 - int(self.settings.window_s * 1e6), t1))
        else:
            _, row = user.pick(self.recent)
            self.read(op, self.plans[op].build(row.entity))

    def insert(self, user: UserWorkload) -> None:
        event = Event(user.next_entity(), CLOCK.now_us(), user.next_write_id(self.tag))
        key = self.generator.key(event)
        self.collector.attempt(event.write_id)
        with self.collector.timed(self.series[INSERT]) as m:
            try:
                self.backend.insert(key, event)
            except BaseException:
                self.collector.fail(event.write_id)
                raise
            self.collector.acknowledge(event.write_id)
            self.recent.append((key, StoredRow(event.entity, event.ts_us, event.write_id)))
            m.rows, m.fanout = 1, 1

    def read(self, op: str, request, expect_rows: int | None = None) -> None:
        plan = self.plans[op]
        with self.collector.timed(self.series[op]) as m:
            if request.limit is not None and request.spans and len(request.spans) > 1:
                # a per-range row limit needs one request per range
                raw = [r for span in request.spans for r in self.backend.read((span,), request.limit)]
            else:
                raw = self.backend.read(request.spans, request.limit)
            rows, strays = request.answer(raw)
            m.rows, m.rows_scanned, m.fanout, m.strays = len(rows), len(raw), plan.fanout, strays
            if strays:
                raise AssertionError(f"{op} returned {strays} row(s) outside the requested range")
            if expect_rows is not None and len(rows) != expect_rows:
                raise AssertionError(f"{op} of an acknowledged row returned {len(rows)} rows, expected {expect_rows}")

    def audit(self) -> Integrity:
        """Read every stored WriteId back and compare with the ledger."""
        stored = self.backend.write_ids()
        counts = collections.Counter(stored)
        ledger = self.collector.ledger
        unknown = ledger.failed | ledger.attempted
        known = ledger.acknowledged | unknown
        return Integrity(
            acknowledged=len(ledger.acknowledged),
            stored=len(stored),
            lost=sum(1 for w in ledger.acknowledged if w not in counts),
            duplicates=sum(c - 1 for c in counts.values() if c > 1),
            unexpected=sum(1 for w in counts if w not in known),
            unknown=len(unknown),
            unknown_stored=sum(1 for w in unknown if w in counts),
        )

    def full_scan_operations(self) -> list[str]:
        return [op for op, plan in self.plans.items() if plan.access == FULL_SCAN]

    def teardown(self, drop: bool = True) -> None:
        try:
            if drop:
                self.backend.drop()
        finally:
            self.backend.close()
