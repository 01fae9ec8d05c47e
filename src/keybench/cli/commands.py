"""The `keybench` subcommands: each turns its parsed arguments into one library call and
prints what it returns. Defaults and validation live with the options they belong to."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from keybench.design import strategies
from keybench.drive.settings import DEFAULT_MIX, WorkloadSettings
from keybench.errors import KeybenchError
from keybench.model.params import SplitParams
from keybench.run.options import RunOptions, parse_duration
from keybench.terminal import print_verdicts_coloured, wrapped


def backends(choice: str) -> tuple[str, ...]:
    return strategies.BACKENDS if choice == "all" else (choice,)


def names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())


def run_command(args: argparse.Namespace) -> int:
    from keybench.drive.settings import parse_mix
    from keybench.run.pipeline import run

    options = RunOptions(
        backends=backends(args.backend),
        strategies=None if args.strategies is None else names(args.strategies),
        strategy_dirs=tuple(Path(d) for d in args.strategy_dirs),
        users=args.users,
        spawn_rate=args.spawn_rate,
        duration_s=parse_duration(args.duration) if args.duration is not None else None,
        results_dir=Path(args.results_dir),
        smoke=args.smoke,
        seed=args.seed,
        settings=WorkloadSettings(population=args.population, skew=args.skew, payload_bytes=args.payload_bytes,
                                  mix=parse_mix(args.mix) if args.mix is not None else dict(DEFAULT_MIX),
                                  timeout_s=parse_duration(args.op_timeout),
                                  batch_size=args.batch_size, readers=args.readers, read_rate=args.read_rate,
                                  read_share=args.read_share),
        run_id=args.run_id,
        buckets=args.buckets,
        dialects=names(args.dialects),
        repeat=args.repeat,
        rate=args.rate,
        workers=args.workers,
        report=not args.no_report,
        overlap=not args.no_overlap,
        model=model_params(args),
        target=args.target,
        project=args.project,
        instance=args.instance,
        endpoint=args.endpoint,
        dry_run=args.dry_run,
        observe_wait_s=parse_duration(args.observe_wait, zero=True),
        fail_on_verdict=names(args.fail_on_verdict),
        verbose=args.verbose,
        format=args.format,
        settings_file=args.settings_file,
    )
    return run(options)


def compare_command(args: argparse.Namespace) -> int:
    import json

    from keybench.measure.compare import VERDICT_RULE, Rule, compare, comparison_document, comparison_text

    rules = [Rule.parse(text) for text in args.fail_on if text.strip() != VERDICT_RULE]
    found = compare(args.run_a, args.run_b, rules, args.strict,
                    fail_on_verdict=any(text.strip() == VERDICT_RULE for text in args.fail_on))
    if args.format == "json":
        print(json.dumps(comparison_document(found), indent=2))
        return 1 if found.failures else 0
    print(comparison_text(found, shutil.get_terminal_size().columns))
    for line in found.failures:
        print(f"REGRESSION {line}")
    return 1 if found.failures else 0


def chosen_run(args: argparse.Namespace) -> Path:
    """The run a command reads: the one named, else the newest finished one under --results-dir."""
    from keybench.measure.rundir import latest_run

    if args.run:
        return Path(args.run)
    run = latest_run(Path(args.results_dir))
    print(f"keybench: reading {run}, the newest finished run under {args.results_dir}/", file=sys.stderr)
    return run


def report_command(args: argparse.Namespace) -> int:
    from keybench.measure.html_report import status_of, write_report

    run = chosen_run(args)
    print(write_report(run))
    status = status_of(run)
    if status != "complete":
        print(f"keybench: note: {run} is an incomplete run ({status}); the report says so", file=sys.stderr)
    return 0


def emulators_command(args: argparse.Namespace) -> int:
    from keybench.cli import emulators_text

    if args.any_port and args.action != "up":
        raise KeybenchError("--any-port applies to `keybench emulators up` only")
    action = {"up": lambda: emulators_text.up(any_port=args.any_port), "down": emulators_text.down,
              "status": emulators_text.status}[args.action]
    for line in action():
        print(line)
    return 0


def strategies_command(args: argparse.Namespace) -> int:
    """The catalogue: a line per design; every fact of each with --verbose or names; or JSON."""
    import json
    import shutil

    from keybench.measure.console import catalogue_brief, catalogue_document, catalogue_lines

    listed = [s for backend in backends(args.backend) for s in strategies.catalogue(backend).values()]
    if args.names:
        known = {s.name for s in listed}
        unknown = [n for n in args.names if n not in known]
        if unknown:
            raise KeybenchError(f"unknown strategy {', '.join(map(repr, unknown))} for --backend {args.backend}; "
                                f"known: {', '.join(sorted(known))}")
        listed = [s for s in listed if s.name in args.names]
    if args.format == "json":
        document = {"format_version": 1, "command": "strategies",
                    "strategies": catalogue_document(listed, WorkloadSettings.latest_n)}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    elif args.verbose or args.names:
        print("\n".join(catalogue_lines(listed, WorkloadSettings.latest_n)))
    else:
        print("\n".join(catalogue_brief(listed, shutil.get_terminal_size().columns)))
    return 0


def simulate_command(args: argparse.Namespace) -> int:
    """The split model over simulated key streams: no database, every figure modelled. One
    strategy's metrics, or every strategy's verdict as a table."""
    from keybench.design.distributions import Skew
    from keybench.measure.console import metrics_text, simulation_table
    from keybench.model.simulate import simulate_verdicts

    chosen = strategies.select(args.backend, [args.strategy] if args.strategy else None, args.dialect)
    rows = simulate_verdicts(chosen, args.rows, seed=args.seed, population=args.population, params=model_params(args),
                             reads_per_operation=args.reads, skew=Skew.parse(args.skew))
    if args.strategy:
        print(metrics_text(rows[0], args.format), end="")
    else:
        print(simulation_table(rows, args.format), end="")
    return 0


def analyze_command(args: argparse.Namespace) -> int:
    """The split model again over a saved run's key streams, with other parameters."""
    from keybench.measure.console import analysis_text
    from keybench.model.rows import analyze_run

    params = model_params(args)
    print(analysis_text(analyze_run(chosen_run(args), params), params.nodes, args.format), end="")
    return 0


def check_command(args: argparse.Namespace) -> int:
    """A user's own schema or row-key template: verdicts, rules, fixes; exit 1 on a listed verdict."""
    from keybench.check.command import check
    from keybench.check.request import CheckRequest
    from keybench.infra.signals import interruptible

    request = CheckRequest(
        schema=Path(args.schema[0]) if args.schema else None, more_schemas=tuple(map(Path, args.schema[1:])),
        dialect=args.dialect, bigtable=args.bigtable,
        reads=tuple(args.read),
        columns=Path(args.columns) if args.columns else None, nodes=args.nodes, rows=args.rows, shards=args.shards,
        fail_on=names(args.fail_on_verdict), save_to=Path(args.save_strategy) if args.save_strategy else None,
        load_s=parse_duration(args.load) if args.load is not None else None, strict=args.strict,
        device_rate=args.device_rate, write_columns=Path(args.write_columns) if args.write_columns else None)
    if args.format != "text" and request.load_s is not None:
        raise KeybenchError(f"--load prints a run's tables as text: leave out --format {args.format}, or --load")
    with interruptible():
        report = check(request)
    if args.format == "text":
        print_verdicts_coloured("\n".join(wrapped(report.lines, shutil.get_terminal_size().columns)))
    else:
        from keybench.check.formats import render

        if report.saved:  # stdout holds the document alone
            print("\n".join(report.saved), file=sys.stderr)
        print(render(report.result, args.format, request.fail_on, report.exit_code), end="")
    if request.load_s is None:
        return report.exit_code
    from keybench.run.userload import load_strategies

    return max(report.exit_code, load_strategies(report.drafts, request.load_s, Path(args.results_dir)))


def observe_command(args: argparse.Namespace) -> int:
    """What a real database or cluster reported of its hot key ranges, beside the model (read only)."""
    import datetime as dt

    from keybench.infra.signals import interruptible
    from keybench.observe.command import observe
    from keybench.observe.request import ObserveRequest

    end = None
    if args.end is not None:
        try:
            end = dt.datetime.fromisoformat(args.end.replace("Z", "+00:00"))
        except ValueError:
            raise KeybenchError(f"--end {args.end!r} is not an ISO 8601 time (e.g. 2026-11-26T21:30:00Z)") from None
        end = end if end.tzinfo else end.replace(tzinfo=dt.UTC)
    request = ObserveRequest(
        backend=args.backend, project=args.project, instance=args.instance, database=args.database,
        cluster=args.cluster, tables=tuple(args.table), template=args.template, since_s=parse_duration(args.since),
        end=end, endpoint=args.endpoint, nodes=args.nodes, fail_on=names(args.fail_on_observed))
    with interruptible():
        report = observe(request)
    if args.format == "json":
        print(json.dumps(report.document(), indent=2, allow_nan=False))
    else:
        print_verdicts_coloured("\n".join(wrapped(report.lines, shutil.get_terminal_size().columns)))
    return report.exit_code


def record_command(args: argparse.Namespace) -> int:
    """The application's own keys, recorded through proxies in front of the emulators, judged."""
    from keybench.record.command import record
    from keybench.record.request import RecordRequest

    command = tuple(args.app_command[1:] if args.app_command[:1] == ["--"] else args.app_command)
    request = RecordRequest(command=command, listen=args.listen, backends=backends(args.backend),
                            params=model_params(args), results_dir=Path(args.results_dir), run_id=args.run_id,
                            fail_on_verdict=names(args.fail_on_verdict), host=args.host)
    return record(request)


def model_params(args: argparse.Namespace) -> SplitParams:
    return SplitParams(nodes=args.nodes, window_writes=args.window_writes, ranges_per_node=args.ranges_per_node)


