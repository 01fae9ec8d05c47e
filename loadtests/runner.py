"""`keybench run`: every chosen strategy in its own stage, under identical load and on an
emulator with no history, then one summary.

The Spanner emulator's strong reads slow down with every commit it has ever served, in
any database, until it restarts; a strategy run after another would inherit that history.
So before every stage after the first, keybench restarts each emulator it started itself.
Emulators it did not start (environment variables, Docker Compose, `keybench emulators
up`) cannot be restarted by it; such stages are marked `fresh_emulator=no`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import platform
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gevent
from locust.env import Environment
from locust.event import Events
from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

from loadtests import __version__, emulators, strategies
from loadtests.errors import KeybenchError
from loadtests.results import (
    TIMESERIES_COLUMNS,
    RunDirectory,
    side_by_side,
    repeated_rows,
    stage_problems,
    timeseries_rows,
    to_csv,
)
from loadtests.stage import INSTANCE, PROJECT, Integrity, Stage, location_name, make_backend, run_tag
from loadtests.users import KeybenchUser
from loadtests.workload import WorkloadSettings

PROGRESS_EVERY_S = 5.0
STOP_TIMEOUT_S = 30.0  # users finish the operation in flight before a stage ends


SPANNER_DIALECTS = strategies.DIALECTS["spanner"]


class StageUser(KeybenchUser):
    pass


def parse_duration(text: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", str(text))
    if not m:
        raise KeybenchError(f"cannot parse duration {text!r}; use e.g. 30s, 2m, 1h")
    value = float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    if value <= 0:
        raise KeybenchError(f"duration must be positive, got {text!r}")
    return value


@dataclass
class RunOptions:
    backends: tuple[str, ...] = strategies.BACKENDS
    strategies: tuple[str, ...] = ()  # empty: the whole catalogue of each backend
    users: int = 8
    spawn_rate: float = 0.0  # 0: all users at once
    duration_s: float = 10.0
    results_dir: Path = Path("results")
    smoke: bool = False
    seed: int = 1
    settings: WorkloadSettings = field(default_factory=WorkloadSettings)
    run_id: str | None = None
    buckets: int | None = None  # overrides every strategy's shard or salt count
    dialects: tuple[str, ...] = SPANNER_DIALECTS  # Spanner dialects to run each strategy in
    repeat: int = 1  # runs of the whole stage list, interleaved


    def validate(self) -> None:
        if self.users < 1:
            raise KeybenchError(f"--users must be at least 1, got {self.users}")
        if self.spawn_rate < 0:
            raise KeybenchError(f"--spawn-rate must not be negative, got {self.spawn_rate}")
        if self.settings.population < 1:
            raise KeybenchError(f"--population must be at least 1, got {self.settings.population}")
        if self.settings.payload_bytes < 0:
            raise KeybenchError(f"--payload-bytes must not be negative, got {self.settings.payload_bytes}")
        unknown = [d for d in self.dialects if d not in strategies.DIALECTS["spanner"]]
        if unknown or not self.dialects:
            raise KeybenchError(f"unknown Spanner dialect {', '.join(map(repr, unknown)) or '(none)'}; "
                                f"valid: {', '.join(strategies.DIALECTS['spanner'])}")
        if self.repeat < 1:
            raise KeybenchError(f"--repeat must be at least 1, got {self.repeat}")
        if self.settings.batch_size < 1:
            raise KeybenchError(f"--batch-size must be at least 1, got {self.settings.batch_size}")
        if self.buckets is not None and self.buckets < 1:
            raise KeybenchError(f"--buckets must be at least 1, got {self.buckets}")


def plan_stages(options: RunOptions) -> list[strategies.Strategy]:
    """The stages in run order; a strategy name applies to every chosen backend that has it."""
    names = list(options.strategies)
    catalogues = {
        (b, d): strategies.catalogue(b, d, buckets=options.buckets)
        for b in options.backends for d in (options.dialects if b == "spanner" else strategies.DIALECTS[b])
    }
    unknown = [n for n in names if not any(n in c for c in catalogues.values())]
    if unknown:
        valid = "; ".join(f"{b}: {', '.join(c)}" for (b, d), c in catalogues.items() if d in ("", "googlesql"))
        raise KeybenchError(f"unknown strategy {', '.join(map(repr, unknown))}; valid ones are {valid}")
    stages = []
    for backend in options.backends:
        dialects = [d for (b, d) in catalogues if b == backend]
        available = catalogues[(backend, dialects[0])]
        for name in ([n for n in names if n in available] if names else list(available)):
            stages.extend(catalogues[(backend, d)][name] for d in dialects)  # each strategy in every dialect
    for strategy in stages:
        strategies.check_rules(strategy, options.settings.population, options.settings.payload_bytes)
        if options.settings.batch_size > 1 and any(p.generated for p in strategy.parts):
            # Their inserts are DML that returns the generated key, one row per transaction.
            raise KeybenchError(f"--batch-size {options.settings.batch_size}: {strategy.label} has keys the "
                                f"database generates, which keybench inserts one row at a time; leave it out")
    return stages


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def drive(stage: Stage, users: int, spawn_rate: float, duration_s: float, label: str) -> tuple[Environment, float]:
    """Run Locust users against the stage for duration_s; returns the environment and the seconds run."""
    env = Environment(user_classes=[StageUser], events=Events(), stop_timeout=STOP_TIMEOUT_S)
    env.keybench_stage = stage
    stage.collector.events = env.events
    runner = env.create_local_runner()
    started = time.monotonic()
    runner.start(users, spawn_rate=spawn_rate or users)
    next_report = started + PROGRESS_EVERY_S
    while (now := time.monotonic()) < started + duration_s:
        gevent.sleep(min(next_report, started + duration_s) - now)
        if time.monotonic() >= next_report:
            ops, failures = stage.collector.totals()
            elapsed = time.monotonic() - started
            _progress(f"  {label}  {elapsed:4.0f}s/{duration_s:.0f}s  ops {ops:,}  failures {failures}  ({ops / elapsed:,.0f} ops/s)")
            next_report += PROGRESS_EVERY_S
    runner.stop()  # lets every user finish its operation in flight
    elapsed = time.monotonic() - started
    runner.quit()
    return env, elapsed


def write_locust_csvs(run_dir: RunDirectory, prefix: str, env: Environment) -> None:
    stats = StatsCSV(env, PERCENTILES_TO_REPORT)
    for kind, write in (("stats", stats.requests_csv), ("failures", stats.failures_csv)):
        out = io.StringIO()
        write(csv.writer(out, lineterminator="\n"))
        run_dir.write(f"locust/{prefix}_{kind}.csv", out.getvalue())


def _machine() -> dict:
    memory_kb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    except OSError:
        pass
    return {"cores": os.cpu_count(), "memory_gib": round(memory_kb / 2**20, 1) if memory_kb else None,
            "platform": platform.platform()}


def _endpoint_record(ep: emulators.Endpoint) -> dict:
    started_by_keybench = ep.source != "environment" and ep.source != "already running"
    return {
        "address": ep.address, "source": ep.source, "target": "emulator",
        # Only for emulators keybench started: others may be any version (Docker images, ...).
        "emulator_version": f"google-cloud-cli {emulators.sdk_version()}" if started_by_keybench else "unknown",
    }


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {"keybench": __version__, "python": platform.python_version()}
    for name in ("locust", "google-cloud-spanner", "google-cloud-bigtable", "grpcio", "hdrhistogram", "gevent"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


@dataclass
class StageOutcome:
    stage: Stage
    seconds: float
    integrity: Integrity
    tenant_drop: object
    fresh: bool
    timeseries: list[dict]
    record: dict


def run_stage(strategy: strategies.Strategy, ep: emulators.Endpoint, options: RunOptions, tag: str,
              label: str, run_dir: RunDirectory, suffix: str = "") -> StageOutcome:
    """One strategy on a fresh table: load, audit, the strategy's own checks, results."""
    backend = make_backend(strategy, location_name(tag, strategy), PROJECT, INSTANCE, options.settings.payload_bytes)
    stage = Stage(strategy, backend, options.settings, options.seed, tag=tag)
    started = time.time()
    try:
        stage.setup()
        env, seconds = drive(stage, options.users, options.spawn_rate, options.duration_s, label)
        integrity, tenant_drop = stage.finish()
    finally:
        stage.teardown(drop=True)
    ops, failures = stage.collector.totals()
    _progress(f"  {label}  done: ops {ops:,}  failures {failures}  integrity {integrity.describe()}")
    write_locust_csvs(
        run_dir, f"{strategy.backend}-{strategy.name}" + (f"-{strategy.dialect}" if strategy.dialect else "") + suffix, env)
    for series, stats in stage.collector.stats.items():
        for reason, count in stats.errors.items():
            _progress(f"  {series.operation} failed {count}x: {reason}")
    if tenant_drop is not None:
        _progress(f"  {label}  tenant_drop {tenant_drop.tenant}: {tenant_drop.removed} of "
                  f"{tenant_drop.tenant_rows} rows removed, {tenant_drop.left_behind} left behind, "
                  f"{tenant_drop.others_removed} of other tenants removed")
    record = {
        "backend": strategy.backend, "strategy": strategy.name, "dialect": strategy.dialect,
        "location": backend.location, "emulator": ep.address,
        "emulator_pid": ep.emulator.pid if ep.emulator else None, "fresh_emulator": ep.restartable,
        "seconds": round(seconds, 3), "integrity": asdict(integrity),
        "tenant_drop": asdict(tenant_drop) if tenant_drop else None,
    }
    return StageOutcome(stage, seconds, integrity, tenant_drop, ep.restartable,
                        timeseries_rows(stage.collector, started), record)


def run(options: RunOptions) -> int:
    options.validate()
    stages = plan_stages(options)
    root = Path(options.results_dir)
    RunDirectory.check_writable(root)
    now = dt.datetime.now(dt.UTC)
    run_id = options.run_id or now.strftime("%Y%m%dT%H%M%SZ")
    tag = run_tag(now.timestamp())
    run_dir = RunDirectory(root, run_id)
    if run_dir.final.exists():
        raise KeybenchError(f"{run_dir.final} already exists; choose another --run-id")

    endpoints: dict[str, emulators.Endpoint] = {}
    served: dict[str, int] = {}
    saved_env = {v: os.environ.get(v) for v in emulators.ENV_VARS.values()}
    try:
        for backend in dict.fromkeys(s.backend for s in stages):
            endpoints[backend] = emulators.resolve(backend)
            served[backend] = 0
            ep = endpoints[backend]
            _progress(f"{emulators.TITLES[backend]} emulator: {ep.address} ({ep.source})")
            if not ep.restartable:
                _progress(
                    "  note: keybench did not start it, so it cannot restart it between stages; "
                    "later stages inherit earlier ones' history (fresh_emulator=no)"
                )
        run_dir.open()
        series_rows, records = [], []
        outcomes: dict[tuple, list[StageOutcome]] = {}
        total = len(stages) * options.repeat
        # Repetitions interleave (A B C, A B C, ...), so drift over the run lands on every strategy.
        for repetition in range(1, options.repeat + 1):
            for number, strategy in enumerate(stages, 1):
                label = f"[{(repetition - 1) * len(stages) + number}/{total}] {strategy.label}"
                ep = endpoints[strategy.backend]
                if ep.restartable and served[strategy.backend] > 0:
                    ep.restart()
                served[strategy.backend] += 1
                emulators.use(ep)
                _progress(f"{label}: {strategy.summary}")
                outcome = run_stage(strategy, ep, options, tag, label, run_dir,
                                    f"-r{repetition}" if options.repeat > 1 else "")
                outcomes.setdefault((strategy.backend, strategy.name, strategy.dialect), []).append(outcome)
                series_rows.extend(outcome.timeseries)
                records.append({**outcome.record, "repetition": repetition})
        rows, problems = [], []
        for runs in outcomes.values():
            stage_summary, integrity, tenant_drop = repeated_rows(
                [(o.stage, o.seconds, o.integrity, o.tenant_drop, o.fresh) for o in runs])
            rows.extend(stage_summary)
            problems.extend(stage_problems(runs[0].stage, stage_summary, integrity, tenant_drop))
        run_dir.write("summary.csv", to_csv(rows))
        run_dir.write("timeseries.csv", to_csv(series_rows, TIMESERIES_COLUMNS))
        run_dir.write("run.json", json.dumps({
            "run_id": run_id, "started": now.isoformat(), "finished": dt.datetime.now(dt.UTC).isoformat(),
            "settings": {**{k: v for k, v in asdict(options).items() if k not in ("settings", "results_dir")},
                         "results_dir": str(options.results_dir), "workload": asdict(options.settings)},
            "endpoints": {b: _endpoint_record(e) for b, e in endpoints.items()},
            "machine": _machine(),
            "seed": options.seed,
            "versions": _versions(),
            "stages": records,
        }, indent=2, default=str) + "\n")
        final = run_dir.commit()
    except BaseException:
        run_dir.discard()
        raise
    finally:
        for ep in endpoints.values():
            ep.stop()
        for name, value in saved_env.items():  # emulators.use() pointed this process at them
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    print(side_by_side(rows))
    print(f"\nresults: {final}/summary.csv")
    failures = sum(int(r["failures"]) for r in rows)
    if options.smoke and failures:
        problems.append(f"{failures} failed operation(s)")
    if problems:
        print(f"keybench: run failed: {'; '.join(problems)}", file=sys.stderr)
        return 1
    return 0


__all__ = ["Integrity", "RunOptions", "parse_duration", "plan_stages", "run"]
