"""One stage of `keybench run`: a fresh table, the load, the audit, the drop, and the stage's
plain record. A stage that cannot start is a `StageSetupFailed`, and the run goes on."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from keybench.design.strategies import Strategy
from keybench.drive.locust_driver import StageEnvironment, StageLoad
from keybench.drive.stage import StageDefinition
from keybench.errors import FixtureError, one_line
from keybench.infra import emulators, target
from keybench.infra.interrupt import INTERRUPT
from keybench.infra.progress import progress
from keybench.infra.watchdog import Cancelled, Unanswered, watched
from keybench.measure.stage_result import StageResult
from keybench.model.keystream import KeyStream
from keybench.run.observation import observe_stage
from keybench.run.options import RunOptions
from keybench.run.timing import WallClock


class StageSetupFailed(Exception):
    """A stage that could not run at all (its database could not be created): the run goes on."""


@dataclass(frozen=True)
class StageOutcome:
    """A finished stage: its record, and Locust's own CSVs of it."""

    result: StageResult
    locust_csvs: dict[str, str]


def observes(options: RunOptions) -> bool:
    """Whether a stage reads its service's own statistics after its load: on a real instance,
    unless --observe-wait is 0."""
    return target.is_real(options) and options.observe_wait_s > 0


def run_stage(strategy: Strategy, ep: emulators.Endpoint, options: RunOptions, tag: str, label: str,
              clock: WallClock | None = None, before_load: Callable[[], None] | None = None,
              after_load: Callable[[KeyStream], None] | None = None) -> StageOutcome:
    """One strategy on a fresh table: load, audit, the strategy's own checks; `clock` is told
    where the stage's time went. `after_load` gets the stage's key stream as soon as its load
    is over, to start what may run beside the audit; `before_load` is waited for once the
    table is set up, so that what ran beside the set-up ends before the load begins."""
    clock = clock or WallClock()
    project, instance = target.project_instance(ep)
    spec = StageDefinition.of(strategy, options.workload, options.seed, tag, options.buckets, project, instance,
                              target.api_endpoint(options))
    assert options.users is not None and options.duration_s is not None  # RunOptions set the defaults
    plan = StageLoad(options.users, options.spawn_rate, options.duration_s, options.workers,
                     cover=spec.running_operations() if options.smoke else ())
    started = time.time()
    driven, silent, observed = None, False, {}
    with clock.phase("setup"):
        try:
            locust_stage = StageEnvironment(spec)  # its clients: the backend's, opened here (no call yet)
        except FixtureError:
            raise
        except Exception as exc:
            raise StageSetupFailed(f"{strategy.label} could not start: {one_line(exc)}") from None
    stage = locust_stage.stage
    try:
        try:
            with clock.phase("setup"):  # watched: a database that dies mid-DDL is retried by its client for an hour
                locust_stage.watch.run(stage.setup, "the set-up", stop=lambda: INTERRUPT.requested)
        except FixtureError:
            raise  # bad input: the run ends with exit 2 (errors.FixtureError)
        except (Unanswered, Cancelled) as exc:
            raise StageSetupFailed(f"{strategy.label} could not start: {exc}") from None
        except Exception as exc:
            raise StageSetupFailed(f"{strategy.label} could not start: {one_line(exc)}") from None
        if before_load is not None:
            with clock.phase("model"):
                before_load()
        driving, load_start_s = time.monotonic(), time.time()
        driven = locust_stage.drive(plan, label, ep)
        load_end_s = time.time()
        clock.add_load(driven.seconds - driven.stopping_s, time.monotonic() - driving)
        if after_load is not None:
            after_load(stage.collector.key_stream)
        tenant_drop = None
        if driven.ended_early:
            integrity = stage.unverifiable(driven.ended_early)
        else:
            try:
                with clock.phase("audit"):
                    integrity, tenant_drop = locust_stage.watch.run(lambda: stage.finish(driven.lost_workers),
                                                                    "the audit")
            except Exception as exc:
                integrity = stage.unverifiable(one_line(exc))
                silent = True
        if observes(options) and not silent and not driven.ended_early:
            # Before the drop: a database's statistics go with it.
            with clock.phase("observe"):
                observed = observe_stage(stage, load_start_s, load_end_s, options.observe_wait_s, label)
    finally:
        # What this stage created goes, even when it failed before its load; a database that
        # went away or fell silent cannot be asked (keybench's own emulator restarts anyway).
        drop = not (silent or locust_stage.watch.silence or (driven and driven.ended_early))
        try:
            with clock.phase("drop"):
                if drop:
                    locust_stage.watch.run(lambda: stage.teardown(drop=True), "the drop")
                else:  # closing the clients asks nothing of a database the stage's watch found silent
                    watched(lambda: stage.teardown(drop=False), stage.backend.answers, "closing the clients")
        except Exception as exc:
            progress(f"  {label}  could not drop {spec.location}: {one_line(exc)}")
    result = stage.result(seconds=driven.seconds, integrity=integrity, tenant_drop=tenant_drop, fresh=ep.restartable,
                          started_epoch_s=started, ended_early=driven.ended_early, interrupted=driven.interrupted,
                          per_worker=driven.per_worker, observed=observed)
    progress(f"  {label}  done: ops {result.operations:,} (inserts {result.ops_per_s(result.inserts):,.0f}/s, "
             f"reads {result.ops_per_s(result.reads):,.1f}/s)  failures {result.failures}  "
             f"integrity {integrity.describe()}")
    for series, stats in result.stats.items():
        for reason, count in stats.errors.items():
            progress(f"  {series.operation} failed {count}x: {reason}")
    if tenant_drop is not None:
        progress(f"  {label}  tenant_drop {tenant_drop.tenant}: {tenant_drop.removed} of "
                 f"{tenant_drop.tenant_rows} rows removed, {tenant_drop.left_behind} left behind, "
                 f"{tenant_drop.others_removed} of other tenants removed")
    return StageOutcome(result, driven.locust_csvs)
