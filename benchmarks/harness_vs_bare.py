"""How much throughput keybench's harness costs against a bare loop of the client library.

    .venv/bin/python benchmarks/harness_vs_bare.py [--backends spanner,bigtable] [--operations insert,latest_n]
        [--users 8] [--seconds 5] [--rounds 3] [--batch-size 1]

For each backend and operation, the same concurrency is driven several ways on the same emulator:

- bare: OS threads in a plain loop of the client library's public API, no gevent, no
  keybench code on the hot path (Spanner: `database.batch()` single-row insert commits, or
  `snapshot.read` of one user's KeyRange with a limit; Bigtable: data-client `mutate_row`,
  or `read_rows` of one device's row range with a limit). This is the ceiling the issue
  sets, and the loop behind README.md's emulator figures;
- bare_gevent: the same loop in a process set up as keybench's (gevent monkey-patching and
  init_gevent), its threads greenlets: what gevent and gRPC's gevent mode cost;
- bare_rpc (Bigtable single-row inserts only): OS threads calling the write keybench uses,
  `MutateRowCall` (MutateRow with plain protobuf messages on the data client's channel):
  the bare loop with keybench's choice of client API;
- keybench: Locust users through `Stage.step` and the collector, run by `runner.drive`,
  the function `keybench run` uses, with a single-operation mix (`WorkloadSettings.mix`).

Both write the same rows into the same kind of table: Spanner `desc_timestamp` (GoogleSQL)
and Bigtable `reverse_timestamp`, whose latest_n reads are one key range that stops after
N rows. The bare loop builds its row keys with keybench's key functions so the rows are
identical; that costs a few microseconds per row. Every case runs in its own process
(the bare one must not be monkey-patched by gevent), on a fresh database or table; the
cases alternate A B C A B C, and the printout gives each case's ops/s with min/median/max
and the ratios of each round's pairs.
"""

import os
import sys

GEVENT_CASES = ("keybench", "bare_gevent")  # processes set up as keybench's: gevent, then gRPC
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # before grpc is imported: see loadtests.infra.runtime
CHILD_FLAG = "--child"
if CHILD_FLAG in sys.argv and sys.argv[sys.argv.index(CHILD_FLAG) + 1] in GEVENT_CASES:
    import loadtests.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from _common import cpu_seconds, spread  # noqa: E402
from loadtests.design import strategies  # noqa: E402
from loadtests.infra import emulators  # noqa: E402
from loadtests.backends.base import DEFAULT_TIMEOUT_S  # noqa: E402
from loadtests.design.keys import WriteEvent, timestamp  # noqa: E402
from loadtests.drive.locust_driver import LoadPlan, LocustStage  # noqa: E402
from loadtests.drive.stage import Stage, StageSpec  # noqa: E402
from loadtests.drive.workload import INSERT, WorkloadSettings  # noqa: E402

STRATEGIES = {"spanner": "desc_timestamp", "bigtable": "reverse_timestamp"}
POPULATION = 100  # users or devices: a prefilled table then holds ~PREFILL_ROWS/POPULATION rows each
PREFILL_ROWS = 2000  # rows written before a latest_n case, so each read returns a full N
LATEST_N = 10
CHILD_TIMEOUT_S = 180
CASES = ("bare", "bare_gevent", "bare_rpc", "keybench")
CASE_LABELS = {"bare": "bare loop, {n} OS threads", "bare_gevent": "bare loop, {n} greenlets (gevent)",
               "bare_rpc": "bare loop, {n} OS threads, MutateRowCall", "keybench": "keybench, {n} Locust users"}
RATIOS = (("keybench", "bare"), ("keybench", "bare_rpc"), ("keybench", "bare_gevent"), ("bare_gevent", "bare"))


def cases_for(backend: str, operation: str, batch_size: int) -> tuple[str, ...]:
    """bare_rpc exists where keybench writes through MutateRowCall: Bigtable single-row inserts."""
    rpc = backend == "bigtable" and operation == INSERT and batch_size == 1
    return tuple(c for c in CASES if c != "bare_rpc" or rpc)


def _settings(operation: str, batch_size: int) -> WorkloadSettings:
    return WorkloadSettings(population=POPULATION, latest_n=LATEST_N, mix={operation: 1}, batch_size=batch_size)


def _stage(backend: str, operation: str, batch_size: int) -> LocustStage:
    """keybench's own stage, built the way `keybench run` builds it; the bare cases use its
    table and its settings."""
    strategy = strategies.catalogue(backend)[STRATEGIES[backend]]
    locust_stage = LocustStage(StageSpec.of(strategy, _settings(operation, batch_size), seed=1))
    locust_stage.stage.setup()
    return locust_stage


# ---------------------------------------------------------------- the bare loop (OS threads)


class BareClient:
    """The client library and nothing else: one insert or one latest_n read per call."""

    def __init__(self, stage: Stage, batch_size: int, rpc: bool = False):
        self.stage, self.batch_size = stage, batch_size
        self.generator = stage.strategy.key_generator(1)
        self.payload = "x" * stage.settings.payload_bytes
        self.numbers = itertools.count(1)
        self.first_us = time.time_ns() // 1000
        backend = stage.strategy.backend
        if backend == "spanner":
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
            self.insert, self.latest_n = self._spanner_insert, self._spanner_latest_n
        else:
            from google.cloud.bigtable.data import BigtableDataClient

            self.client = BigtableDataClient(project=PROJECT)
            self.table = self.client.get_table(INSTANCE, stage.backend.location)
            self.write_row = None
            if rpc:
                from loadtests.backends.bigtable import MutateRowCall

                if batch_size != 1:
                    raise ValueError("bare_rpc writes one row per call: MutateRowCall has no batches")
                self.write_row = MutateRowCall(self.table, DEFAULT_TIMEOUT_S)
            self.device_queries = self._device_queries()
            self.insert, self.latest_n = self._bigtable_insert, self._bigtable_latest_n

    def _events(self) -> list[WriteEvent]:
        # A process-wide counter makes every row's time distinct: no two rows share a key.
        out = []
        for _ in range(self.batch_size):
            n = next(self.numbers)
            out.append(WriteEvent(n % POPULATION + 1, self.first_us + n * 1000, f"bare-{n}", n))
        return out

    def _spanner_insert(self, worker: int) -> int:
        rows = [[e.entity, timestamp(e.ts_us), e.write_id, self.payload] for e in self._events()]
        with self.database.batch() as batch:
            batch.insert("AccessLog", ["UserId", "LastAccess", "WriteId", "Payload"], rows)
        return len(rows)

    def _spanner_latest_n(self, worker: int) -> int:
        user = worker % POPULATION + 1
        keyset = self.spanner.KeySet(ranges=[self.spanner.KeyRange(start_closed=[user], end_closed=[user])])
        with self.database.snapshot() as snapshot:
            return len(list(snapshot.read("AccessLog", ["UserId", "LastAccess", "WriteId"], keyset, limit=LATEST_N)))

    def _bigtable_insert(self, worker: int) -> int:
        from google.cloud.bigtable.data import RowMutationEntry, SetCell

        # The backend's own cells (its helpers cost what a bare loop's literals would).
        backend, entries = self.stage.backend, []
        for e in self._events():
            key, values, at = backend.row_key(self.generator.key(e)), backend._cell_values(e), backend._cell_time(e)
            if self.write_row:
                self.write_row(key, backend.family, values, at)
                return 1
            entries.append((key, [SetCell(backend.family, q, v, at) for q, v in values]))
        if len(entries) == 1:
            self.table.mutate_row(*entries[0])
        else:
            self.table.bulk_mutate_rows([RowMutationEntry(key, cells) for key, cells in entries])
        return len(entries)

    def _bigtable_latest_n(self, worker: int) -> int:
        return len(self.table.read_rows(self.device_queries[worker % POPULATION]))

    def _device_queries(self) -> list:
        """One device's newest N rows: its row range, built once, before the timed loop."""
        from google.cloud.bigtable.data import ReadRowsQuery
        from loadtests.backends.bigtable import READ_CELLS

        plan, backend = self.stage.plans["latest_n"], self.stage.backend
        return [ReadRowsQuery(row_ranges=[backend._row_range(plan.build(device).spans[0])], limit=LATEST_N,
                              row_filter=READ_CELLS) for device in range(1, POPULATION + 1)]


def run_bare(stage: Stage, operation: str, users: int, seconds: float, batch_size: int, rpc: bool = False) -> dict:
    bare = BareClient(stage, batch_size, rpc)
    call = bare.insert if operation == INSERT else bare.latest_n
    counts, errors = [0] * users, []
    deadline = time.monotonic() + seconds

    def loop(worker: int) -> None:
        step = worker
        try:
            while time.monotonic() < deadline:
                call(step)
                counts[worker] += 1
                step += users  # each worker walks its own users or devices
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
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
    return {"ops": sum(counts), "seconds": elapsed, "cpu_us_per_op": cpu / max(sum(counts), 1) * 1e6, "aborts": getattr(bare, "aborts", 0), "rows": sum(counts) * (batch_size if operation == INSERT else 1)}


def prefill_bare(stage: Stage, users: int) -> None:
    bare = BareClient(stage, 50)
    threads = [threading.Thread(target=lambda: [bare.insert(0) for _ in range(PREFILL_ROWS // 50 // users)])
               for _ in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# ---------------------------------------------------------------- keybench (Locust users)


def run_keybench(locust_stage: LocustStage, operation: str, users: int, seconds: float) -> dict:
    stage = locust_stage.stage
    backend = stage.strategy.backend
    endpoint = emulators.Endpoint(backend, os.environ[emulators.ENV_VARS[backend]], "environment")
    cpu_before = cpu_seconds()
    elapsed = locust_stage.drive(LoadPlan(users, 0.0, seconds), f"keybench {backend} {operation}", endpoint).seconds
    cpu = cpu_seconds() - cpu_before
    stats = stage.collector.stats[stage.series[operation]]
    result = {"ops": stats.requests, "seconds": elapsed, "cpu_us_per_op": cpu / max(stats.requests, 1) * 1e6, "rows": stats.rows if operation == INSERT else stats.requests,
              "failures": stats.failures, "aborts": stats.aborts,
              "p50_ms": stats.histogram.get_value_at_percentile(50) / 1000,
              "max_ms": stats.histogram.get_max_value() / 1000}
    if operation == INSERT:
        result["integrity"] = stage.audit().describe()
    return result


def prefill_keybench(stage: Stage, users: int) -> None:
    import gevent

    workloads = [stage.new_user() for _ in range(users)]
    insert_batch = stage.settings.batch_size
    per_user = PREFILL_ROWS // users // insert_batch
    gevent.joinall([gevent.spawn(lambda w=w: [stage.insert(w) for _ in range(per_user)]) for w in workloads],
                   raise_error=True)


def child(case: str, backend: str, operation: str, users: int, seconds: float, batch_size: int) -> dict:
    locust_stage = _stage(backend, operation, batch_size)
    stage = locust_stage.stage
    try:
        if operation != INSERT:
            # The same rows in both cases, written through each case's own path.
            (prefill_keybench if case == "keybench" else prefill_bare)(stage, users)
        if case == "keybench":
            return run_keybench(locust_stage, operation, users, seconds)
        # bare_gevent: the threads are greenlets
        return run_bare(stage, operation, users, seconds, batch_size, rpc=case == "bare_rpc")
    finally:
        stage.teardown(drop=True)


# ---------------------------------------------------------------- the orchestration


def run_case(case: str, backend: str, operation: str, args) -> dict:
    command = [sys.executable, __file__, CHILD_FLAG, case, "--backend", backend, "--operation", operation,
               "--users", str(args.users), "--seconds", str(args.seconds), "--batch-size", str(args.batch_size)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{case} {backend} {operation} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="spanner,bigtable")
    parser.add_argument("--operations", default="insert,latest_n")
    parser.add_argument("--users", type=int, default=8, help="threads (bare) and Locust users (keybench)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1, help="rows per insert call, in both cases")
    parser.add_argument(CHILD_FLAG, choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--operation", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.backend, args.operation, args.users, args.seconds, args.batch_size)))
        return

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    endpoints = {b: emulators.resolve(b) for b in backends}
    try:
        for ep in endpoints.values():
            emulators.use(ep)  # the children inherit the *_EMULATOR_HOST variables
        print(f"{args.users} users, {args.rounds} rounds of {args.seconds:.0f} s per case, batch size "
              f"{args.batch_size}; ops/s median [min..max]; ratios are per round, median [min..max]")
        for backend in backends:
            for operation in [o.strip() for o in args.operations.split(",") if o.strip()]:
                cases = cases_for(backend, operation, args.batch_size)
                figures = {case: [] for case in cases}
                cpu = {case: [] for case in cases}
                notes = []
                for _ in range(args.rounds):
                    for case in cases:  # A B C A B C
                        result = run_case(case, backend, operation, args)
                        figures[case].append(result["ops"] / result["seconds"])
                        cpu[case].append(result["cpu_us_per_op"])
                        if result.get("failures") or result.get("integrity", "ok").split()[0] != "ok":
                            notes.append(f"{case}: {result.get('failures', 0)} failures, {result.get('integrity')}")
                label = f"{backend} {STRATEGIES[backend]} {operation}"
                print(f"{label}  ({endpoints[backend].address})")
                for case in cases:
                    print(f"  {CASE_LABELS[case].format(n=args.users):42} {spread(figures[case])}")
                print("  client CPU per operation, us: " + ";  ".join(
                    f"{case} {spread(cpu[case])}" for case in cases))
                for a, b in (r for r in RATIOS if r[1] in cases):
                    ratios = [x / y for x, y in zip(figures[a], figures[b])]
                    print(f"  {a + ' / ' + b:37}  {spread(ratios, '.2f')}")
                for note in notes:
                    print(f"  NOTE {note}")
    finally:
        for ep in endpoints.values():
            ep.stop()


if __name__ == "__main__":
    main()
