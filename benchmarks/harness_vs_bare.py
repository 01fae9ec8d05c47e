"""How much throughput keybench's harness costs against a bare loop of the client library.

    .venv/bin/python benchmarks/harness_vs_bare.py [--backends spanner,bigtable] [--operations all]
        [--cases all] [--users 8] [--seconds 5] [--rounds 3] [--batch-size 1] [--client-cpu last]
        [--busy-loops 0]

For each backend and operation (every one the backend has: insert, point_read, latest_n,
prefix_scan, time_window, number_range; see keybench.design.plans.READ_OPERATIONS), the same
concurrency is driven several ways on the same emulator, each case's process pinned to one CPU
(the last; the emulators still run where the OS puts them) unless `--client-cpu none`:

- bare: OS threads in a plain loop of the client library's public API, no gevent, no
  keybench code on the hot path (Spanner: `database.batch()` single-row insert commits and
  `snapshot.read`; Bigtable: the data client's `mutate_row` and `read_rows`). Spanner's
  commits face keybench's abort policy, as keybench's do: an ABORTED commit is retried after
  a jittered pause from 50 ms (`backends.spanner.retrying_aborts`), not after the client's
  own 2-3 s, which the emulator's constant aborts would otherwise make the bare loop's rate;
- bare_gevent: the same loop in a process set up as keybench's (gevent monkey-patching and
  init_gevent), its threads greenlets: what gevent and gRPC's gevent mode cost;
- bare_rpc (Bigtable): OS threads calling the client API keybench uses, `MutateRowCall` and
  `ReadRowsCall` (the RPCs with plain protobuf messages on the data client's channel);
- bare_rpc_gevent (Bigtable): the same loop as greenlets under keybench's gevent set-up;
- locust_bare: the bare loop's calls (Bigtable: keybench's RPCs) made by keybench's Locust
  users, run as `keybench run` runs them, with no stage in between: what Locust's users cost
  (against the fair bare loop), and what keybench's stage and collector cost (keybench
  against it);
- keybench: Locust users through `Stage.step` and the collector, run by `runner.drive`,
  the function `keybench run` uses, with a single-operation mix (`WorkloadSettings.mix`).

The fair baseline, the one the issue's 0.9 target is measured against, is the bare loop of
the client API keybench uses, in the gevent mode keybench must run in (Locust users are
greenlets): bare_gevent on Spanner, bare_rpc_gevent on Bigtable. The OS-thread loops are
the ceilings without gevent.

Each read sends the request keybench sends for the design: Spanner `desc_timestamp` (GoogleSQL)
and Bigtable `reverse_timestamp`, whose point_read is one key, latest_n one key range that
stops after N rows, prefix_scan one device's range, and time_window and number_range full scans
(Bigtable filters them on the server). A read case first writes PREFILL_ROWS rows through its
own path, one row per call from as many writers at once as the case has users (as keybench's
prefill writes them: gevent's thread pool grows with the calls waiting at once, so a case
prefilled by one writer would read with a smaller pool), each row's user or device drawn at
random as keybench's users draw them; every read picks a random written row (its key, its user
or device, or its insert number), as keybench's
users pick a recent one, so a device read holds as many rows on average in every case (a device
picked by a row is one with more rows). The bare loops build row keys and requests with
keybench's key functions and the backend's request helpers, before the timed loop where they
can, so the rows and requests are identical. Every case runs in its own process (the OS-thread
ones must not be monkey-patched by gevent), on a fresh database or table; the cases alternate,
each round starting one case later (A B C, B C A, C A B), and the printout gives each case's
ops/s and client CPU per operation with median [min..max], and the ratios of each round's
pairs.

`--busy-loops N` measures a busy machine: N processes spinning in a loop beside the cases for
the whole benchmark (started and stopped by PID); the figures go to harness_vs_bare_busy.txt
unless --figures says otherwise.
"""

import os
import sys

GEVENT_CASES = ("keybench", "locust_bare", "bare_gevent", "bare_rpc_gevent")  # processes set up as keybench's
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # before grpc is imported: see keybench.infra.runtime
CHILD_FLAG = "--child"
if CHILD_FLAG in sys.argv and sys.argv[sys.argv.index(CHILD_FLAG) + 1] in GEVENT_CASES:
    import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, cast  # noqa: E402

from _common import add_figures_option, cpu_seconds, figures_file, spread  # noqa: E402

from keybench.backends.base import DEFAULT_TIMEOUT_S  # noqa: E402
from keybench.backends.spanner import retrying_aborts  # noqa: E402
from keybench.design import strategies  # noqa: E402
from keybench.design.byteorder import bigtable_row_range  # noqa: E402
from keybench.design.events import WriteEvent, timestamp  # noqa: E402
from keybench.design.plans import DEFAULT_NUMBER_SPAN, DEFAULT_WINDOW_S, READ_OPERATIONS  # noqa: E402
from keybench.drive.settings import INSERT, WorkloadSettings  # noqa: E402
from keybench.drive.stage import Stage, StageDefinition  # noqa: E402
from keybench.drive.workload import UserWorkload  # noqa: E402
from keybench.infra import emulators  # noqa: E402
from keybench.infra.target import INSTANCE, PROJECT  # noqa: E402

STRATEGIES = {"spanner": "desc_timestamp", "bigtable": "reverse_timestamp"}
POPULATION = 100  # users or devices: a prefilled table then holds ~PREFILL_ROWS/POPULATION rows each
PREFILL_ROWS = 2000  # rows written before a read case, so each latest_n read returns a full N
# Rows per prefill commit: one, as keybench's prefill writes them, because the Spanner emulator's
# reads slow down with every commit it has served (40 commits of 50 rows left it faster).
PREFILL_BATCH = 1
LATEST_N = 10
CHILD_TIMEOUT_S = 180
CASES = ("bare", "bare_gevent", "bare_rpc", "bare_rpc_gevent", "locust_bare", "keybench")
RPC_CASES = ("bare_rpc", "bare_rpc_gevent")
LOCUST_CASES = ("keybench", "locust_bare")  # run by keybench's Locust users
CASE_LABELS = {"bare": "bare loop, {n} OS threads", "bare_gevent": "bare loop, {n} greenlets (gevent)",
               "bare_rpc": "bare loop, {n} OS threads, keybench's RPCs",
               "bare_rpc_gevent": "bare loop, {n} greenlets, keybench's RPCs",
               "locust_bare": "bare calls, {n} Locust users", "keybench": "keybench, {n} Locust users"}
# The fair baseline first: the bare loop of keybench's client API in keybench's gevent mode.
RATIOS = (("keybench", "bare_rpc_gevent"), ("keybench", "bare_gevent"), ("keybench", "bare_rpc"),
          ("keybench", "bare"), ("keybench", "locust_bare"), ("locust_bare", "bare_rpc_gevent"),
          ("locust_bare", "bare_gevent"), ("bare_rpc_gevent", "bare_rpc"), ("bare_gevent", "bare"))


def cases_for(backend: str, batch_size: int, wanted: tuple[str, ...] = CASES) -> tuple[str, ...]:
    """The RPC cases exist where keybench calls its own RPCs: Bigtable, but for batched inserts;
    Spanner's keybench path is the public API, its bare loops the same-API baseline."""
    rpc = backend == "bigtable" and batch_size == 1
    return tuple(c for c in CASES if c in wanted and (c not in RPC_CASES or rpc))


def operations_of(backend: str) -> tuple[str, ...]:
    return (INSERT, *READ_OPERATIONS[backend])


def _settings(operation: str, batch_size: int, users: int) -> WorkloadSettings:
    # Readers back to back (read share 1), as the bare loop reads: the harness at its ceiling.
    return WorkloadSettings(population=POPULATION, latest_n=LATEST_N, mix={operation: 1}, batch_size=batch_size,
                            users=users, read_share=1.0)


def _spec(backend: str, operation: str, batch_size: int, users: int) -> StageDefinition:
    """keybench's own stage, built the way `keybench run` builds it; the bare cases use its
    table and its settings."""
    strategy = strategies.catalogue(backend)[STRATEGIES[backend]]
    return StageDefinition.of(strategy, _settings(operation, batch_size, users), seed=1)


# ---------------------------------------------------------------- the bare loop (OS threads or greenlets)


class BareClient:
    """The client library and nothing else: one insert or one read per call, the row or
    range picked by the worker's step."""

    def __init__(self, stage: Stage, batch_size: int):
        self.stage, self.batch_size = stage, batch_size
        self.generator = stage.strategy.key_generator(1)
        self.payload = "x" * stage.settings.payload_bytes
        self.numbers = itertools.count(1)
        self.entities = random.Random(1)  # uniform over the population, as keybench's users draw them
        self.last_us = 0
        self.lock = threading.Lock()
        self.written: list[WriteEvent] = []  # what the reads pick from

    def write(self, events: list[WriteEvent]) -> int:
        """Writes `events` with the client library; the rows written."""
        raise NotImplementedError

    def events(self, count: int) -> list[WriteEvent]:
        # Rows carry the time they are written, as keybench's do (time_window reads the last
        # seconds), each at least 1 ms after the one before: no two rows share a key.
        out = []
        with self.lock:
            for _ in range(count):
                n = next(self.numbers)
                self.last_us = max(time.time_ns() // 1000, self.last_us + 1000)
                out.append(WriteEvent(self.entities.randrange(POPULATION) + 1, self.last_us, f"bare-{n}", n))
        return out

    def prefill(self, rows: int, workers: int) -> None:
        """`rows` written by `workers` threads at once, as keybench's prefill writes them with
        as many users: the process then starts its reads in the same state (gevent's thread
        pool, for one, grows with the calls that wait at once)."""
        errors = []

        def write_share() -> None:
            try:
                for _ in range(rows // workers // PREFILL_BATCH):
                    events = self.events(PREFILL_BATCH)
                    self.write(events)
                    self.written.extend(events)
            except Exception as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write_share) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def operation(self, name: str):
        return getattr(self, name)

    def insert(self, worker: int) -> int:
        return self.write(self.events(self.batch_size))

    def picked(self) -> WriteEvent:
        return random.choice(self.written)

    @staticmethod
    def window_us() -> tuple[int, int]:
        now = time.time_ns() // 1000
        return now - int(DEFAULT_WINDOW_S * 1e6), now

    def number_span(self) -> tuple[int, int]:
        last = self.picked().seq
        return max(1, last - DEFAULT_NUMBER_SPAN + 1), last


class BareSpanner(BareClient):
    """Spanner's public API, the one keybench's SpannerBackend uses."""

    COLUMNS = ["UserId", "LastAccess", "WriteId"]

    def __init__(self, stage: Stage, batch_size: int):
        super().__init__(stage, batch_size)
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import spanner

        self.spanner = spanner
        client = spanner.Client(project=PROJECT, credentials=AnonymousCredentials())
        self.database = client.instance(INSTANCE).database(stage.backend.location)
        self.aborts = 0
        commit = self.database.spanner_api.commit

        def counted_commit(*args, **kwargs):  # as SpannerBackend counts the client's silent retries
            try:
                return commit(*args, **kwargs)
            except Exception as exc:
                self.aborts += type(exc).__name__ == "Aborted"
                raise

        self.database.spanner_api.commit = counted_commit

    def write(self, events: list[WriteEvent]) -> int:
        rows = [[e.entity, timestamp(e.ts_us), e.write_id, self.payload] for e in events]

        def commit() -> None:
            # keybench's abort policy (the module's docstring): the client raises an ABORTED at
            # once, and the commit is retried after keybench's jittered pause.
            with self.database.batch(timeout_secs=0) as batch:
                batch.insert("AccessLog", ["UserId", "LastAccess", "WriteId", "Payload"], rows)

        retrying_aborts(commit, DEFAULT_TIMEOUT_S)
        return len(rows)

    def _read(self, keyset, limit: int = 0) -> list:
        with self.database.snapshot() as snapshot:
            return list(snapshot.read("AccessLog", self.COLUMNS, keyset, limit=limit))

    def point_read(self, worker: int) -> int:
        e = self.picked()
        return len(self._read(self.spanner.KeySet(keys=[[e.entity, timestamp(e.ts_us)]])))

    def latest_n(self, worker: int) -> int:
        user = self.picked().entity
        return len(self._read(self.spanner.KeySet(
            ranges=[self.spanner.KeyRange(start_closed=[user], end_closed=[user])]), LATEST_N))

    def time_window(self, worker: int) -> int:
        # The Read API has no filter: the whole table streams, and the window is picked here.
        lo, hi = (timestamp(t) for t in self.window_us())
        return sum(1 for _, at, _ in self._read(self.spanner.KeySet(all_=True)) if lo <= at <= hi)


class BareBigtable(BareClient):
    """Bigtable's data client (`rpc` False) or keybench's RPC calls (`rpc` True). The cells,
    row ranges and filters are the backend's own helpers: they only assemble client types."""

    def __init__(self, stage: Stage, batch_size: int, rpc: bool):
        super().__init__(stage, batch_size)
        from google.cloud.bigtable.data import (
            BigtableDataClient,
            ReadRowsQuery,
            RowRange,
        )

        from keybench.backends import bigtable

        self.bigtable, self.rpc = bigtable, rpc
        self.client = BigtableDataClient(project=PROJECT)
        self.table = self.client.get_table(INSTANCE, stage.backend.location)
        self.write_row = bigtable.MutateRowCall(self.table, DEFAULT_TIMEOUT_S)
        self.reader = bigtable.ReadRowsCall(self.table, DEFAULT_TIMEOUT_S)
        # The Bigtable backend's own helpers (the stage types it as the base Backend).
        backend: Any = stage.backend
        strategy = stage.strategy
        self.ReadRowsQuery, self.family = ReadRowsQuery, backend.family
        # One device's rows: its row range, from the read plan's span, built before the timed loop.
        self.device_ranges = []
        for device in range(1, POPULATION + 1):
            spans = stage.plans["prefix_scan"].build(device).spans
            assert spans is not None  # a prefix scan reads a span
            span = spans[0]
            if rpc:
                self.device_ranges.append(bigtable.RowSet(row_ranges=[backend._row_range(span)]))
            else:
                found = bigtable_row_range(strategy.parts, cast(str, strategy.separator), span)
                assert found is not None  # one device's rows: never an inverted span
                start, end, inclusive = found
                self.device_ranges.append(RowRange(start, end or None, end_is_inclusive=inclusive))
        self.row_keys: dict[int, bytes] = {}

    def write(self, events: list[WriteEvent]) -> int:
        from google.cloud.bigtable.data import RowMutationEntry

        backend: Any = self.stage.backend  # the Bigtable backend's helpers
        keys = [backend.row_key(self.generator.key(e)) for e in events]
        for e, key in zip(events, keys, strict=True):
            self.row_keys[e.seq] = key
        if self.rpc and len(events) == 1:
            e = events[0]
            self.write_row(keys[0], backend.family, backend._cell_values(e), backend._cell_time(e))
        elif len(events) == 1:
            self.table.mutate_row(keys[0], backend._cells(events[0]))
        else:
            self.table.bulk_mutate_rows([RowMutationEntry(k, backend._cells(e)) for k, e in zip(keys, events,
                                                                                                strict=True)])
        return len(events)

    def _read(self, rows=None, limit: int | None = None, where=None) -> int:
        bigtable = self.bigtable
        if self.rpc:
            row_filter = bigtable.READ_CELLS_MESSAGE if where is None else \
                bigtable.filter_message(bigtable.scan_filter(where))
            return len(self.reader(self.reader.request(rows, row_filter, limit), self.family))
        if rows is None:
            query = self.ReadRowsQuery(limit=limit, row_filter=bigtable.scan_filter(where))
        elif isinstance(rows, bytes):
            query = self.ReadRowsQuery(row_keys=[rows], limit=limit, row_filter=bigtable.READ_CELLS)
        else:
            query = self.ReadRowsQuery(row_ranges=[rows], limit=limit, row_filter=bigtable.READ_CELLS)
        return len(self.table.read_rows(query))

    def point_read(self, worker: int) -> int:
        key = self.row_keys[self.picked().seq]
        return self._read(self.bigtable.RowSet(row_keys=[key]) if self.rpc else key)

    def latest_n(self, worker: int) -> int:
        return self._read(self.device_ranges[self.picked().entity - 1], LATEST_N)

    def prefix_scan(self, worker: int) -> int:
        return self._read(self.device_ranges[self.picked().entity - 1])

    def time_window(self, worker: int) -> int:
        return self._read(where=("ts_us", *self.window_us()))

    def number_range(self, worker: int) -> int:
        return self._read(where=("seq", *self.number_span()))


def bare_client(stage: Stage, batch_size: int, case: str) -> BareClient:
    if stage.strategy.backend == "spanner":
        return BareSpanner(stage, batch_size)
    # Locust's users make keybench's calls: its RPCs, as keybench's stage makes them
    return BareBigtable(stage, batch_size, rpc=case in RPC_CASES or case == "locust_bare")


def run_bare(bare: BareClient, operation: str, users: int, seconds: float) -> dict:
    call = bare.operation(operation)
    counts, errors = [0] * users, []
    deadline = time.monotonic() + seconds

    def loop(worker: int) -> None:
        step = worker
        try:
            while time.monotonic() < deadline:
                call(step)
                counts[worker] += 1
                step += users  # each worker walks its own users or devices
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(w,)) for w in range(users)]
    cpu_before, started = cpu_seconds(), time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed, cpu = time.monotonic() - started, cpu_seconds() - cpu_before
    if errors:
        raise errors[0]
    ops = sum(counts)
    return {"ops": ops, "seconds": elapsed, "cpu_us_per_op": cpu / max(ops, 1) * 1e6,
            "aborts": getattr(bare, "aborts", 0), "rows": ops * (bare.batch_size if operation == INSERT else 1)}


# ---------------------------------------------------------------- keybench (Locust users)


def run_keybench(locust_stage, operation: str, users: int, seconds: float) -> dict:
    from keybench.drive.locust_driver import StageLoad

    stage = locust_stage.stage
    backend = stage.strategy.backend
    endpoint = emulators.Endpoint(backend, os.environ[emulators.ENV_VARS[backend]], "environment")
    cpu_before = cpu_seconds()
    started = time.monotonic()
    driven = locust_stage.drive(StageLoad(users, 0.0, seconds), f"keybench {backend} {operation}", endpoint)
    cpu, elapsed = cpu_seconds() - cpu_before, driven.seconds
    stats = stage.collector.stats[stage.series[operation]]
    result = {"ops": stats.requests, "seconds": elapsed, "cpu_us_per_op": cpu / max(stats.requests, 1) * 1e6,
              "rows": stats.rows if operation == INSERT else stats.requests, "failures": stats.failures,
              "errors": stats.errors, "missing": stats.missing, "strays": stats.strays, "aborts": stats.aborts,
              "p50_ms": stats.histogram.get_value_at_percentile(50) / 1000,
              "max_ms": stats.histogram.get_max_value() / 1000, "stopping_s": driven.stopping_s,
              "first_op_after_s": stage.collector.first_op - started, "active_s": stage.collector.active_seconds()}
    if operation == INSERT:
        result["integrity"] = stage.audit().describe()
    return result


class BareCalls:
    """What keybench's Locust users take from their slot in the locust_bare case: the stage's
    own users and collector, each step one call of the bare loop instead of `Stage.step`."""

    def __init__(self, stage: Stage, bare: BareClient, operation: str):
        self.collector, self.operation = stage.collector, operation
        self.new_user = stage.new_user
        self.call = bare.operation(operation)
        self.steps = 0

    def step(self, user: UserWorkload, intended: float | None = None) -> str:
        self.steps += 1
        self.call(self.steps)
        return self.operation


def run_locust_bare(locust_stage, bare: BareClient, operation: str, users: int, seconds: float) -> dict:
    from keybench.drive.locust_driver import StageLoad

    stage = locust_stage.stage
    calls = BareCalls(stage, bare, operation)
    locust_stage.slot.clear()
    locust_stage.slot.put(calls)
    backend = stage.strategy.backend
    endpoint = emulators.Endpoint(backend, os.environ[emulators.ENV_VARS[backend]], "environment")
    cpu_before = cpu_seconds()
    driven = locust_stage.drive(StageLoad(users, 0.0, seconds), f"locust_bare {backend} {operation}", endpoint)
    cpu = cpu_seconds() - cpu_before
    return {"ops": calls.steps, "seconds": driven.seconds, "cpu_us_per_op": cpu / max(calls.steps, 1) * 1e6,
            "rows": calls.steps * (bare.batch_size if operation == INSERT else 1)}


def prefill_keybench(stage: Stage, users: int) -> None:
    import gevent

    # Writers of their own, not the stage's users: Locust's users must all be the mix's readers.
    workloads = [UserWorkload(stage.settings, stage.strategy.backend, stage.seed, 1000 + i) for i in range(users)]
    insert_batch = stage.settings.batch_size
    per_user = PREFILL_ROWS // users // insert_batch
    def fill(workload: UserWorkload) -> None:
        for _ in range(per_user):
            stage.insert(workload)

    gevent.joinall([gevent.spawn(fill, w) for w in workloads], raise_error=True)


def child(case: str, backend: str, operation: str, users: int, seconds: float, batch_size: int) -> dict:
    if case in LOCUST_CASES:
        # Importing Locust monkey-patches the process for gevent: only in the cases Locust runs.
        from keybench.drive.locust_driver import StageEnvironment

        locust_stage = StageEnvironment(_spec(backend, operation, batch_size, users))
        stage = locust_stage.stage
    else:
        stage = _spec(backend, operation, batch_size, users).build()
    stage.setup()
    try:
        if case == "keybench":
            if operation != INSERT:
                prefill_keybench(stage, users)  # the same rows as the bare cases, through keybench's path
            return run_keybench(locust_stage, operation, users, seconds)
        bare = bare_client(stage, batch_size, case)
        if operation != INSERT:
            bare.prefill(PREFILL_ROWS, users)
        if case == "locust_bare":
            return run_locust_bare(locust_stage, bare, operation, users, seconds)
        return run_bare(bare, operation, users, seconds)
    finally:
        stage.teardown(drop=True)


# ---------------------------------------------------------------- the orchestration


def run_case(case: str, backend: str, operation: str, args) -> dict:
    command = [sys.executable, __file__, CHILD_FLAG, case, "--backend", backend, "--operation", operation,
               "--users", str(args.users), "--seconds", str(args.seconds), "--batch-size", str(args.batch_size)]
    cpus = args.client_cpus
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False,
                          preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    if done.returncode != 0:
        raise SystemExit(f"{case} {backend} {operation} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _names(text: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated list ("all": every known name), each checked against `known`."""
    names = known if text.strip() == "all" else tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown: {', '.join(unknown)} (known: {', '.join(known)})")
    return names


def client_cpus(choice: str) -> set[int] | None:
    """The CPUs a case's process may run on: {the one named}, or None for any."""
    allowed = sorted(os.sched_getaffinity(0))
    if choice == "none" or len(allowed) < 2:
        return None  # one CPU: nothing to keep apart
    cpu = allowed[-1] if choice == "last" else int(choice) if choice.isdigit() else None
    if cpu not in allowed:
        raise SystemExit(f"--client-cpu {choice}: not one of this process's CPUs {allowed}, last or none")
    return {cpu}


def fair_baseline(cases: tuple[str, ...]) -> str:
    """The bare loop of keybench's client API in keybench's gevent mode, or the nearest one run."""
    return next(c for c in ("bare_rpc_gevent", "bare_gevent", "bare_rpc", "bare") if c in cases)


@contextmanager
def busy_loops(count: int):
    """`count` processes that spin, beside everything the benchmark runs, stopped by PID."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        if loops:
            print(f"{count} busy loop(s) beside the cases, pids {', '.join(str(p.pid) for p in loops)}", flush=True)
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def run_benchmark(args: argparse.Namespace) -> None:
    args.client_cpus = client_cpus(args.client_cpu)
    backends = _names(args.backends, tuple(STRATEGIES))
    wanted_cases = _names(args.cases, CASES)
    all_operations = tuple(dict.fromkeys(op for b in backends for op in operations_of(b)))
    operations = _names(args.operations, all_operations)
    endpoints = {b: emulators.resolve(b) for b in backends}
    summary = []
    try:
        for ep in endpoints.values():
            emulators.use(ep)  # the children inherit the *_EMULATOR_HOST variables
        print(f"{args.users} users, {args.rounds} rounds of {args.seconds:.0f} s per case, batch size "
              f"{args.batch_size}; ops/s median [min..max]; ratios are per round, median [min..max]; "
              f"each case's process on {'any CPU' if args.client_cpus is None else f'CPU {min(args.client_cpus)}'}; "
              f"load average at the start {os.getloadavg()[0]:.2f}", flush=True)
        for backend in backends:
            for operation in (op for op in operations if op in operations_of(backend)):
                cases = cases_for(backend, args.batch_size, wanted_cases)
                figures: dict[str, list[float]] = {case: [] for case in cases}
                cpu: dict[str, list[float]] = {case: [] for case in cases}
                notes = []
                for round_index in range(args.rounds):
                    # A B C, B C A, C A B: an emulator that slows down with every commit it serves
                    # (Spanner's, each case writing its own rows) favours no case's position.
                    shift = round_index % len(cases)
                    for case in cases[shift:] + cases[:shift]:
                        result = run_case(case, backend, operation, args)
                        figures[case].append(result["ops"] / result["seconds"])
                        cpu[case].append(result["cpu_us_per_op"])
                        if result.get("failures") or result.get("integrity", "ok").split()[0] != "ok" \
                                or result.get("missing") or result.get("strays"):
                            notes.append(f"{case}: {result.get('failures', 0)} failures {result.get('errors', {})}, "
                                         f"{result.get('missing')} missing, {result.get('strays')} strays, "
                                         f"integrity {result.get('integrity', '-')}")
                label = f"{backend} {STRATEGIES[backend]} {operation}"
                print(f"{label}  ({endpoints[backend].address}; load average {os.getloadavg()[0]:.2f})")
                for case in cases:
                    print(f"  {CASE_LABELS[case].format(n=args.users):42} {spread(figures[case])}")
                print("  client CPU per operation, us: " + ";  ".join(
                    f"{case} {spread(cpu[case])}" for case in cases))
                for a, b in (r for r in RATIOS if r[0] in cases and r[1] in cases):
                    ratios = [x / y for x, y in zip(figures[a], figures[b], strict=False)]
                    print(f"  {a + ' / ' + b:37}  {spread(ratios, '.2f')}")
                for note in notes:
                    print(f"  NOTE {note}")
                if "keybench" in cases and len(cases) > 1:
                    base = fair_baseline(cases)
                    ratios = [x / y for x, y in zip(figures["keybench"], figures[base], strict=False)]
                    summary.append(f"| {backend} {operation} | {base} | **{spread(ratios, '.2f')}** | "
                                   f"{statistics.median(cpu[base]):,.0f} | {statistics.median(cpu['keybench']):,.0f} |")
                sys.stdout.flush()
        if summary:
            print("\n| backend, operation | fair baseline | keybench / baseline, median [min..max] | "
                  "client CPU us/op, baseline | keybench |\n|---|---|---:|---:|---:|")
            print("\n".join(summary))
    finally:
        for ep in endpoints.values():
            ep.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="spanner,bigtable")
    parser.add_argument("--operations", default="all", help="comma-separated, or all: every one each backend has")
    parser.add_argument("--cases", default="all", help=f"comma-separated among {', '.join(CASES)}, or all "
                                                       "(the RPC cases run on Bigtable only)")
    parser.add_argument("--users", type=int, default=8, help="threads (bare) and Locust users (keybench)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1, help="rows per insert call, in both cases")
    parser.add_argument("--client-cpu", default="last",
                        help="the CPU each case's process is pinned to (last: the machine's last one; none: not "
                             "pinned). Pinned, the client's process no longer trades CPUs with the emulator's "
                             "threads from moment to moment, and the rounds spread less")
    parser.add_argument(CHILD_FLAG, choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--operation", help=argparse.SUPPRESS)
    parser.add_argument("--busy-loops", type=int, default=0, metavar="N",
                        help="N processes spinning beside the cases: a busy machine (figures to "
                             "harness_vs_bare_busy.txt unless --figures is given)")
    add_figures_option(parser, "harness_vs_bare")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.backend, args.operation, args.users, args.seconds, args.batch_size)))
        return

    if args.busy_loops < 0:
        parser.error("--busy-loops must be 0 or more")
    figures = args.figures
    if args.busy_loops and figures == parser.get_default("figures"):
        figures = str(Path(figures).with_name("harness_vs_bare_busy.txt"))
    with figures_file(figures), busy_loops(args.busy_loops):
        run_benchmark(args)


if __name__ == "__main__":
    main()
