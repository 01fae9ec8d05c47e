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
import dataclasses
import datetime as dt
import io
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gevent
from locust.env import Environment
from locust.event import Events
from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

from loadtests import __version__, emulators, strategies, target
from loadtests.distributed import MasterSide
from loadtests.keyspace import TABLE_SPACE, KeyStream
from loadtests.splitmodel import SplitParams, model_columns, model_stream
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
from loadtests.stage import Integrity, Stage, location_name, make_backend, run_tag
from loadtests.users import StageUser
from loadtests.workload import WorkloadSettings, check_mix

PROGRESS_EVERY_S = 5.0
STOP_TIMEOUT_S = 30.0  # users finish the operation in flight before a stage ends
FORCED_STOP_S = 3.0  # ... unless the stage was cut short: then operations still in flight are cut off


SPANNER_DIALECTS = strategies.DIALECTS["spanner"]


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
    rate: float | None = None  # open loop: operations per second per stage, spread over the users
    workers: int = 0  # Locust worker processes per stage; 0 runs the users in this process
    report: bool = True  # write report.html (and the heatmaps) at the end
    nodes: int = 8  # the split model's nodes
    model: SplitParams | None = None  # the split model's other parameters (defaults if None)
    target: str = "emulator"  # or "real": an existing instance named by project and instance (see target.py)
    project: str | None = None
    instance: str | None = None
    dry_run: bool = False  # print the plan and the write estimate, contact nothing


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
        if self.rate is not None and not self.rate > 0:
            raise KeybenchError(f"--rate must be positive, got {self.rate:g}")
        if self.workers < 0:
            raise KeybenchError(f"--workers must not be negative, got {self.workers}")
        if self.workers > self.users:
            raise KeybenchError(f"--workers {self.workers} exceeds --users {self.users}: a worker without users does nothing")
        if self.nodes < 1:
            raise KeybenchError(f"--nodes must be at least 1, got {self.nodes}")
        if self.settings.batch_size < 1:
            raise KeybenchError(f"--batch-size must be at least 1, got {self.settings.batch_size}")
        if self.buckets is not None and self.buckets < 1:
            raise KeybenchError(f"--buckets must be at least 1, got {self.buckets}")
        check_mix(self.settings.mix, self.backends)
        target.check(self)


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


class CtrlC:
    """Ctrl-C as a request, not an exception: a KeyboardInterrupt raised wherever the signal
    lands (inside gRPC's gevent poller, a Locust user, the audit) can leave the clients hung.
    The first Ctrl-C is noted and acted on at the next check (within a second during a
    stage); a second one interrupts at once."""

    def __init__(self) -> None:
        self.requested = False
        self._handler = None

    def listen(self) -> None:
        self.requested = False
        self._handler = gevent.signal_handler(signal.SIGINT, self._on_sigint)

    def ignore(self) -> None:
        if self._handler is not None:
            self._handler.cancel()
            self._handler = None

    def _on_sigint(self) -> None:
        if self.requested:
            self.ignore()  # the next Ctrl-C gets Python's own KeyboardInterrupt
            gevent.get_hub().parent.throw(KeyboardInterrupt)
        self.requested = True
        _progress("keybench: Ctrl-C: ending the run after this stage's audit (Ctrl-C again to stop at once)")


CTRL_C = CtrlC()


@dataclass
class Driven:
    env: Environment
    seconds: float
    per_worker: dict[int, int]
    ended_early: str | None = None  # why the stage stopped before its time: its emulator went away
    interrupted: bool = False  # Ctrl-C


class Lifeline:
    """Notices an emulator that has gone away: its port refuses connections. A paused
    emulator still accepts them (the kernel does), so a stall never ends a stage."""

    REFUSALS = 2  # in a row, a second apart

    def __init__(self, ep: emulators.Endpoint):
        self.address = ep.address if ep.target == "emulator" else None
        self.refusals = 0

    def gone(self) -> str | None:
        if self.address is None:
            return None
        error = emulators.connect_error(self.address, timeout=1.0)
        if error is None:
            self.refusals = 0
        elif isinstance(error, ConnectionRefusedError):
            self.refusals += 1
        else:
            return None  # slow or unroutable: not proof that it is gone
        if self.refusals >= self.REFUSALS:
            return f"the emulator at {self.address} stopped accepting connections"
        return None


def drive(stage: Stage, options: RunOptions, label: str, ep: emulators.Endpoint) -> Driven:
    """Run Locust users against the stage for the stage duration: in this process, or spread
    over `options.workers` worker processes. The stage ends early if its emulator goes away,
    and on Ctrl-C; either way the users stop and the collector keeps what they did."""
    env = Environment(user_classes=[StageUser], events=Events(), stop_timeout=STOP_TIMEOUT_S)
    env.keybench_stage = stage
    stage.collector.events = env.events
    workers = None
    if options.workers:
        port = emulators.free_port()
        runner = env.create_master_runner("127.0.0.1", port)
        master = MasterSide(env, stage, options.buckets)
        workers = WorkerProcesses(options.workers, port)
        workers.wait_connected(runner, label)
    else:
        runner = env.create_local_runner()
    lifeline, ended_early, interrupted = Lifeline(ep), None, False
    try:
        started = time.monotonic()
        runner.start(options.users, spawn_rate=options.spawn_rate or options.users)
        next_report = started + PROGRESS_EVERY_S
        try:
            while (now := time.monotonic()) < started + options.duration_s:
                gevent.sleep(min(1.0, next_report - now, started + options.duration_s - now))
                if CTRL_C.requested:
                    raise KeyboardInterrupt
                ended_early = lifeline.gone()
                if ended_early:
                    _progress(f"  {label}  {ended_early}: ending the stage")
                    break
                if time.monotonic() >= next_report:
                    ops, failures = runner.stats.total.num_requests, runner.stats.total.num_failures
                    elapsed = time.monotonic() - started
                    _progress(f"  {label}  {elapsed:4.0f}s/{options.duration_s:.0f}s  ops {ops:,}  failures {failures}  "
                              f"({ops / elapsed:,.0f} ops/s)")
                    next_report += PROGRESS_EVERY_S
        except KeyboardInterrupt:
            interrupted = True
            _progress(f"  {label}  interrupted: stopping the users, then auditing what they wrote")
        if ended_early or interrupted:
            env.stop_timeout = FORCED_STOP_S  # operations stuck on a dead emulator would wait for minutes
        if workers:
            # Stops the workers' users and takes their final reports. Locust's own stop would
            # also make each worker sleep for its stop timeout before it heeds the quit.
            per_worker = master.gather()
        else:
            runner.stop()  # lets every user finish its operation in flight
            per_worker = {}
        elapsed = time.monotonic() - started
        runner.quit()
    finally:
        if workers:
            workers.close()
    return Driven(env, elapsed, per_worker, ended_early, interrupted)


class WorkerProcesses:
    """`python -m loadtests.worker` processes of one stage, started and stopped by PID."""

    CONNECT_TIMEOUT_S = 60.0

    def __init__(self, count: int, port: int):
        cmd = [sys.executable, "-m", "loadtests.worker", "--master-port", str(port)]
        # Own session (Ctrl-C is for keybench, which stops them in order), but gone with keybench.
        self.procs = [subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=emulators.die_with_parent) for _ in range(count)]

    def wait_connected(self, runner, label: str) -> None:
        deadline = time.monotonic() + self.CONNECT_TIMEOUT_S
        while runner.worker_count < len(self.procs):
            dead = [p for p in self.procs if p.poll() is not None]
            if dead:
                raise KeybenchError(f"{label}: worker pid {dead[0].pid} exited with code {dead[0].returncode} "
                                    "before joining the master")
            if time.monotonic() > deadline:
                raise KeybenchError(f"{label}: only {runner.worker_count} of {len(self.procs)} workers joined the "
                                    f"master within {self.CONNECT_TIMEOUT_S:.0f} s")
            gevent.sleep(0.2)

    def close(self) -> None:
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


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


def _endpoint_record(ep: emulators.Endpoint, sdk_version: str | None) -> dict:
    started_by_keybench = ep.target == "emulator" and ep.source not in ("environment", "already running")
    return {
        "address": ep.address, "source": ep.source, "target": ep.target,
        # Only for emulators keybench started: others may be any version (Docker images, ...).
        "emulator_version": f"google-cloud-cli {sdk_version}" if started_by_keybench else "unknown",
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
    interrupted: bool = False


class StageFailed(Exception):
    """A stage that could not run at all (its database could not be created): the run goes on."""


def run_stage(strategy: strategies.Strategy, ep: emulators.Endpoint, options: RunOptions, tag: str,
              label: str, run_dir: RunDirectory, suffix: str = "") -> StageOutcome:
    """One strategy on a fresh table: load, audit, the strategy's own checks, results."""
    backend = target.OwnLocationsOnly(make_backend(strategy, location_name(tag, strategy), *target.project_instance(ep),
                                                   options.settings.payload_bytes, options.settings.timeout_s),
                                      ep.created)
    stage = Stage(strategy, backend, options.settings, options.seed, tag=tag)
    started = time.time()
    driven = None
    try:
        try:
            stage.setup()
        except Exception as exc:  # noqa: BLE001 - one stage that cannot start must not end the run
            raise StageFailed(f"{strategy.label} could not start: {_one_line(exc)}") from None
        driven = drive(stage, options, label, ep)
        stage.ended_early = driven.ended_early
        if driven.ended_early:
            integrity, tenant_drop = Integrity.unverifiable(stage.collector.ledger, driven.ended_early), None
        else:
            try:
                integrity, tenant_drop = stage.finish()
            except Exception as exc:  # noqa: BLE001 - the database went away after the load
                integrity, tenant_drop = Integrity.unverifiable(stage.collector.ledger, _one_line(exc)), None
    finally:
        try:
            # What this run created goes, even when the stage failed before its load (its
            # ledger knows); only an emulator that went away mid-stage cannot be asked.
            stage.teardown(drop=not (driven and driven.ended_early))
        except Exception as exc:  # noqa: BLE001 - a database that went away cannot be dropped either
            _progress(f"  {label}  could not drop {backend.location}: {_one_line(exc)}")
    seconds = driven.seconds
    ops, failures = stage.collector.totals()
    _progress(f"  {label}  done: ops {ops:,}  failures {failures}  integrity {integrity.describe()}")
    write_locust_csvs(run_dir, unit_name(strategy) + suffix, driven.env)
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
        "operations_per_worker": {str(k): v for k, v in driven.per_worker.items()} or None,
        "tenant_drop": asdict(tenant_drop) if tenant_drop else None,
        "ended_early": driven.ended_early, "interrupted": driven.interrupted,
    }
    return StageOutcome(stage, seconds, integrity, tenant_drop, ep.restartable,
                        timeseries_rows(stage.collector, started), record, driven.interrupted)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


def unit_name(strategy: strategies.Strategy) -> str:
    return f"{strategy.backend}-{strategy.name}" + (f"-{strategy.dialect}" if strategy.dialect else "")


def model_stage(runs: list[StageOutcome], rows: list[dict], options: RunOptions, run_dir: RunDirectory) -> None:
    """Save the stage's key stream, add the split model's columns to its rows, and draw its
    heatmaps. Every figure here is modelled: the emulators never split."""
    stream = KeyStream()
    for outcome in runs:
        stream.merge(outcome.stage.collector.keys)
    strategy = runs[0].stage.strategy
    name = unit_name(strategy)
    run_dir.partial.joinpath("keystream").mkdir(exist_ok=True)
    stream.save(run_dir.partial / "keystream" / f"{name}.npz")
    result = model_stream(stream, dataclasses.replace(options.model or SplitParams(), nodes=options.nodes))
    for row in rows:
        row.update(model_columns(result, row["operation"]))
    if options.report and stream.spaces():
        from loadtests.heatmap import render_heatmap

        heatmaps = run_dir.partial / "heatmaps"
        heatmaps.mkdir(exist_ok=True)
        for space in stream.spaces():
            suffix = "" if space == TABLE_SPACE else f"-{space}"
            for kind in ("writes", "reads"):
                render_heatmap(stream, space, kind, heatmaps / f"{name}{suffix}-{kind}.png", strategy.label)


@dataclass
class RunState:
    """What a run has done so far, written into its directory after every stage, so a run
    cut off by a crash still leaves (in its `.partial` directory) whole files of what it did."""

    options: RunOptions
    run_id: str
    started: dt.datetime
    endpoints: dict
    outcomes: dict = field(default_factory=dict)  # (backend, strategy, dialect) -> [StageOutcome]
    records: list = field(default_factory=list)  # per stage, for run.json
    series_rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # stages that could not run
    _unit_rows: dict = field(default_factory=dict)
    # Facts of the machine, looked up once: run.json is rewritten after every stage.
    _versions: dict = field(default_factory=_versions)
    _machine: dict = field(default_factory=_machine)
    _sdk_version: str | None = field(default_factory=emulators.sdk_version)

    def add(self, strategy: strategies.Strategy, outcome: StageOutcome, repetition: int) -> None:
        key = (strategy.backend, strategy.name, strategy.dialect)
        self.outcomes.setdefault(key, []).append(outcome)
        self._unit_rows.pop(key, None)  # a new repetition changes that unit's rows
        self.series_rows.extend(outcome.timeseries)
        self.records.append({**outcome.record, "repetition": repetition})

    def add_failure(self, strategy: strategies.Strategy, cause: str, repetition: int) -> None:
        self.problems.append(cause)
        self.records.append({"backend": strategy.backend, "strategy": strategy.name, "dialect": strategy.dialect,
                             "repetition": repetition, "error": cause})

    def _unit(self, key: tuple) -> tuple[list[dict], list[str]]:
        """One unit's summary rows and problems, computed once per repetition added (reading
        percentiles out of the histograms is the costly part)."""
        if key not in self._unit_rows:
            runs = self.outcomes[key]
            rows, integrity, tenant_drop = repeated_rows(
                [(o.stage, o.seconds, o.integrity, o.tenant_drop, o.fresh) for o in runs])
            self._unit_rows[key] = (rows, stage_problems(runs[0].stage, rows, integrity, tenant_drop))
        return self._unit_rows[key]

    def rows(self, run_dir: RunDirectory | None = None) -> tuple[list[dict], list[str]]:
        """Summary rows and the problems that fail the run; with run_dir, the split model's
        columns too (and its key streams and heatmaps written there)."""
        rows, problems = [], list(self.problems)
        for key, runs in self.outcomes.items():
            unit_rows, unit_problems = self._unit(key)
            if run_dir is not None:
                unit_rows = [dict(r) for r in unit_rows]
                model_stage(runs, unit_rows, self.options, run_dir)
            rows.extend(unit_rows)
            problems.extend(unit_problems)
        return rows, problems

    def write(self, run_dir: RunDirectory, status: str, rows: list[dict]) -> None:
        options = self.options
        run_dir.write("summary.csv", to_csv(rows))
        run_dir.write("timeseries.csv", to_csv(self.series_rows, TIMESERIES_COLUMNS))
        run_dir.write("run.json", json.dumps({
            "run_id": self.run_id, "status": status,
            "started": self.started.isoformat(), "finished": dt.datetime.now(dt.UTC).isoformat(),
            "settings": {**{k: v for k, v in asdict(options).items() if k not in ("settings", "results_dir")},
                         "results_dir": str(options.results_dir), "workload": asdict(options.settings)},
            "target": target.record(options),
            "endpoints": {b: _endpoint_record(e, self._sdk_version) for b, e in self.endpoints.items()},
            "machine": self._machine,
            "seed": options.seed,
            "versions": self._versions,
            "stages": self.records,
        }, indent=2, default=str) + "\n")


def run(options: RunOptions) -> int:
    options.validate()
    if options.rate:
        options.settings = dataclasses.replace(options.settings, user_rate=options.rate / options.users)
    stages = plan_stages(options)
    root = Path(options.results_dir)
    RunDirectory.check_writable(root)
    now = dt.datetime.now(dt.UTC)
    run_id = options.run_id or now.strftime("%Y%m%dT%H%M%SZ")
    tag = run_tag(now.timestamp())
    run_dir = RunDirectory(root, run_id)
    if run_dir.final.exists():
        raise KeybenchError(f"{run_dir.final} already exists; choose another --run-id")
    # ---- target.py: a dry run ends here with its plan; a real target states its writes first
    if target.announce(options, stages, tag):
        return 0
    # ----

    endpoints: dict[str, emulators.Endpoint] = {}
    served: dict[str, int] = {}
    saved_env = {v: os.environ.get(v) for v in emulators.ENV_VARS.values()}
    state = RunState(options, run_id, now, endpoints)
    interrupted = False
    CTRL_C.listen()
    try:
        for backend in dict.fromkeys(s.backend for s in stages):
            endpoints[backend] = target.endpoint(options, backend)
            served[backend] = 0
            ep = endpoints[backend]
            _progress(f"{emulators.TITLES[backend]} {ep.target}: {ep.address} ({ep.source})")
            if not ep.restartable and ep.target == "emulator":
                _progress(
                    "  note: keybench did not start it, so it cannot restart it between stages; "
                    "later stages inherit earlier ones' history (fresh_emulator=no)"
                )
        run_dir.open()
        total = len(stages) * options.repeat
        try:
            # Repetitions interleave (A B C, A B C, ...), so drift over the run lands on every strategy.
            for repetition in range(1, options.repeat + 1):
                for number, strategy in enumerate(stages, 1):
                    label = f"[{(repetition - 1) * len(stages) + number}/{total}] {strategy.label}"
                    ep = endpoints[strategy.backend]
                    if CTRL_C.requested:
                        raise KeyboardInterrupt
                    _progress(f"{label}: {strategy.summary}")
                    try:
                        if ep.restartable and served[strategy.backend] > 0:
                            ep.restart()
                        served[strategy.backend] += 1
                        emulators.use(ep)
                        outcome = run_stage(strategy, ep, options, tag, label, run_dir,
                                            f"-r{repetition}" if options.repeat > 1 else "")
                    except (StageFailed, KeybenchError) as exc:
                        _progress(f"  {label}  {exc}")
                        state.add_failure(strategy, str(exc), repetition)
                        continue
                    state.add(strategy, outcome, repetition)
                    state.write(run_dir, "running", state.rows()[0])
                    if outcome.interrupted or CTRL_C.requested:
                        raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
        rows, problems = state.rows(run_dir)
        state.write(run_dir, "interrupted" if interrupted else "complete", rows)
        if options.report:
            from loadtests.report import write_report

            write_report(run_dir.partial)
        final = run_dir.commit()
    except KeybenchError:
        run_dir.discard()  # refused before anything ran: nothing to keep
        raise
    except BaseException as exc:
        if run_dir.partial.exists():
            _progress(f"keybench: run cut off ({_one_line(exc)}); what it finished is in {run_dir.partial}")
        raise
    finally:
        CTRL_C.ignore()
        for ep in endpoints.values():
            ep.stop()
        for name, value in saved_env.items():  # emulators.use() pointed this process at them
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    print(side_by_side(rows))
    print(f"\nresults: {final}/summary.csv" + (f"\nreport:  {final}/report.html" if options.report else ""))
    if interrupted:
        done = sum(len(v) for v in state.outcomes.values())
        print(f"keybench: interrupted; the results cover {done} of {total} stages", file=sys.stderr)
        return 130
    failures = sum(int(r["failures"]) for r in rows)
    if options.smoke and failures:
        problems.append(f"{failures} failed operation(s)")
    if problems:
        print(f"keybench: run failed: {'; '.join(problems)}", file=sys.stderr)
        return 1
    return 0


__all__ = ["Integrity", "RunOptions", "parse_duration", "plan_stages", "run"]
