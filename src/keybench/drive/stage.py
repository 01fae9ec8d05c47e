"""A stage: one strategy's fresh table under the workload, from schema to audit.

`keybench run`, the plain `locust -f` scenarios and the Locust workers all build their
stages one way, from a `StageDefinition`; the Locust users only ask the stage for the next
operation. A finished stage ends in a plain record (`measure.stage_result.StageResult`).
"""

from __future__ import annotations

import collections
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

import gevent

from keybench.backends import open_backend
from keybench.backends.base import Backend, KeyCollision
from keybench.design.byteorder import KeyEncoder
from keybench.design.events import WriteEvent
from keybench.design.hashing import stable_hash
from keybench.design.keys import preload_keys
from keybench.design.plans import WRITE, ReadRequest, Span, StoredRow, strategy_plans
from keybench.design.strategies import Strategy, load_strategy, schemas_root
from keybench.design.truth import WrittenRows
from keybench.drive.pacing import CLOCK
from keybench.drive.partition import SOLE, Partition
from keybench.drive.settings import INSERT, WorkloadSettings
from keybench.drive.workload import UserWorkload
from keybench.infra.target import INSTANCE, PROJECT, location_name, run_tag
from keybench.measure.audit import Integrity, TenantDrop, audit
from keybench.measure.collector import Collector, Series
from keybench.measure.stage_result import StageResult

RECENT_ROWS = 4096  # acknowledged rows that point and entity reads pick from
# A long stage's memory: recorded inserts and reads wait to be encoded into the key stream (as
# Python objects, about 330 bytes each) and the oldest acknowledged rows wait to go to disk
# (design.truth). Past this backlog, the stage does that work in the moments its load waits;
# past twice this, a slice at every insert. A shorter stage does it all after its load.
BACKLOG = 8_192
BACKLOG_SLICE = 64  # inserts, reads or rows handled at a time: about a millisecond
ROWS_WAIT_S = 0.05  # a reader's poll for the first row the writers acknowledge
DEADLINE_GRACE_S = 0.5  # past --op-timeout: lets a client's own deadline error arrive first
NO_INDEXES: frozenset[str] = frozenset()


class OperationDeadline(TimeoutError):
    """An operation that had no answer by its deadline."""


@dataclass(frozen=True)
class StageDefinition:
    """Everything needed to build a stage, in plain types: a Locust master sends it to its
    workers as it is, and every builder of a stage goes through `build`."""

    backend: str
    strategy: str
    dialect: str
    # The strategy's folder: relative to the schemas root when it lies there (a worker on another
    # machine finds it in its own checkout), else absolute (a user's own folder).
    directory: str
    buckets: int | None
    location: str
    project: str
    instance: str
    settings: dict  # WorkloadSettings as a dict: payload size and deadline included
    seed: int
    tag: str
    endpoint: str | None = None  # the real service's HOST:PORT (`--endpoint`); None: its default, or the emulator

    @classmethod
    def of(cls, strategy: Strategy, settings: WorkloadSettings, seed: int, tag: str | None = None,
           buckets: int | None = None, project: str = PROJECT, instance: str = INSTANCE,
           endpoint: str | None = None) -> StageDefinition:
        tag = tag or run_tag()
        folder = strategy.directory.resolve()
        root = schemas_root().resolve()
        directory = str(folder.relative_to(root)) if folder.is_relative_to(root) else str(folder)
        return cls(strategy.backend, strategy.name, strategy.dialect, directory, buckets,
                   location_name(tag, strategy), project, instance, dataclasses.asdict(settings), seed, tag, endpoint)

    def running_operations(self) -> tuple[str, ...]:
        """The operations the stage's users run."""
        return WorkloadSettings(**self.settings).running_operations(self.backend)

    def build(self, partition: Partition = SOLE, events=None) -> Stage:
        strategy = load_strategy(schemas_root() / self.directory, self.backend, self.dialect, self.buckets)
        settings = WorkloadSettings(**self.settings)
        backend = open_backend(strategy, self.location, self.project, self.instance, settings.payload_bytes,
                               settings.timeout_s, self.endpoint)
        return Stage(strategy, backend, settings, self.seed, events=events, tag=self.tag, partition=partition)


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
        self.created = False  # teardown drops only what this stage's own setup created
        self.collector = Collector(events)
        # Workers draw different random keys (UUIDs, ...) from different seeds.
        self.generator = strategy.key_generator(seed if partition.count == 1 else stable_hash(seed, partition.index))
        self.plans = strategy_plans(strategy, settings.latest_n)
        self.encoder = KeyEncoder(strategy)  # keys as the database orders them, for the split model
        self.recent: collections.deque[tuple[tuple, StoredRow]] = collections.deque(maxlen=RECENT_ROWS)
        self.written = WrittenRows()
        self._housekeeping: gevent.Greenlet | None = None
        self._seq = partition.insert_numbers()
        self.users = 0
        self.local_roles = settings.local_roles(strategy.backend, partition)
        # The rows reads pick from and are checked against: not kept when the mix has no reads.
        self.keeps_rows = bool(settings.read_weights(strategy.backend))
        self.series = {}
        for op in settings.operations(strategy.backend):
            series = Series(strategy.backend, strategy.name, strategy.dialect, op)
            self.series[op] = series
            self.collector.register(series, WRITE if op == INSERT else self.plans[op].access)

    def setup(self) -> None:
        try:
            self.backend.create()
        except gevent.GreenletExit:
            # Cut short (a signal, a silent database) while the database was being created: it
            # may exist, under this run's own name, so teardown drops it (a drop of nothing is none).
            self.created = True
            raise
        self.created = True
        self.preload()

    def new_user(self) -> UserWorkload:
        """The next user's workload, in the role the settings give it (writers first)."""
        self.users += 1
        backend = self.strategy.backend
        return UserWorkload(self.settings, backend, self.seed, self.partition.user_index(self.users), self.partition,
                            self.settings.role(backend, self.users, self.partition))

    def step(self, user: UserWorkload, intended: float | None = None) -> str | None:
        """Run the user's next operation through the collector and name the one it ran (None:
        a reader waited for the first row); `intended` is when an open-loop schedule made it due."""
        op = user.next_operation()
        if op != INSERT and not self.recent:
            if self.local_roles.writers:
                # Nothing to read yet: this process's writers are writing it. An insert here
                # could hold the reader for seconds (a key the database generates, retried aborts).
                gevent.sleep(ROWS_WAIT_S)
                return None
            op = INSERT  # no writer here: the reader writes the row its reads start from, once
        if op == INSERT:
            self.insert(user, intended)
            return op
        plan, started = self.plans[op], time.monotonic_ns()
        if op == "point_read":
            key, row = user.pick(self.recent)
            self.read(op, plan.build(key, row), lambda answer: {row.write_id}, intended)
        elif op == "time_window":
            t1 = CLOCK.now_us()
            t0 = t1 - int(self.settings.window_s * 1e6)
            request = plan.build(t0, t1)
            self.read(op, request, lambda answer: self.written.in_time_window(t0, t1, started, request.index),
                      intended)
        elif op == "number_range":
            last = user.pick(self.recent)[1].seq
            first = max(1, last - self.settings.number_span + 1)
            request = plan.build(first, last)
            self.read(op, request,
                      lambda answer: self.written.in_number_range(first, last, started, request.index), intended)
        elif op == "latest_n":
            entity, n = user.pick(self.recent)[1].entity, self.settings.latest_n
            request = plan.build(entity)
            self.read(op, request,
                      lambda answer: self.written.newest_of_entity(entity, started, answer, n, request.index), intended)
        else:
            entity = user.pick(self.recent)[1].entity
            request = plan.build(entity)
            self.read(op, request, lambda answer: self.written.of_entity(entity, started, request.index), intended)
        return op

    def insert(self, user: UserWorkload, intended: float | None = None) -> None:
        """One insert operation: `settings.batch_size` rows in one call, timed and recorded
        once; the ledger still counts every row by its WriteId."""
        events, keys = [], []
        for _ in range(self.settings.batch_size):
            entity = user.next_entity()
            event = WriteEvent(entity, CLOCK.now_us(entity), user.next_write_id(self.tag), next(self._seq))
            events.append(event)
            keys.append(self.generator.key(event))
            self.collector.attempt(event.write_id)
        with self.collector.timed(self.series[INSERT], intended) as m:
            deadline = self._deadline()
            try:
                try:
                    if len(events) == 1:
                        keys = [self.backend.insert(keys[0], events[0])]
                    else:
                        keys = self.backend.insert_batch(list(zip(keys, events, strict=True)))
                finally:
                    m.aborts = self.backend.take_aborts()
                    if deadline is not None:
                        deadline.close()
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
            stream = self.collector.key_stream
            for key, e in zip(keys, events, strict=True):
                stream.record_insert(self.encoder, key, e, now)
                if self.keeps_rows:
                    row = StoredRow(e.entity, e.ts_us, e.write_id, e.seq)
                    self.written.add(row, acked, self.unindexed(e))
                    self.recent.append((key, row))
            self._bound_backlog()

    def _bound_backlog(self) -> None:
        """Keep a long stage's memory bounded (see BACKLOG)."""
        stream = self.collector.key_stream
        if stream.backlog() < BACKLOG and not self.written.moving:
            return
        if stream.backlog() >= 2 * BACKLOG:  # the load never waits: no moment to wait for
            stream.encode_some(max(BACKLOG_SLICE, stream.backlog() - 2 * BACKLOG))  # an insert may be a batch
        if self._housekeeping is None or self._housekeeping.dead:
            self._housekeeping = gevent.spawn(self._housekeep)

    def _housekeep(self) -> None:
        stream = self.collector.key_stream
        while stream.backlog() > BACKLOG // 2 or self.written.moving:
            gevent.idle()  # until nothing else is ready to run: the users all wait for the database
            if not self.written.move_some(BACKLOG_SLICE):
                stream.encode_some(BACKLOG_SLICE)

    def unindexed(self, event: WriteEvent) -> frozenset[str]:
        """The NULL_FILTERED indexes that hold no entry for the row `event` writes: a read
        through one of them must not expect the row."""
        if not self.strategy.indexes:
            return NO_INDEXES
        return frozenset(i.name for i in self.strategy.indexes if not i.holds_write(event))

    def _deadline(self) -> gevent.Timeout | None:
        """Every operation ends by its deadline (`--op-timeout`), whatever the client does:
        a stalled database makes it a failure (an insert's outcome unknown, for the audit to
        settle), never a user stuck for good. A client's own deadline, where it has one, comes
        first; this is the backstop, started here for the caller to close. None where the
        backend enforces the deadline itself (`Backend.enforces_deadline`): a timer per
        operation costs the load a few microseconds."""
        if self.backend.enforces_deadline:
            return None
        late = OperationDeadline(f"no answer within --op-timeout {self.settings.timeout_s:g}s")
        return gevent.Timeout.start_new(self.settings.timeout_s + DEADLINE_GRACE_S, late)

    def preload(self) -> int:
        """A migration's source rows, written before the load and counted as acknowledged."""
        spec = self.strategy.preload
        if not spec:
            return 0
        day_ago = CLOCK.now_us() - 86_400_000_000
        keys = preload_keys(spec["keys"], spec["rows"], self.seed, tuple(spec.get("with_keys", ())))
        rows = [(k, WriteEvent(i % self.settings.population + 1, day_ago + i * 1000, f"{self.tag}-pre-{i}"))
                for i, k in enumerate(keys)]
        self.backend.preload([((k,), e) for k, e in rows])
        self.collector.key_stream.record_initial(self.encoder, [((k,), e) for k, e in rows])
        acked = time.monotonic_ns()
        for _, e in rows:
            self.collector.acknowledge(e.write_id)
            self.written.add(StoredRow(e.entity, e.ts_us, e.write_id), acked, self.unindexed(e))
        return len(rows)

    def read(self, op: str, request: ReadRequest, expected: Callable[[list[StoredRow]], set[str]],
             intended: float | None = None) -> None:
        """Time one read; then count the rows it should not have returned and the
        acknowledged rows it should have returned but did not."""
        plan = self.plans[op]
        with self.collector.timed(self.series[op], intended) as m:
            deadline = self._deadline()
            try:
                if request.limit is not None and request.spans and len(request.spans) > 1:
                    # a per-range row limit needs one request per range
                    raw = [r for span in request.spans for r in self.backend.read((span,), request.limit)]
                else:
                    raw = self.backend.read(request.spans, request.limit, request.where, request.index, request.join,
                                            request.parent)
            finally:
                if deadline is not None:
                    deadline.close()
            rows, m.strays = request.answer(raw)
            m.rows, m.fanout = len(rows), plan.fanout
            # A full scan reads every row the table holds, whatever the client keeps.
            m.rows_scanned = max(len(raw), len(self.written)) if request.spans is None else len(raw)
        if m.error is None:
            self.collector.key_stream.record_read(self.encoder, request, time.time(), op)
            self.collector.add_missing(self.series[op], len(expected(rows) - {r.write_id for r in rows}))
            self._bound_backlog()

    def finish(self, lost_workers: dict[int, str] | None = None) -> tuple[Integrity, TenantDrop | None]:
        """After the load: the integrity audit, then the strategy's own checks. The writes of
        `lost_workers` (index -> why) are left out: their ledger died with them. A multi-tenant
        design's audit and drop check share one read-back."""
        if not self._drops_tenant():
            return self.audit(lost_workers), None
        stored = self.backend.stored_entities()
        return self.audit(lost_workers, [w for w, _ in stored]), self.drop_tenant(stored)

    def _drops_tenant(self) -> bool:
        return bool(self.strategy.parts) and self.strategy.parts[0].name == "tenant"

    def drop_tenant(self, stored: list[tuple[str, int]] | None = None) -> TenantDrop | None:
        """Multi-tenant designs: drop the first tenant by its row-key prefix, then check that
        exactly its rows are gone. `stored`: (WriteId, entity) of every row as stored before
        the drop, if already read."""
        if not self._drops_tenant():
            return None
        tenant_of = self.strategy.parts[0].of_entity
        assert tenant_of is not None  # _drops_tenant: the first part is the tenant, a DERIVED part
        victim = tenant_of(1)
        prefix = (victim,)
        # Decided from the rows as stored, not from the ledger: a write whose outcome was
        # unknown may be stored too.
        before = {w: tenant_of(entity) for w, entity in (self.backend.stored_entities() if stored is None else stored)}
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

    def audit(self, lost_workers: dict[int, str] | None = None, stored: list[str] | None = None) -> Integrity:
        """Every stored WriteId (read back here unless given) against the ledger."""
        stored = self.backend.write_ids() if stored is None else stored
        if not lost_workers:
            return audit(stored, self.collector.ledger)
        cause = "; ".join(lost_workers[i] for i in sorted(lost_workers))
        return audit(stored, self.collector.ledger, lambda w: Partition.writer_of(w) in lost_workers, cause)

    def unverifiable(self, cause: str) -> Integrity:
        """The audit's figures when nothing can be read back."""
        return Integrity.unverifiable(self.collector.ledger, cause)

    def result(self, *, seconds: float, integrity: Integrity, tenant_drop: TenantDrop | None, fresh: bool,
               started_epoch_s: float, ended_early: str | None = None, interrupted: bool = False,
               per_worker: dict[int, int] | None = None, observed: dict[str, str] | None = None) -> StageResult:
        """The stage's plain record, once its load and audit are over."""
        c = self.collector
        return StageResult(
            strategy=self.strategy, location=self.backend.location, stats=c.stats, per_second=c.seconds,
            key_stream=c.key_stream, started_epoch_s=started_epoch_s, seconds=seconds, integrity=integrity,
            tenant_drop=tenant_drop, fresh=fresh, batch_size=self.settings.batch_size,
            counts_aborts=self.backend.counts_aborts, emulator_bound_inserts=self.backend.emulator_bound_inserts,
            ended_early=ended_early, interrupted=interrupted, per_worker=dict(per_worker or {}),
            observed=dict(observed or {}),
        )

    def teardown(self, drop: bool = True) -> None:
        """Close the clients; with `drop`, drop the database or table, but only if this
        stage created it (a name that was taken belongs to someone else)."""
        try:
            if drop and self.created:
                self.backend.drop()
                self.created = False
        finally:
            if self._housekeeping is not None:
                self._housekeeping.kill(block=False)
            self.backend.close()
            self.written.close()
