"""The `keybench` command: argument parsing only; the work happens in the modules."""

from __future__ import annotations

import loadtests.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)

import argparse
import sys
from pathlib import Path

from loadtests import __version__, emulators, strategies
from loadtests.errors import KeybenchError

SMOKE_USERS, SMOKE_DURATION = 4, "3s"


def _run(args: argparse.Namespace) -> int:
    from loadtests.runner import RunOptions, parse_duration, run
    from loadtests.workload import WorkloadSettings

    backends = strategies.BACKENDS if args.backend == "all" else (args.backend,)
    users = args.users if args.users is not None else (SMOKE_USERS if args.smoke else 8)
    duration = args.duration if args.duration is not None else (SMOKE_DURATION if args.smoke else "10s")
    options = RunOptions(
        backends=backends,
        strategies=tuple(n.strip() for n in (args.strategies or "").split(",") if n.strip()),
        users=users,
        spawn_rate=args.spawn_rate,
        duration_s=parse_duration(duration),
        results_dir=Path(args.results_dir),
        smoke=args.smoke,
        seed=args.seed,
        settings=WorkloadSettings(population=args.population, payload_bytes=args.payload_bytes,
                                  batch_size=args.batch_size),
        run_id=args.run_id,
        buckets=args.buckets,
        dialects=tuple(d.strip() for d in args.dialects.split(",") if d.strip()),
        repeat=args.repeat,
    )
    return run(options)


def _compare(args: argparse.Namespace) -> int:
    from loadtests.compare import Rule, compare

    rules = [Rule.parse(text) for text in args.fail_on]
    text, broken = compare(args.run_a, args.run_b, rules)
    print(text)
    for line in broken:
        print(f"REGRESSION {line}")
    return 1 if broken else 0


def _emulators(args: argparse.Namespace) -> int:
    action = {"up": emulators.up, "down": emulators.down, "status": emulators.status}[args.action]
    for line in action():
        print(line)
    return 0


def _strategies(args: argparse.Namespace) -> int:
    from loadtests.plans import strategy_plans

    backends = strategies.BACKENDS if args.backend == "all" else (args.backend,)
    for backend in backends:
        for s in strategies.catalogue(backend).values():
            plans = strategy_plans(s, 10)
            reads = ", ".join(f"{op}={p.access}" + (f"x{p.fanout}" if p.fanout > 1 else "") for op, p in plans.items())
            print(f"{backend:8} {s.name:20} documented {s.claim:8} {s.summary}")
            print(f"{'':8} {'':20} reads: {reads}")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="keybench", description="Side-by-side load tests of Spanner and Bigtable key designs.")
    p.add_argument("--version", action="version", version=f"keybench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("run", help="run every chosen strategy under identical load and write results/<run-id>/")
    r.add_argument("--backend", choices=("spanner", "bigtable", "all"), default="all")
    r.add_argument("--strategies", help="comma-separated strategy names (default: the whole catalogue)")
    r.add_argument("--users", type=int, help="concurrent Locust users per stage (default 8; smoke 4)")
    r.add_argument("--spawn-rate", type=float, default=0.0, help="users started per second (default: all at once)")
    r.add_argument("--duration", help="time per stage, e.g. 30s or 2m (default 10s; smoke 3s)")
    r.add_argument("--results-dir", default="results", help="where the run directory is written (default results/)")
    r.add_argument("--smoke", action="store_true", help="short CI profile; exits 1 on any failure or integrity mismatch")
    r.add_argument("--seed", type=int, default=1, help="seed of every random choice (default 1)")
    r.add_argument("--population", type=int, default=1000, help="users (Spanner) or devices (Bigtable) (default 1000)")
    r.add_argument("--run-id", help="name of the run directory (default: the UTC start time)")
    r.add_argument("--dialects", default="googlesql,postgresql",
                   help="Spanner dialects to run each strategy in (default: googlesql,postgresql)")
    r.add_argument("--repeat", type=int, default=1,
                   help="run the whole stage list K times, interleaved (A B C, A B C); the summary shows the spread")
    r.add_argument("--buckets", type=int, help="shard or salt count N of hash_shard, salted, ... (default: each fixture's)")
    r.add_argument("--payload-bytes", type=int, default=100, help="size of the non-key column of every row (default 100)")
    r.add_argument("--batch-size", type=int, default=1,
                   help="rows per insert operation: one commit (Spanner) or mutate_rows call (Bigtable) (default 1)")
    r.set_defaults(func=_run)

    c = sub.add_parser("compare", help="two runs side by side with ratios; --fail-on gates a CI job")
    c.add_argument("run_a", help="the baseline: a run directory or its summary.csv")
    c.add_argument("run_b", help="the candidate: a run directory or its summary.csv")
    c.add_argument("--fail-on", action="append", default=[], metavar="RULE",
                   help="exit 1 when B breaks it: 'p99_ms>+20%%' (above A by 20%%), 'rps<-10%%', 'failures>0'")
    c.set_defaults(func=_compare)

    e = sub.add_parser("emulators", help="start, stop or inspect the native emulators")
    e.add_argument("action", choices=("up", "down", "status"))
    e.set_defaults(func=_emulators)

    s = sub.add_parser("strategies", help="list the strategy catalogue and how each serves the reads")
    s.add_argument("--backend", choices=("spanner", "bigtable", "all"), default="all")
    s.set_defaults(func=_strategies)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except KeybenchError as exc:
        print(f"keybench: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("keybench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
