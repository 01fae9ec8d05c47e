"""What a `locust -f loadtests/<backend>_locustfile.py` scenario needs besides its user class:
the `--strategy` option, a stage set up once the options are parsed, and the integrity
audit and keybench summary when Locust quits.

Plain Locust uses the emulator it finds (environment variables, or the default port of
`keybench emulators up` / `docker compose up`) and starts nothing itself. In Locust's
distributed mode the master (`--master`) creates the table and audits it; workers
(`--worker --master-host HOST`) get the stage from the master (see `distributed.py`).
"""

from __future__ import annotations

import sys

from locust import events
from locust.runners import MasterRunner, WorkerRunner

from loadtests import emulators, strategies
from loadtests.distributed import MasterSide, attach_worker
from loadtests.errors import KeybenchError
from loadtests.results import side_by_side, stage_problems, stage_rows
from loadtests.stage import INSTANCE, PROJECT, Stage, location_name, make_backend, run_tag
from loadtests.users import KeybenchUser
from loadtests.workload import WorkloadSettings


def scenario(backend: str) -> type[KeybenchUser]:
    """Register the listeners of one backend's scenario and return its user class."""
    state: dict = {}

    @events.init_command_line_parser.add_listener
    def _options(parser, **_kw):
        names = ", ".join(strategies.catalogue(backend))
        parser.add_argument("--strategy", default=None, include_in_web_ui=False,
                            help=f"{backend} key strategy to load ({names})")
        if backend == "spanner":
            parser.add_argument("--dialect", default="googlesql", include_in_web_ui=False,
                                help="Spanner dialect: googlesql or postgresql")
        parser.add_argument("--keybench-seed", type=int, default=1, include_in_web_ui=False,
                            help="seed of every random choice")
        parser.add_argument("--population", type=int, default=1000, include_in_web_ui=False,
                            help="users (Spanner) or devices (Bigtable)")
        parser.add_argument("--keep-data", action="store_true", include_in_web_ui=False,
                            help="keep the strategy's database or table after the run")

    @events.init.add_listener
    def _setup(environment, **_kw):
        if isinstance(environment.runner, WorkerRunner):
            attach_worker(environment)  # the master sends the stage and this worker's share
            return
        opts = environment.parsed_options
        try:
            if not opts.strategy:
                raise KeybenchError(f"--strategy is required; valid: {', '.join(strategies.catalogue(backend))}")
            dialect = getattr(opts, "dialect", None)
            strategy = strategies.select(backend, [opts.strategy], dialect)[0]
            if opts.population < 1:
                raise KeybenchError(f"--population must be at least 1, got {opts.population}")
            strategies.check_rules(strategy, opts.population, WorkloadSettings().payload_bytes)
            emulators.use(emulators.resolve(backend, may_start=False))
            db = make_backend(strategy, location_name(run_tag(), strategy), PROJECT, INSTANCE)
            stage = Stage(strategy, db, WorkloadSettings(population=opts.population), opts.keybench_seed,
                          events=environment.events)
            stage.setup()
        except KeybenchError as exc:
            print(f"keybench: error: {exc}", file=sys.stderr)
            raise SystemExit(exc.exit_code) from None
        environment.keybench_stage = stage
        state.update(stage=stage, keep=opts.keep_data)
        if isinstance(environment.runner, MasterRunner):
            state["master"] = MasterSide(environment, stage, None)

    @events.test_stop.add_listener
    def _gather(environment, **_kw):
        if "master" in state:
            state["master"].gather()

    @events.quitting.add_listener
    def _audit(environment, **_kw):
        stage: Stage | None = state.pop("stage", None)
        if stage is None:
            return
        try:
            integrity, tenant_drop = stage.finish()
        finally:
            stage.teardown(drop=not state["keep"])
        rows = stage_rows(stage, stage.collector.active_seconds(), integrity, tenant_drop, False)
        print(side_by_side(rows))
        print(f"integrity: {integrity.describe()}")
        problems = stage_problems(stage, rows, integrity, tenant_drop)
        if problems:
            print(f"keybench: {'; '.join(problems)}")
            environment.process_exit_code = 1

    class ScenarioUser(KeybenchUser):
        pass

    ScenarioUser.__name__ = f"{backend.title()}User"
    return ScenarioUser
