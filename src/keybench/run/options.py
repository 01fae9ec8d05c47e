"""What `keybench run` is asked to do: every option, its default and its validation. The
CLI only translates arguments into a `RunOptions`; the defaults live here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from keybench.design.keys import DEFAULT_SEED, MAX_BUCKETS
from keybench.design.strategies import BACKENDS, DIALECTS
from keybench.drive.settings import MAX_USERS, WorkloadSettings, given_rate
from keybench.errors import KeybenchError, check_range
from keybench.measure.rundir import DEFAULT_RESULTS_DIR
from keybench.model.params import SplitParams
from keybench.model.verdict import check_verdicts

DEFAULT_USERS, DEFAULT_DURATION_S = 8, 10.0
SMOKE_USERS, SMOKE_DURATION_S = 4, 3.0  # the short CI profile (`--smoke`)

# Bounds of every number a run takes, checked before anything is allocated or started
# (README "Limits"): generous for real use, small enough that no input exhausts the machine.
MAX_WORKERS = 64
MAX_REPEAT = 1_000
MIN_DURATION_S, MAX_DURATION_S = 0.1, 7 * 86_400.0
MAX_SPAWN_RATE = 100_000.0
RUN_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # one safe path component

DEFAULT_OBSERVE_WAIT_S = 300.0  # a minute's statistics appear a few minutes after it ends
MAX_OBSERVE_WAIT_S = 3600.0

def parse_duration(text: str, zero: bool = False) -> float:
    """`30s`, `2m`, `1h`, `250ms` or plain seconds; `zero`: 0 is allowed (a wait that is skipped)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", str(text))
    if not m:
        raise KeybenchError(f"cannot parse duration {text!r}; use e.g. 30s, 2m, 1h")
    value = float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    if value < 0 or (value == 0 and not zero):
        raise KeybenchError(f"duration must be positive, got {text!r}")
    return value


@dataclass
class RunOptions:
    backends: tuple[str, ...] = BACKENDS
    strategies: tuple[str, ...] | None = None  # None: the whole catalogue of each backend
    strategy_dirs: tuple[Path, ...] = ()  # a user's own strategy folders, run beside the catalogue (`--strategy-dir`)
    users: int | None = None  # concurrent Locust users per stage; None: DEFAULT_USERS (smoke: SMOKE_USERS)
    spawn_rate: float = 0.0  # 0: all users at once
    duration_s: float | None = None  # per stage; None: DEFAULT_DURATION_S (smoke: SMOKE_DURATION_S)
    results_dir: Path = DEFAULT_RESULTS_DIR
    smoke: bool = False
    seed: int = DEFAULT_SEED
    settings: WorkloadSettings = field(default_factory=WorkloadSettings)
    run_id: str | None = None
    buckets: int | None = None  # overrides every strategy's shard or salt count
    dialects: tuple[str, ...] = DIALECTS["spanner"]  # Spanner dialects to run each strategy in
    repeat: int = 1  # runs of the whole stage list, interleaved
    rate: float | None = None  # open loop: inserts per second per stage, spread over the writers
    workers: int = 0  # Locust worker processes per stage; 0 runs the users in this process
    report: bool = True  # write report.html (and the heatmaps) at the end
    # Model each variant in a process of its own while the next stage is set up (never during a
    # load); False: every variant at the end of the run, in this process.
    overlap: bool = True
    model: SplitParams = field(default_factory=SplitParams)  # the split model over the recorded keys
    target: str = "emulator"  # or "real": an existing instance named by project and instance (see infra/target.py)
    project: str | None = None
    instance: str | None = None
    endpoint: str | None = None  # the real service's HOST:PORT, when not the libraries' default (--target real)
    dry_run: bool = False  # print the plan and the write estimate, contact nothing
    # --target real: after each stage's load, wait at most this long for the service's own
    # statistics of its minutes, and read its hot splits beside the model; 0: do not.
    observe_wait_s: float = DEFAULT_OBSERVE_WAIT_S
    fail_on_verdict: tuple[str, ...] = ()  # exit 1 when a design's modelled verdict is one of these
    verbose: bool = False  # print every column of the verdict and latency tables, however wide
    format: str = "text"  # what goes to stdout at the end: "text" (the tables) or "json" (one document)
    settings_file: str | None = None  # the settings file whose values were the defaults (cli.settings_file)

    def __post_init__(self) -> None:
        if self.users is None:
            self.users = SMOKE_USERS if self.smoke else DEFAULT_USERS
        if self.duration_s is None:
            self.duration_s = SMOKE_DURATION_S if self.smoke else DEFAULT_DURATION_S

    @property
    def workload(self) -> WorkloadSettings:
        """The workload every stage runs: the settings with this run's users, its readers
        (the default ones if none were asked for) and its insert rate (0: closed loop)."""
        assert self.users is not None  # __post_init__ set the default
        run = replace(self.settings, users=self.users, insert_rate=self.rate or 0.0)
        return replace(run, readers=run.reader_count())

    def validate(self) -> None:
        check_range("--users", self.users, 1, MAX_USERS)
        check_range("--spawn-rate", self.spawn_rate, 0, MAX_SPAWN_RATE)
        check_range("--duration (seconds)", self.duration_s, MIN_DURATION_S, MAX_DURATION_S)
        if self.strategies is not None and not self.strategies:
            raise KeybenchError("--strategies names no strategy; leave it out to run the whole catalogue")
        if self.run_id is not None and (not RUN_ID_RE.fullmatch(self.run_id) or set(self.run_id) == {"."}):
            raise KeybenchError(f"--run-id {self.run_id!r} is not a single safe name: use letters, digits, '.', "
                                "'_' and '-' (up to 128, starting with a letter or digit)")
        assert self.users is not None  # __post_init__ set the default
        # --readers as given
        replace(self.settings, users=self.users, insert_rate=given_rate("--rate", self.rate)).validate(self.backends)
        unknown = [d for d in self.dialects if d not in DIALECTS["spanner"]]
        if unknown or not self.dialects:
            raise KeybenchError(f"unknown Spanner dialect {', '.join(map(repr, unknown)) or '(none)'}; "
                                f"valid: {', '.join(DIALECTS['spanner'])}")
        check_range("--repeat", self.repeat, 1, MAX_REPEAT)
        check_range("--workers", self.workers, 0, MAX_WORKERS)
        if self.workers > self.users:
            raise KeybenchError(f"--workers {self.workers} exceeds --users {self.users}: a worker without users does "
                                "nothing")
        self.model.validate()
        check_verdicts(self.fail_on_verdict)
        check_range("--buckets", self.buckets, 1, MAX_BUCKETS)
        check_range("--observe-wait", self.observe_wait_s, 0, MAX_OBSERVE_WAIT_S)
        from keybench.infra import target  # here: the command line reads these defaults without the infra

        target.check(self)
