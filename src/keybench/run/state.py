"""What a run has done so far, written into its directory after every stage, so a run cut
off by a crash still leaves (in its `.partial` directory) whole files of what it did."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field

from keybench.columns import REPETITION_COLUMNS, TIMESERIES_COLUMNS, VERDICTS_FILE_COLUMNS
from keybench.design.strategies import Strategy
from keybench.drive.settings import WorkloadSettings
from keybench.infra import emulators, target
from keybench.measure.rundir import RunDirectory
from keybench.measure.stage_result import StageResult
from keybench.measure.summary import (
    VariantSummary,
    design_rows,
    timeseries_rows,
    to_csv,
    variant_summary,
)
from keybench.run import facts
from keybench.run.options import RunOptions
from keybench.run.timing import WallClock

# A variant: one strategy in one dialect, (backend, strategy, dialect); its repetitions share
# one summary, one key stream and one verdict.
Variant = tuple[str, str, str]


def variant_of(strategy: Strategy) -> Variant:
    return (strategy.backend, strategy.name, strategy.dialect)


def variant_name(strategy: Strategy) -> str:
    """A variant's file name stem, e.g. spanner-hash_shard-postgresql."""
    return f"{strategy.backend}-{strategy.name}" + (f"-{strategy.dialect}" if strategy.dialect else "")


def load_record(result: StageResult, workload: WorkloadSettings) -> dict:
    """How the stage's load was made, per role: writers and readers, the rate each role was
    paced at (null: closed loop), and the operations per second each achieved."""
    roles = workload.roles(result.strategy.backend)
    return {
        "writers": roles.writers, "readers": roles.readers,
        "insert_rate": workload.insert_rate or None, "read_rate": workload.read_rate or None,
        "inserts_per_s": round(result.ops_per_s(result.inserts), 1),
        "reads_per_s": round(result.ops_per_s(result.reads), 1),
    }


def stage_record(result: StageResult, ep: emulators.Endpoint, repetition: int, workload: WorkloadSettings,
                 outside_load_s: dict[str, float] | None = None) -> dict:
    """One stage, as run.json lists it; `outside_load_s`: its seconds per phase outside its load."""
    s = result.strategy
    return {
        "backend": s.backend, "strategy": s.name, "dialect": s.dialect,
        "location": result.location, "emulator": ep.address,
        "emulator_pid": ep.emulator.pid if ep.emulator else None, "fresh_emulator": result.fresh,
        "seconds": round(result.seconds, 3), "load": load_record(result, workload),
        "integrity": asdict(result.integrity),
        "operations_per_worker": {str(k): v for k, v in result.per_worker.items()} or None,
        "tenant_drop": asdict(result.tenant_drop) if result.tenant_drop else None,
        "ended_early": result.ended_early, "interrupted": result.interrupted, "repetition": repetition,
        "outside_load_s": outside_load_s or {},
    }


@dataclass
class RunState:
    options: RunOptions
    run_id: str
    started: dt.datetime
    endpoints: dict
    results: dict[Variant, list[StageResult]] = field(default_factory=dict)  # per variant, one per repetition
    records: list = field(default_factory=list)  # per stage, for run.json
    series_rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # stages that could not run
    clock: WallClock = field(default_factory=WallClock)  # where the run's wall time goes
    _summaries: dict[Variant, VariantSummary] = field(default_factory=dict)
    # Facts of the machine, looked up once: run.json is rewritten after every stage.
    _versions: dict = field(default_factory=facts.versions)
    _machine: dict = field(default_factory=facts.machine)
    _sdk_version: str | None = field(default_factory=emulators.sdk_version)

    @property
    def stages_done(self) -> int:
        return sum(len(v) for v in self.results.values())

    def add(self, result: StageResult, ep: emulators.Endpoint, repetition: int,
            outside_load_s: dict[str, float] | None = None) -> None:
        variant = variant_of(result.strategy)
        self.results.setdefault(variant, []).append(result)
        self._summaries.pop(variant, None)  # a new repetition changes that variant's rows
        self.series_rows.extend(timeseries_rows(result))
        self.records.append(stage_record(result, ep, repetition, self.options.workload, outside_load_s))

    def add_failure(self, strategy: Strategy, cause: str, repetition: int) -> None:
        self.problems.append(cause)
        self.records.append({"backend": strategy.backend, "strategy": strategy.name, "dialect": strategy.dialect,
                             "repetition": repetition, "error": cause})

    def variant_summaries(self) -> dict[Variant, VariantSummary]:
        """Each variant's summary rows and problems, computed once per repetition added (reading
        percentiles out of the histograms is the costly part)."""
        for variant, results in self.results.items():
            if variant not in self._summaries:
                self._summaries[variant] = variant_summary(results)
        return dict(self._summaries)

    def summary(self) -> tuple[list[dict], list[str]]:
        """The summary rows so far (model columns still empty) and the problems that fail the run."""
        rows, problems = [], list(self.problems)
        for variant in self.variant_summaries().values():
            rows.extend(variant.rows)
            problems.extend(variant.problems)
        return rows, problems

    def write(self, run_dir: RunDirectory, status: str, rows: list[dict]) -> None:
        options = self.options
        run_dir.write("summary.csv", to_csv(rows))
        run_dir.write("verdicts.csv", to_csv(design_rows(rows), VERDICTS_FILE_COLUMNS))
        run_dir.write("timeseries.csv", to_csv(self.series_rows, TIMESERIES_COLUMNS))
        run_dir.write("repetitions.csv", to_csv([row for variant in self.variant_summaries().values()
                                                 for row in variant.repetition_rows], REPETITION_COLUMNS))
        settings = {k: v for k, v in asdict(options).items() if k not in ("settings", "results_dir")}
        run_dir.write("run.json", json.dumps({
            "run_id": self.run_id, "status": status,
            "started": self.started.isoformat(), "finished": dt.datetime.now(dt.UTC).isoformat(),
            "settings": {**settings, "nodes": options.model.nodes, "results_dir": str(options.results_dir),
                         "workload": asdict(options.workload)},
            "target": target.record(options),
            "endpoints": {b: facts.endpoint_record(e, self._sdk_version) for b, e in self.endpoints.items()},
            "machine": self._machine,
            "seed": options.seed,
            "versions": self._versions,
            "wall_time": self.clock.record(),
            "stages": self.records,
        }, indent=2, default=str) + "\n")
