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
    from loadtests.workload import DEFAULT_MIX, WorkloadSettings, parse_mix

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
                                  mix=parse_mix(args.mix) if args.mix is not None else dict(DEFAULT_MIX),
                                  timeout_s=parse_duration(args.op_timeout),
                                  batch_size=args.batch_size),
        run_id=args.run_id,
        buckets=args.buckets,
        dialects=tuple(d.strip() for d in args.dialects.split(",") if d.strip()),
        repeat=args.repeat,
        rate=args.rate,
        workers=args.workers,
        report=not args.no_report,
        nodes=args.nodes,
        model=_model_params(args),
        target=args.target,
        project=args.project,
        instance=args.instance,
        dry_run=args.dry_run,
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


def _report(args: argparse.Namespace) -> int:
    from loadtests.report import write_report

    print(write_report(Path(args.run)))
    return 0


def _emulators(args: argparse.Namespace) -> int:
    if args.any_port and args.action != "up":
        raise KeybenchError("--any-port applies to `keybench emulators up` only")
    action = {"up": lambda: emulators.up(any_port=args.any_port), "down": emulators.down,
              "status": emulators.status}[args.action]
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


def _simulate(args: argparse.Namespace) -> int:
    """The split model over a strategy's simulated key stream: no database, every figure modelled."""
    import csv

    from loadtests.simulate import simulate_strategy

    if args.rows < 1:
        raise KeybenchError(f"--rows must be at least 1, got {args.rows}")
    params = _model_params(args)
    strategy = strategies.select(args.backend, [args.strategy], args.dialect)[0]
    result = simulate_strategy(strategy, args.rows, nodes=args.nodes, seed=args.seed, population=args.population,
                               params=params,
                               reads_per_operation=args.reads)
    metrics = {"backend": args.backend, "strategy": strategy.name, "rows": args.rows, **result.summary()}
    if args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(metrics)
        writer.writerow(["" if v is None else v for v in metrics.values()])
    else:
        for name, value in metrics.items():
            print(f"{name}: {'' if value is None else value}")
    return 0


def _analyze(args: argparse.Namespace) -> int:
    """The split model again over a saved run's key streams, with other parameters."""
    import csv

    from loadtests.splitmodel import analyze_file

    params = _model_params(args)
    streams = sorted((Path(args.run) / "keystream").glob("*.npz"))
    if not streams:
        raise KeybenchError(f"{args.run} has no keystream/*.npz: not a keybench run directory, or one from before "
                            "key streams were recorded")
    rows = []
    for path in streams:
        s = analyze_file(path, params).summary()
        rows.append({"unit": path.stem, **{k: s[k] for k in (
            "nodes", "hot_space", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
            "read_ranges_touched", "mean_key_bytes", "windows", "writes")}})
    if args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()}
                         for r in rows)
        return 0
    print(f"modelled, not measured: the split model over each stage's recorded keys, {args.nodes} nodes")
    print(f"{'unit':44} {'hot_space':24} {'hot_node_share':>14} {'effective_nodes':>15} {'vs_ideal':>8} "
          f"{'read_ranges':>11} {'key_bytes':>9} {'windows':>7}")
    for r in rows:
        touched = "" if r["read_ranges_touched"] is None else f"{r['read_ranges_touched']:.2f}"
        print(f"{r['unit']:44} {r['hot_space']:24} {r['hot_node_share']:14.3f} {r['effective_nodes']:15.2f} "
              f"{r['write_throughput_vs_ideal']:8.3f} {touched:>11} {r['mean_key_bytes']:9.1f} {r['windows']:7}")
    return 0


def _model_options(p: argparse.ArgumentParser, nodes_help: str = "nodes serving the key ranges (default 8)") -> None:
    """The split model's parameters, shared by run, simulate and analyze (see results/README.md)."""
    p.add_argument("--nodes", type=int, default=8, help=nodes_help)
    p.add_argument("--window-writes", type=int,
                   help="model: writes per window (default: max(50 x nodes, writes / 50))")
    p.add_argument("--load-split-share", type=float, default=1.0,
                   help="model: a range splits by load above this share of one node's fair load (default 1.0)")
    p.add_argument("--size-split-rows", type=int,
                   help="model: a range splits by size above this many rows (default max(1000, rows / (4 x nodes)))")
    p.add_argument("--warmup-windows", type=int,
                   help="model: first windows left out of the figures (default ceil(log2(nodes)) + 1)")


def _model_params(args: argparse.Namespace):
    from loadtests.splitmodel import SplitParams

    for name in ("nodes", "window_writes", "size_split_rows"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise KeybenchError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.warmup_windows is not None and args.warmup_windows < 0:
        raise KeybenchError(f"--warmup-windows must not be negative, got {args.warmup_windows}")
    if not args.load_split_share > 0:
        raise KeybenchError(f"--load-split-share must be positive, got {args.load_split_share:g}")
    return SplitParams(nodes=args.nodes, window_writes=args.window_writes, load_split_share=args.load_split_share,
                       size_split_rows=args.size_split_rows, warmup_windows=args.warmup_windows)


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
    r.add_argument("--rate", type=float,
                   help="open loop: operations per second per stage, spread over the users; the summary adds latency "
                        "from each operation's intended start (default: closed loop, each user back to back)")
    r.add_argument("--workers", type=int, default=0,
                   help="run each stage's users in N Locust worker processes under a master (default 0: in-process)")
    r.add_argument("--no-report", action="store_true", help="do not write report.html and the heatmaps at the end")
    _model_options(r, "nodes of the split model over the recorded keys (default 8)")
    r.add_argument("--buckets", type=int, help="shard or salt count N of hash_shard, salted, ... (default: each fixture's)")
    r.add_argument("--op-timeout", default="30s",
                   help="Bigtable: deadline of one data operation, retries included (default 30s); an operation cut "
                        "off by it has an unknown outcome, which the audit settles by reading back")
    r.add_argument("--payload-bytes", type=int, default=100, help="size of the non-key column of every row (default 100)")
    r.add_argument("--mix", help="weight per operation, e.g. insert=8,point_read=1,latest_n=1 (operations left out "
                                 "weigh 0; default insert=8 and 1 for each read)")
    r.add_argument("--target", choices=("emulator", "real"), default="emulator",
                   help="emulator (default): only emulators, found or started; real: an existing instance named by "
                        "--project and --instance")
    r.add_argument("--project", help="Google Cloud project of the real instance (with --target real only)")
    r.add_argument("--instance", help="existing Spanner or Bigtable instance id (with --target real only)")
    r.add_argument("--dry-run", action="store_true",
                   help="print the stages, the names they would create and the write estimate; contact nothing")
    r.add_argument("--batch-size", type=int, default=1,
                   help="rows per insert operation: one commit (Spanner) or mutate_rows call (Bigtable) (default 1)")
    r.set_defaults(func=_run)

    c = sub.add_parser("compare", help="two runs side by side with ratios; --fail-on gates a CI job")
    c.add_argument("run_a", help="the baseline: a run directory or its summary.csv")
    c.add_argument("run_b", help="the candidate: a run directory or its summary.csv")
    c.add_argument("--fail-on", action="append", default=[], metavar="RULE",
                   help="exit 1 when B breaks it: 'p99_ms>+20%%' (above A by 20%%), 'rps<-10%%', 'failures>0'")
    c.set_defaults(func=_compare)

    a = sub.add_parser("analyze", help="re-run the split model on a saved run's key streams, e.g. with more nodes")
    a.add_argument("run", help="a run directory, e.g. results/20261122T101500Z")
    _model_options(a, "nodes of the model (default 8)")
    a.add_argument("--format", choices=("text", "csv"), default="text")
    a.set_defaults(func=_analyze)

    rp = sub.add_parser("report", help="write report.html (plots and the summary table) into a run directory")
    rp.add_argument("run", help="a run directory, e.g. results/20261122T101500Z")
    rp.set_defaults(func=_report)

    e = sub.add_parser("emulators", help="start, stop or inspect the native emulators")
    e.add_argument("action", choices=("up", "down", "status"))
    e.add_argument("--any-port", action="store_true",
                   help="up: when a port is held by another process, start on a free port and print it")
    e.set_defaults(func=_emulators)

    s = sub.add_parser("strategies", help="list the strategy catalogue and how each serves the reads")
    s.add_argument("--backend", choices=("spanner", "bigtable", "all"), default="all")
    s.set_defaults(func=_strategies)

    m = sub.add_parser("simulate", help="model splits and hotspots of one strategy's key stream, without a database")
    m.add_argument("--backend", choices=("spanner", "bigtable"), required=True)
    m.add_argument("--strategy", required=True, help="canonical strategy name (see keybench strategies)")
    m.add_argument("--dialect", help="Spanner dialect whose fixture to use (default googlesql)")
    m.add_argument("--rows", type=int, default=1_000_000, help="inserts to simulate (default 1000000)")
    _model_options(m)
    m.add_argument("--seed", type=int, default=1, help="seed of every random choice (default 1)")
    m.add_argument("--population", "--users", type=int, default=1000,
                   help="users (Spanner) or devices (Bigtable) the inserts are spread over (default 1000)")
    m.add_argument("--reads", type=int, default=200, help="sample reads per read operation (default 200)")
    m.add_argument("--format", choices=("text", "csv"), default="text",
                   help="text: one 'name: value' line per metric; csv: a header row and a value row")
    m.set_defaults(func=_simulate)
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
