"""What `keybench run` is asked to do: every option, its default and its validation. The
CLI only translates arguments into a `RunOptions`; the defaults live here."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from loadtests.design.strategies import BACKENDS, DIALECTS
from loadtests.drive.workload import WorkloadSettings
from loadtests.errors import KeybenchError
from loadtests.infra import target
from loadtests.model.splitmodel import SplitParams

DEFAULT_USERS, DEFAULT_DURATION_S = 8, 10.0
SMOKE_USERS, SMOKE_DURATION_S = 4, 3.0  # the short CI profile (`--smoke`)


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
    backends: tuple[str, ...] = BACKENDS
    strategies: tuple[str, ...] = ()  # empty: the whole catalogue of each backend
    users: int | None = None  # concurrent Locust users per stage; None: DEFAULT_USERS (smoke: SMOKE_USERS)
    spawn_rate: float = 0.0  # 0: all users at once
    duration_s: float | None = None  # per stage; None: DEFAULT_DURATION_S (smoke: SMOKE_DURATION_S)
    results_dir: Path = Path("results")
    smoke: bool = False
    seed: int = 1
    settings: WorkloadSettings = field(default_factory=WorkloadSettings)
    run_id: str | None = None
    buckets: int | None = None  # overrides every strategy's shard or salt count
    dialects: tuple[str, ...] = DIALECTS["spanner"]  # Spanner dialects to run each strategy in
    repeat: int = 1  # runs of the whole stage list, interleaved
    rate: float | None = None  # open loop: operations per second per stage, spread over the users
    workers: int = 0  # Locust worker processes per stage; 0 runs the users in this process
    report: bool = True  # write report.html (and the heatmaps) at the end
    model: SplitParams = field(default_factory=SplitParams)  # the split model over the recorded keys
    target: str = "emulator"  # or "real": an existing instance named by project and instance (see infra/target.py)
    project: str | None = None
    instance: str | None = None
    dry_run: bool = False  # print the plan and the write estimate, contact nothing

    def __post_init__(self) -> None:
        if self.users is None:
            self.users = SMOKE_USERS if self.smoke else DEFAULT_USERS
        if self.duration_s is None:
            self.duration_s = SMOKE_DURATION_S if self.smoke else DEFAULT_DURATION_S

    @property
    def workload(self) -> WorkloadSettings:
        """The workload every stage runs: open loop spreads `rate` over the users."""
        if not self.rate:
            return self.settings
        from dataclasses import replace

        return replace(self.settings, user_rate=self.rate / self.users)

    def validate(self) -> None:
        if self.users < 1:
            raise KeybenchError(f"--users must be at least 1, got {self.users}")
        if self.spawn_rate < 0:
            raise KeybenchError(f"--spawn-rate must not be negative, got {self.spawn_rate}")
        self.settings.validate(self.backends)
        unknown = [d for d in self.dialects if d not in DIALECTS["spanner"]]
        if unknown or not self.dialects:
            raise KeybenchError(f"unknown Spanner dialect {', '.join(map(repr, unknown)) or '(none)'}; "
                                f"valid: {', '.join(DIALECTS['spanner'])}")
        if self.repeat < 1:
            raise KeybenchError(f"--repeat must be at least 1, got {self.repeat}")
        if self.rate is not None and not (self.rate > 0 and math.isfinite(self.rate)):
            raise KeybenchError(f"--rate must be positive and finite, got {self.rate:g}")
        if self.workers < 0:
            raise KeybenchError(f"--workers must not be negative, got {self.workers}")
        if self.workers > self.users:
            raise KeybenchError(f"--workers {self.workers} exceeds --users {self.users}: a worker without users does nothing")
        self.model.validate()
        if self.buckets is not None and self.buckets < 1:
            raise KeybenchError(f"--buckets must be at least 1, got {self.buckets}")
        target.check(self)
