"""What a `locust -f loadtests/<backend>_locustfile.py` scenario needs besides its user class:
the `--strategy` option, a stage set up once the options are parsed, and the integrity
audit and keybench summary when Locust quits.

Plain Locust uses the emulator it finds (environment variables, or the default port of
`keybench emulators up` / `docker compose up`) and starts nothing itself. In Locust's
distributed mode the master (`--master`) creates the table and audits it; workers
(`--worker --master-host HOST`) get the stage from the master (see `distributed.py`).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import gevent.event
from locust import events
from locust.runners import MasterRunner, WorkerRunner
from locust.stats import StatsCSVFileWriter

from keybench.backends import binding
from keybench.design import limits, strategies
from keybench.design.keys import DEFAULT_SEED
from keybench.drive import webui
from keybench.drive.distributed import MasterSide, attach_worker
from keybench.drive.settings import DEFAULT_READERS, WorkloadSettings, given_rate
from keybench.drive.stage import Stage, StageDefinition
from keybench.drive.users import CurrentStage, KeybenchUser, user_class
from keybench.errors import KeybenchError, one_line
from keybench.infra import emulators
from keybench.infra.watchdog import watched
from keybench.measure.console import side_by_side
from keybench.measure.summary import stage_problems, stage_rows


def _stop_csv_writers() -> None:
    """End the greenlet that writes Locust's `--csv` files. Locust closes the files right after
    its `quit` event and leaves that greenlet asleep; the exit then yields to it (gRPC's own
    shutdown does), and it fails on a closed file with a CRITICAL traceback. It wrote its last
    rows during the audit, after the users had stopped."""
    for obj in gc.get_objects():
        if isinstance(obj, gevent.Greenlet) and isinstance(getattr(getattr(obj, "_run", None), "__self__", None),
                                                           StatsCSVFileWriter):
            obj.kill(block=True, timeout=1)


def scenario(backend: str) -> type[KeybenchUser]:
    """Register the listeners of one backend's scenario and return its user class."""
    binding(backend)  # while the locustfile loads: a worker joins its master right after (backends.binding)
    state: dict = {}
    slot = CurrentStage()

    @events.init_command_line_parser.add_listener
    def _options(parser, **_kw):
        # The web UI starts load against a database and has no authentication: on loopback
        # unless the user asks (`--web-host 0.0.0.0`). Locust's own default is every address.
        parser.set_defaults(web_host="127.0.0.1")
        names = ", ".join(strategies.catalogue(backend))
        parser.add_argument("--strategy", default=None, include_in_web_ui=False,
                            help=f"{backend} key strategy to load ({names})")
        parser.add_argument("--dialect", default=strategies.DIALECTS[backend][0], include_in_web_ui=False,
                            help="Spanner dialect: googlesql or postgresql" if backend == "spanner"
                            else "(Spanner only)")
        parser.add_argument("--keybench-seed", type=int, default=DEFAULT_SEED, include_in_web_ui=False,
                            help="seed of every random choice")
        parser.add_argument("--population", type=int, default=WorkloadSettings.population, include_in_web_ui=False,
                            help="users (Spanner) or devices (Bigtable)")
        parser.add_argument("--keep-data", action="store_true", include_in_web_ui=False,
                            help="keep the strategy's database or table after the run")
        parser.add_argument("--readers", type=int, default=None, include_in_web_ui=False,
                            help=f"how many of the -u users only read; the rest only insert (default "
                                 f"{DEFAULT_READERS}, none with -u 1)")
        parser.add_argument("--rate", type=float, default=None, include_in_web_ui=False,
                            help="open loop for the writers: inserts per second, spread over the writers (default: "
                                 "closed loop, each writer back to back), as `keybench run --rate`")
        parser.add_argument("--read-rate", type=float, default=WorkloadSettings.read_rate, include_in_web_ui=False,
                            help="open loop for the readers: reads per second, spread over the readers (default "
                                 f"{WorkloadSettings.read_rate:g}: closed loop), as `keybench run --read-rate`")

    @events.init.add_listener
    def _setup(environment, **_kw):
        if isinstance(environment.runner, WorkerRunner):
            attach_worker(environment, slot)  # the master sends the stage and this worker's share
            return
        opts = environment.parsed_options
        try:
            if not opts.strategy:
                raise KeybenchError(f"--strategy is required; valid: {', '.join(strategies.catalogue(backend))}")
            strategy = strategies.select(backend, [opts.strategy], opts.dialect or None)[0]
            # Roles are dealt out against -u: users the web UI adds beyond it write.
            settings = WorkloadSettings(population=opts.population, users=opts.num_users or 1, readers=opts.readers,
                                        insert_rate=given_rate("--rate", opts.rate),
                                        read_rate=opts.read_rate)
            settings.validate((backend,))
            limits.check_rules(strategy, settings.population, settings.payload_bytes)
            emulators.use(emulators.resolve(backend, may_start=False))
            spec = StageDefinition.of(strategy, settings, opts.keybench_seed)
            stage = spec.build(events=environment.events)
            try:
                stage.setup()
            except BaseException:
                stage.teardown()  # drops only what this setup created, closes the clients
                raise
        except KeybenchError as exc:
            print(f"keybench: error: {exc}", file=sys.stderr)
            raise SystemExit(exc.exit_code) from None
        slot.put(stage)
        webui.attach(environment, slot.peek)
        state.update(keep=opts.keep_data, started=time.time())
        if isinstance(environment.runner, MasterRunner):
            state["master"] = MasterSide(environment, stage, spec)

    @events.test_stop.add_listener
    def _gather(environment, **_kw):
        if "master" in state:
            state["master"].gather()

    @events.quit.add_listener
    def _end_the_csv_writer(**_kw):
        _stop_csv_writers()

    @events.quitting.add_listener
    def _audit(environment, **_kw):
        if isinstance(environment.runner, WorkerRunner):
            return
        if "audited" in state:
            # Quitting again (SIGTERM: `docker compose --abort-on-container-exit` stops the
            # master as soon as its workers exit): wait for the audit under way, or Locust
            # exits in the middle of it and the table is never audited nor the summary written.
            state["audited"].wait()
            return
        state["audited"] = gevent.event.Event()
        try:
            _audit_once(environment)
        finally:
            state["audited"].set()

    def _audit_once(environment) -> None:
        # Locust fires `quitting` before it stops the users (Ctrl-C or SIGTERM while a test
        # started from the web UI runs): stop them first, so no write lands after the audit.
        environment.runner.stop()
        stage: Stage | None = slot.clear()
        if stage is None:
            return
        integrity = None
        try:
            lost = state["master"].lost if "master" in state else None
            integrity, tenant_drop = watched(lambda: stage.finish(lost), stage.backend.answers, "the audit")
        except Exception as exc:
            integrity, tenant_drop = stage.unverifiable(f"the database does not answer: {one_line(exc)}"), None
        finally:
            try:
                verified = integrity is not None and integrity.verified
                watched(lambda: stage.teardown(drop=not state["keep"] and verified),
                        stage.backend.answers, "the drop")
            except Exception as exc:
                print(f"keybench: could not drop {stage.backend.location}: {one_line(exc)}", file=sys.stderr)
        result = stage.result(seconds=stage.collector.active_seconds(), integrity=integrity, tenant_drop=tenant_drop,
                              fresh=False, started_epoch_s=state["started"])
        rows = stage_rows(result)
        table = f"{side_by_side(rows)}\nintegrity: {integrity.describe()}\n"
        print(table, end="")
        csv_prefix = environment.parsed_options.csv_prefix
        if csv_prefix:  # beside Locust's CSVs, so a run under Docker Compose leaves it in results/
            Path(f"{csv_prefix}_keybench.txt").write_text(table)
        problems = stage_problems(result.strategy, rows, integrity, tenant_drop)
        if problems:
            print(f"keybench: {'; '.join(problems)}")
            environment.process_exit_code = 1

    return user_class(slot, f"{backend.title()}User", host=f"grpc://{emulators.expected_address(backend)}")
