"""A stage: one strategy's fresh table under the workload, from schema to audit.

Both `keybench run` and the plain `locust -f` scenarios drive stages; the Locust users
only ask the stage for the next operation.
"""

from __future__ import annotations

import collections
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from loadtests.backends.base import DEFAULT_PAYLOAD_BYTES, DEFAULT_TIMEOUT_S, Backend, KeyCollision
from loadtests.collector import Collector, Series
from loadtests.keys import Event, preload_keys, stable_hash
from loadtests.keyspace import KeyEncoder
from loadtests.plans import WRITE, ReadRequest, Span, StoredRow, strategy_plans
from loadtests.strategies import Strategy
from loadtests.truth import WrittenRows
from loadtests.workload import CLOCK, INSERT, SOLE, Partition, UserWorkload, WorkloadSettings

RECENT_ROWS = 4096  # acknowledged rows that point and entity reads pick from
PROJECT, INSTANCE = "keybench-local", "keybench"  # the emulator's project and instance


@dataclass(frozen=True)
class TenantDrop:
    tenant: str
    seconds: float
    tenant_rows: int  # rows the stage wrote for the tenant
    removed: int  # rows the prefix delete removed
    left_behind: int  # tenant rows still readable afterwards
    others_removed: int  # rows of other tenants that disappeared

    @property
    def ok(self) -> bool:
        return self.left_behind == 0 and self.others_removed == 0 and self.removed == self.tenant_rows


@dataclass(frozen=True)
class Integrity:
    acknowledged: int
    stored: int
    lost: int  # acknowledged, not stored
    duplicates: int  # stored more than once
    unexpected: int  # stored, never written by this stage
    unknown: int  # the call failed or was cut off: stored or not, now resolved by the read-back
    unknown_stored: int
    verified: bool = True  # False: nothing could be read back (the database went away)
    cause: str = ""  # why not verified

    @classmethod
    def unverifiable(cls, ledger, cause: str) -> Integrity:
        unknown = len(ledger.failed | ledger.attempted)
        return cls(len(ledger.acknowledged), 0, 0, 0, 0, unknown, 0, verified=False, cause=cause)

    @property
    def ok(self) -> bool:
        return self.verified and self.lost == 0 and self.duplicates == 0 and self.unexpected == 0

    def describe(self) -> str:
        if not self.verified:
            return (f"UNVERIFIED ({self.acknowledged} acknowledged writes could not be read back: {self.cause})")
        text = (f"{'ok' if self.ok else 'MISMATCH'} ({self.acknowledged} acknowledged, {self.stored} stored, "
                f"{self.lost} lost, {self.duplicates} duplicated, {self.unexpected} unexpected")
        if self.unknown:
            text += f"; {self.unknown} with unknown outcome, {self.unknown_stored} of them stored"
        return text + ")"


def make_backend(strategy: Strategy, location: str, project: str, instance: str,
                 payload_bytes: int = DEFAULT_PAYLOAD_BYTES,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> Backend:
    if strategy.backend == "spanner":
        from loadtests.backends.spanner import SpannerBackend

        return SpannerBackend(strategy, location, project, instance, payload_bytes)
    from loadtests.backends.bigtable import BigtableBackend

    return BigtableBackend(strategy, location, project, instance, payload_bytes, timeout_s)


def run_tag(epoch_s: float | None = None) -> str:
    """A short base-36 stamp of the start time and four random digits: database ids stay within
    30 characters, and two runs started in the same second still get different ones."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    n, out = int(time.time() if epoch_s is None else epoch_s), ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out + "".join(random.choice(digits) for _ in range(4))


def location_name(run_id: str, strategy: Strategy) -> str:
    """A database (<= 30 chars) or table id that carries the keybench prefix and the run id."""
    dialect = {"postgresql": "-pg", "googlesql": "-gsql"}.get(strategy.dialect, "")
    base = f"kb-{run_id}-{strategy.name}{dialect}".replace("_", "-")
    if len(base) <= 30:
        return base
    return f"{base[:25]}-{uuid.uuid5(uuid.NAMESPACE_URL, base).hex[:4]}"


class Stage:
    def __init__(
        self, strategy: Strategy, backend: Backend, settings: WorkloadSettings, seed: int,
        events=None, tag: str | None = None, partition: Partition = SOLE,
    ):
        self.strategy = strategy
        self.backend = backend
        self.settings = settings
        self.seed = seed
        self.tag = tag or run_tag()
        self.partition = partition
        self.collector = Collector(events)
        # Workers draw different random keys (UUIDs, ...) from different seeds.
        self.generator = strategy.key_generator(seed if partition.count == 1 else stable_hash(seed, partition.index))
        self.plans = strategy_plans(strategy, settings.latest_n)
        self.encoder = KeyEncoder(strategy)  # keys as the database orders them, for the split model
        self.recent: collections.deque[tuple[tuple, StoredRow]] = collections.deque(maxlen=RECENT_ROWS)
        self.written = WrittenRows()
        self._seq = partition.insert_numbers()
        self.users = 0
        self.series = {}
        for op in settings.operations(strategy.backend):
            series = Series(strategy.backend, strategy.name, strategy.dialect, op)
            self.series[op] = series
            self.collector.register(series, WRITE if op == INSERT else self.plans[op].access)

    def setup(self) -> None:
        self.backend.create()
        self.preload()

    def new_user(self) -> UserWorkload:
        self.users += 1
        return UserWorkload(self.settings, self.strategy.backend, self.seed, self.partition.user_index(self.users),
                            self.partition)

    def step(self, user: UserWorkload, intended: float | None = None) -> None:
        """Run the user's next operation through the collector; `intended` is when an
        open-loop schedule made it due."""
        op = user.next_operation()
        if op != INSERT and not self.recent:
            op = INSERT  # nothing to read yet
        if op == INSERT:
            self.insert(user, intended)
            return
        plan, started = self.plans[op], time.monotonic_ns()
        if op == "point_read":
            key, row = user.pick(self.recent)
            self.read(op, plan.build(key, row), lambda answer: {row.write_id}, intended)
        elif op == "time_window":
            t1 = CLOCK.now_us()
            t0 = t1 - int(self.settings.window_s * 1e6)
            self.read(op, plan.build(t0, t1), lambda answer: self.written.in_time_window(t0, t1, started), intended)
        elif op == "number_range":
            last = user.pick(self.recent)[1].seq
            first = max(1, last - self.settings.number_span + 1)
            self.read(op, plan.build(first, last),
                      lambda answer: self.written.in_number_range(first, last, started), intended)
        elif op == "latest_n":
            entity, n = user.pick(self.recent)[1].entity, self.settings.latest_n
            self.read(op, plan.build(entity),
                      lambda answer: self.written.newest_of_entity(entity, started, answer, n), intended)
        else:
            entity = user.pick(self.recent)[1].entity
            self.read(op, plan.build(entity), lambda answer: self.written.of_entity(entity, started), intended)

    def insert(self, user: UserWorkload, intended: float | None = None) -> None:
        """One insert operation: `settings.batch_size` rows in one call, timed and recorded
        once; the ledger still counts every row by its WriteId."""
        events = []
        for _ in range(self.settings.batch_size):
            entity = user.next_entity()
            events.append(Event(entity, CLOCK.now_us(entity), user.next_write_id(self.tag), next(self._seq)))
        keys = [self.generator.key(e) for e in events]
        for e in events:
            self.collector.attempt(e.write_id)
        with self.collector.timed(self.series[INSERT], intended) as m:
            try:
                if len(events) == 1:
                    keys = [self.backend.insert(keys[0], events[0])]
                else:
                    keys = self.backend.insert_batch(list(zip(keys, events)))
            except BaseException as exc:
                # Refused whole, stored in part, or unanswered: each row's outcome is for the audit to read back.
                for e in events:
                    self.collector.fail(e.write_id)
                if not isinstance(exc, KeyCollision):
                    raise
                m.collision = True
            else:
                for e in events:
                    self.collector.acknowledge(e.write_id)
                m.rows, m.fanout = len(events), 1
        if m.error is None and not m.collision:
            acked, now = time.monotonic_ns(), time.time()
            for key, e in zip(keys, events):
                row = StoredRow(e.entity, e.ts_us, e.write_id, e.seq)
                self.written.add(row, acked)
                self.collector.keys.record_insert(self.encoder, key, e, now)
                self.recent.append((key, row))

    def preload(self) -> int:
        """A migration's source rows, written before the load and counted as acknowledged."""
        spec = self.strategy.preload
        if not spec:
            return 0
        day_ago = CLOCK.now_us() - 86_400_000_000
        keys = preload_keys(spec["keys"], spec["rows"], self.seed)
        rows = [(k, Event(i % self.settings.population + 1, day_ago + i * 1000, f"{self.tag}-pre-{i}"))
                for i, k in enumerate(keys)]
        self.backend.preload([((k,), e) for k, e in rows])
        acked = time.monotonic_ns()
        for k, e in rows:
            self.collector.acknowledge(e.write_id)
            self.written.add(StoredRow(e.entity, e.ts_us, e.write_id), acked)
        return len(rows)

    def read(self, op: str, request: ReadRequest, expected: Callable[[list[StoredRow]], set[str]],
             intended: float | None = None) -> None:
        """Time one read; then count the rows it should not have returned and the
        acknowledged rows it should have returned but did not."""
        plan = self.plans[op]
        with self.collector.timed(self.series[op], intended) as m:
            if request.limit is not None and request.spans and len(request.spans) > 1:
                # a per-range row limit needs one request per range
                raw = [r for span in request.spans for r in self.backend.read((span,), request.limit)]
            else:
                raw = self.backend.read(request.spans, request.limit, request.where, request.index, request.join)
            rows, m.strays = request.answer(raw)
            m.rows, m.fanout = len(rows), plan.fanout
            # A full scan reads every row the table holds, whatever the client keeps.
            m.rows_scanned = max(len(raw), len(self.written)) if request.spans is None else len(raw)
        if m.error is None:
            self.collector.keys.record_read(self.encoder, request, time.time(), op)
            self.collector.add_missing(self.series[op], len(expected(rows) - {r.write_id for r in rows}))

    def finish(self) -> tuple[Integrity, TenantDrop | None]:
        """After the load: the integrity audit, then the strategy's own checks."""
        integrity = self.audit()
        return integrity, self.drop_tenant()

    def drop_tenant(self) -> TenantDrop | None:
        """Multi-tenant designs: drop the first tenant by its row-key prefix, then check that
        exactly its rows are gone."""
        if not self.strategy.parts or self.strategy.parts[0].name != "tenant":
            return None
        tenant_of = self.strategy.parts[0].of_entity
        victim = tenant_of(1)
        prefix = (victim,)
        # Decided from the rows as stored, not from the ledger: a write whose outcome was
        # unknown may be stored too.
        before = {r.write_id: tenant_of(r.entity) for r in self.backend.read(None)}
        started = time.perf_counter()
        self.backend.delete_prefix(prefix)
        seconds = time.perf_counter() - started
        after = set(self.backend.write_ids())
        removed = [w for w in before if w not in after]
        return TenantDrop(
            tenant=victim, seconds=seconds, tenant_rows=sum(1 for t in before.values() if t == victim),
            removed=len(removed), left_behind=len(self.backend.read((Span(prefix, prefix),))),
            others_removed=sum(1 for w in removed if before[w] != victim),
        )

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

    def teardown(self, drop: bool = True) -> None:
        try:
            if drop:
                self.backend.drop()
        finally:
            self.backend.close()
