"""Do N Locust users (gevent greenlets) really overlap their gRPC calls? With and without
keybench's process set-up.

    .venv/bin/python benchmarks/gevent_concurrency.py [--calls 8] [--rounds 3] [--hang-timeout 20]

For each kind of call against the emulators (a Spanner `snapshot.read`, a streaming RPC;
a Bigtable `mutate_row`, unary; a Bigtable `read_rows`, streaming), one process times N
calls one after another, then N calls started together in N greenlets, three times each,
alternated, and counts how many calls were in flight at once. overlap = wall time one by
one / wall time together: about 1 when the calls ran one after another, more when they
overlapped (bounded by what the emulator and the 2 cores can serve in parallel).
"peak in flight" is the direct evidence: N when every greenlet's call was outstanding at
the same moment, 1 when each call blocked the event loop until it returned.

Three process set-ups, each in its own subprocess, alternated round by round:

- keybench: `import keybench.infra.runtime`, as every keybench entry point does (gevent
  monkey-patching, then `grpc.experimental.gevent.init_gevent()`);
- patched, no init_gevent: gevent monkey-patching only;
- unpatched: plain gevent greenlets, no monkey-patching, no init_gevent.

A set-up whose call does not finish within --hang-timeout seconds is reported as hung and
not retried in later rounds.
"""

import os
import sys

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # before grpc is imported: see keybench.infra.runtime
CHILD_FLAG = "--child"
SETUPS = ("keybench", "patched_no_init_gevent", "unpatched")
if CHILD_FLAG in sys.argv:
    _setup = sys.argv[sys.argv.index(CHILD_FLAG) + 1]
    if _setup == "keybench":
        import keybench.infra.runtime  # noqa: F401
    elif _setup == "patched_no_init_gevent":
        from gevent import monkey

        monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

from _common import add_figures_option, figures_file, spread  # noqa: E402

KINDS = ("spanner snapshot.read (streaming)", "bigtable mutate_row (unary)", "bigtable read_rows (streaming)")
PROJECT, INSTANCE = "keybench-local", "keybench"  # as keybench.drive.stage, without importing it in the child
ROWS = 200
SPANNER_STRATEGY, BIGTABLE_STRATEGY = "desc_timestamp", "reverse_timestamp"


def make_call(kind: str, location: str):
    """One gRPC call of the given kind, built with the client library only."""
    if kind.startswith("spanner"):
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import spanner

        database = spanner.Client(project=PROJECT, credentials=AnonymousCredentials()).instance(INSTANCE).database(
            location)
        keyset = spanner.KeySet(ranges=[spanner.KeyRange(start_closed=[1], end_closed=[1])])

        def snapshot_read(i: int) -> None:
            with database.snapshot() as snapshot:
                list(snapshot.read("AccessLog", ["UserId", "LastAccess", "WriteId"], keyset, limit=10))

        return snapshot_read
    import warnings

    from google.cloud.bigtable.data import (
        BigtableDataClient,
        ReadRowsQuery,
        RowRange,
        SetCell,
    )

    warnings.filterwarnings("ignore", message="Connecting to Bigtable emulator")
    table = BigtableDataClient(project=PROJECT).get_table(INSTANCE, location)
    if "mutate_row" in kind:
        counter = iter(range(10**9))

        def mutate_row(i: int) -> None:
            table.mutate_row(f"probe#{next(counter):09d}".encode(), [SetCell("cf", b"p", b"x" * 100)])

        return mutate_row
    query = ReadRowsQuery(row_ranges=[RowRange(start_key=b"", end_key=None)], limit=10)

    def read_rows(i: int) -> None:
        table.read_rows(query)

    return read_rows


def child(kind: str, location: str, calls: int, repeats: int = 3) -> dict:
    import gevent

    call = make_call(kind, location)
    call(0)  # warm-up: channel, session
    in_flight, peak = [0], [0]

    def tracked(i: int) -> None:
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        call(i)
        in_flight[0] -= 1

    one_by_one, together = [], []
    for _ in range(repeats):  # A B A B inside the process too
        started = time.perf_counter()
        for i in range(calls):
            call(i)
        one_by_one.append(time.perf_counter() - started)
        started = time.perf_counter()
        gevent.joinall([gevent.spawn(tracked, i) for i in range(calls)], raise_error=True)
        together.append(time.perf_counter() - started)
    alone, both = statistics.median(one_by_one), statistics.median(together)
    return {"one_ms": alone / calls * 1e3, "together_ms": both * 1e3, "peak_in_flight": peak[0],
            "overlap": alone / both}


def prepare() -> tuple[dict, list]:
    """A Spanner database and a Bigtable table with ROWS rows each, made by keybench."""
    import keybench.infra.runtime  # noqa: F401  (the orchestrator is a keybench process)
    from keybench.backends import open_backend
    from keybench.design import strategies
    from keybench.drive.settings import WorkloadSettings
    from keybench.drive.stage import Stage
    from keybench.infra import emulators
    from keybench.infra.target import location_name, run_tag

    endpoints = [emulators.resolve(b) for b in ("spanner", "bigtable")]
    for ep in endpoints:
        emulators.use(ep)
    stages, locations = [], {}
    for backend, name in (("spanner", SPANNER_STRATEGY), ("bigtable", BIGTABLE_STRATEGY)):
        strategy = strategies.catalogue(backend)[name]
        tag = run_tag()
        stage = Stage(strategy, open_backend(strategy, location_name(tag, strategy), PROJECT, INSTANCE),
                      WorkloadSettings(population=10, batch_size=50), seed=1, tag=tag)
        stage.setup()
        user = stage.new_user()
        for _ in range(ROWS // 50):
            stage.insert(user)
        stages.append(stage)
        locations[backend] = stage.backend.location
    return locations, [stages, endpoints]


def run_benchmark(args: argparse.Namespace) -> None:
    locations, (stages, endpoints) = prepare()
    results: dict[tuple[str, str], list] = {(s, k): [] for s in SETUPS for k in KINDS}
    hung: dict[tuple, str] = {}
    try:
        for _ in range(args.rounds):
            for setup in SETUPS:
                for kind in KINDS:
                    if (setup, kind) in hung:
                        continue
                    location = locations["spanner" if kind.startswith("spanner") else "bigtable"]
                    command = [sys.executable, __file__, CHILD_FLAG, setup, "--kind", kind, "--location", location,
                               "--calls", str(args.calls)]
                    try:
                        done = subprocess.run(command, capture_output=True, text=True, timeout=args.hang_timeout)
                    except subprocess.TimeoutExpired:
                        hung[(setup, kind)] = f"HUNG: no answer within {args.hang_timeout:.0f} s (process killed)"
                        continue
                    if done.returncode != 0:
                        hung[(setup, kind)] = f"FAILED (exit {done.returncode}): {done.stderr.strip().splitlines()[-1]}"
                        continue
                    results[(setup, kind)].append(json.loads(done.stdout.strip().splitlines()[-1]))
    finally:
        for stage in stages:
            stage.teardown(drop=True)
        for ep in endpoints:
            ep.stop()

    print(f"{args.calls} calls in {args.calls} greenlets vs one call alone; {args.rounds} rounds, "
          "median [min..max]")
    for kind in KINDS:
        print(kind)
        for setup in SETUPS:
            runs = results[(setup, kind)]
            if (setup, kind) in hung:
                done_note = f" (after {len(runs)} good rounds)" if runs else ""
                print(f"  {setup:24} {hung[(setup, kind)]}{done_note}")
                continue

            def fig(name, fmt, runs=runs):
                return spread([r[name] for r in runs], fmt)

            print(f"  {setup:24} one call {fig('one_ms', '.1f')} ms; {args.calls} together {fig('together_ms', '.1f')}"
                  f" ms; peak in flight {fig('peak_in_flight', '.0f')}; overlap {fig('overlap', '.2f')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=8, help="concurrent greenlets, as Locust users")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hang-timeout", type=float, default=20.0)
    parser.add_argument(CHILD_FLAG, choices=SETUPS, help=argparse.SUPPRESS)
    parser.add_argument("--kind", help=argparse.SUPPRESS)
    parser.add_argument("--location", help=argparse.SUPPRESS)
    add_figures_option(parser, "gevent_concurrency")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.kind, args.location, args.calls)))
        return

    with figures_file(args.figures):
        run_benchmark(args)


if __name__ == "__main__":
    main()
