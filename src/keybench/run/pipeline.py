"""`keybench run`: every chosen strategy in its own stage, under identical load and on an
emulator with no history, then one summary. It reads top to bottom as the pipeline: plan;
per stage drive, audit and record; then write, model and report.

The Spanner emulator's strong reads slow down with every commit it has ever served, in
any database, until it restarts; a strategy run after another would inherit that history.
So before every stage after the first, keybench restarts each emulator it started itself.
Emulators it did not start (environment variables, Docker Compose, `keybench emulators
up`) cannot be restarted by it; such stages are marked `fresh_emulator=no`.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from keybench.errors import FixtureError, KeybenchError, one_line
from keybench.infra import emulators, target
from keybench.infra.interrupt import INTERRUPT
from keybench.infra.progress import progress, stage_bar
from keybench.measure.console import run_document, run_tables, verdict_offenders
from keybench.measure.rundir import RunDirectory
from keybench.model.keystream import KeyStream
from keybench.run.modelling import Modeller
from keybench.run.options import RunOptions
from keybench.run.schedule import schedule_stages
from keybench.run.stage_run import StageSetupFailed, run_stage
from keybench.run.state import RunState, variant_name, variant_of
from keybench.terminal import print_verdicts_coloured


def run(options: RunOptions) -> int:
    # ---- plan: nothing is contacted until the options, the stages and the directory pass
    options.validate()
    stages = schedule_stages(options)
    root = Path(options.results_dir)
    RunDirectory.check_writable(root)
    now = dt.datetime.now(dt.UTC)
    run_id = options.run_id or now.strftime("%Y%m%dT%H%M%SZ")
    tag = target.run_tag(now.timestamp())
    run_dir = RunDirectory(root, run_id)
    if run_dir.final.exists():
        raise KeybenchError(f"{run_dir.final} already exists; choose another --run-id")
    if target.announce(options, stages, tag):  # a dry run ends here with its plan
        return 0
    target.check_credentials(options)

    endpoints: dict[str, emulators.Endpoint] = {}
    saved_env = emulators.environment()
    state = RunState(options, run_id, now, endpoints)
    total = len(stages) * options.repeat
    interrupted = False
    # The run id is claimed before anything starts: a run refused for a taken id touches nothing.
    run_dir.open()
    modeller = Modeller(options.model, run_dir, options.report, options.settings.payload_bytes, options.overlap)
    INTERRUPT.listen()
    try:
        for backend in dict.fromkeys(s.backend for s in stages):
            endpoints[backend] = _endpoint(options, backend)
        # ---- per stage: drive, audit, record
        try:
            with stage_bar(len(stages) * options.repeat) as stage_done:
                interrupted = _run_stages(stages, options, tag, endpoints, state, run_dir, modeller, stage_done)
        except KeyboardInterrupt:
            interrupted = True
        # ---- then write, model (what is not modelled yet) and report
        with state.clock.phase("model"):
            for results in state.results.values():
                if variant_name(results[0].strategy) not in modeller.variants:  # its last repetition never came
                    modeller.submit(results[0].strategy, [r.key_stream for r in results])
            rows = modeller.rows({variant_name(results[0].strategy): state.variant_summaries()[variant].rows
                                  for variant, results in state.results.items()})
        modeller.close()
        _, problems = state.summary()
        status = "interrupted" if interrupted else "complete"
        state.write(run_dir, status, rows)
        if options.report:
            from keybench.measure.html_report import write_report

            with state.clock.phase("report"):
                write_report(run_dir.partial, status)
            state.write(run_dir, status, rows)  # again, with the report's time in the breakdown
        final = run_dir.commit()
    except (KeybenchError, OSError) as exc:
        modeller.close()  # nothing writes into the directory while it is kept or discarded
        if isinstance(exc, OSError):  # a write outside RunDirectory.write (a plot, the report): one line too
            exc = KeybenchError(f"cannot write the results: {exc.strerror or exc}", exit_code=1)
        if not state.records:
            run_dir.discard()  # refused before any stage ran: nothing to keep
        else:
            _keep_failed(state, run_dir, exc)
        raise exc from None
    except BaseException as exc:
        if run_dir.partial.exists():
            progress(f"keybench: run cut off ({one_line(exc)}); what it finished is in {run_dir.partial}")
        raise
    finally:
        INTERRUPT.ignore()
        modeller.close()
        for ep in endpoints.values():
            ep.stop()
        emulators.restore_environment(saved_env)  # emulators.use() pointed this process at them

    if options.format == "json":
        print(json.dumps(run_document(rows, final, status, options.report), indent=2, allow_nan=False))
    else:
        print_verdicts_coloured(run_tables(rows, shutil.get_terminal_size().columns, options.verbose))
        print(f"\nresults: {final}/summary.csv" + (f"\nreport:  {final}/report.html" if options.report else ""))
    progress(state.clock.describe())
    return _exit_code(options, rows, problems, interrupted, state.stages_done, total)


def _endpoint(options: RunOptions, backend: str) -> emulators.Endpoint:
    ep = target.endpoint(options, backend)
    progress(f"{emulators.TITLES[backend]} {ep.target}: {ep.address} ({ep.source})")
    if not ep.restartable and ep.target == "emulator":
        progress("  note: keybench did not start it, so it cannot restart it between stages; "
                 "later stages inherit earlier ones' history (fresh_emulator=no)")
    return ep


def _run_stages(stages, options: RunOptions, tag: str, endpoints: dict, state: RunState,
                run_dir: RunDirectory, modeller: Modeller, stage_done: Callable[[], None]) -> bool:
    """Every stage, repetitions interleaved (A B C, A B C, ...) so drift over the run lands on
    every strategy; the run directory is rewritten after each, and a variant whose last
    repetition is done goes to the model, which runs while the next stage is set up. True if
    interrupted."""
    total = len(stages) * options.repeat
    served = dict.fromkeys(endpoints, 0)
    for repetition in range(1, options.repeat + 1):
        for number, strategy in enumerate(stages, 1):
            label = f"[{(repetition - 1) * len(stages) + number}/{total}] {strategy.label}"
            ep = endpoints[strategy.backend]
            if INTERRUPT.requested:
                return True
            progress(f"{label}: {strategy.summary}")
            before = dict(state.clock.phases)
            try:
                if ep.restartable and served[strategy.backend] > 0:
                    with state.clock.phase("emulator_restart"):
                        ep.restart()
                    if INTERRUPT.requested:  # it arrived while the emulator restarted: no new stage
                        return True
                served[strategy.backend] += 1
                emulators.use(ep)
                after_load = _after_load(strategy, repetition, state, modeller, endpoints, served,
                                         _next_stage(stages, options.repeat, repetition, number))
                done = run_stage(strategy, ep, options, tag, label, state.clock, before_load=modeller.wait,
                                 after_load=after_load)
            except FixtureError:
                raise  # a fixture the database refuses ends the run (exit 2), as a malformed one does
            except (StageSetupFailed, KeybenchError) as exc:
                if INTERRUPT.requested:  # the signal cut the set-up short: the stage did not fail
                    return True
                progress(f"  {label}  {exc}")
                state.add_failure(strategy, str(exc), repetition)
                stage_done()
                continue
            stage_done()
            # The stage counts as run before any of its files is written: a disk that fills on
            # its first file keeps the run, marked failed, rather than discarding it.
            state.add(done.result, ep, repetition, state.clock.since(before))
            suffix = f"-r{repetition}" if options.repeat > 1 else ""
            for kind, text in done.locust_csvs.items():
                run_dir.write(f"locust/{variant_name(strategy)}{suffix}_{kind}.csv", text)
            with state.clock.phase("write"):
                state.write(run_dir, "running", state.summary()[0])
            if done.result.interrupted or INTERRUPT.requested:
                return True
    return False


def _next_stage(stages, repeat: int, repetition: int, number: int):
    """The stage after stage `number` (1-based) of `repetition`; None after the last."""
    if number < len(stages):
        return stages[number]
    return stages[0] if repetition < repeat else None


def _after_load(strategy, repetition: int, state: RunState, modeller: Modeller, endpoints: dict, served: dict,
                following) -> Callable[[KeyStream], None]:
    """What starts once a stage's load is over, to run beside its audit and the next stage's
    set-up (never beside a load): the variant's model once its last repetition is in, and the
    emulator the next stage restarts to."""

    def start(key_stream: KeyStream) -> None:
        if repetition == state.options.repeat:
            earlier = [r.key_stream for r in state.results.get(variant_of(strategy), [])]
            modeller.submit(strategy, [*earlier, key_stream])
        if state.options.overlap and following is not None and served[following.backend] > 0:
            endpoints[following.backend].prepare_restart()

    return start


def _keep_failed(state: RunState, run_dir: RunDirectory, exc: KeybenchError) -> None:
    """A run that failed part-way (a full disk, a write error): say so in run.json if the disk
    still takes it, and rename the directory so nothing reads it as complete or running."""
    try:
        state.write(run_dir, "failed", state.summary()[0])
    except KeybenchError:
        pass  # the disk that failed the run may refuse this too; the new name says it all
    kept = run_dir.mark_failed()
    progress(f"keybench: run failed part-way ({exc}); what it finished is in {kept}")


def _exit_code(options: RunOptions, rows: list[dict], problems: list[str], interrupted: bool, done: int,
               total: int) -> int:
    if interrupted:
        print(f"keybench: interrupted by {INTERRUPT.name or 'SIGINT'}; the results cover {done} of {total} stages",
              file=sys.stderr)
        return INTERRUPT.exit_code
    failures = sum(int(r["failures"]) for r in rows)
    if options.smoke and failures:
        problems.append(f"{failures} failed operation(s)")
    if options.smoke:
        # A smoke gate that exercised no read is a silent green: every operation of the mix
        # must have run (the load waited for it, drive.locust_driver.COVER_WAIT_S at most).
        idle = [f"{r['backend']}:{r['strategy']} {r['operation']}" for r in rows
                if r["operation"] in options.workload.running_operations(r["backend"])
                and str(r.get("requests", "")).strip() in ("0", "")]
        if idle:
            problems.append(f"--smoke: {len(idle)} operation(s) of the mix never ran: {', '.join(idle[:6])}"
                            + (", ..." if len(idle) > 6 else ""))
    offending = verdict_offenders(rows, options.fail_on_verdict)
    for line in offending:
        print(f"keybench: --fail-on-verdict: {line}", file=sys.stderr)
    if offending and not problems:
        return 1
    if problems:
        print(f"keybench: run failed: {'; '.join(problems)}", file=sys.stderr)
        return 1
    return 0
