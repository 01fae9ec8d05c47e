"""Where a run's wall time goes: the load itself, and every second outside it (emulator
restarts, schema set-up, starting and stopping the users, the audit, the drop, the model and
the report). run.json keeps the breakdown and the run prints it at the end, so the cost of
everything that is not load is visible (README, "Where the time goes")."""

from __future__ import annotations

import time
from contextlib import contextmanager

# The phases outside the load, in the order a stage meets them.
PHASES = ("emulator_restart", "setup", "start_and_stop", "audit", "observe", "drop", "write", "model", "report")


class WallClock:
    """Seconds per phase, and the load's own seconds, over a whole run."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.load_s = 0.0
        self.phases = dict.fromkeys(PHASES, 0.0)

    @contextmanager
    def phase(self, name: str):
        began = time.monotonic()
        try:
            yield
        finally:
            self.phases[name] += time.monotonic() - began

    def add_load(self, seconds: float, driving_s: float) -> None:
        """A stage's load time (its users running, up to the stop), and the whole drive around
        it: the rest is starting the users and waiting for their operations in flight to end."""
        self.load_s += seconds
        self.phases["start_and_stop"] += max(0.0, driving_s - seconds)

    def since(self, earlier: dict[str, float]) -> dict[str, float]:
        """Seconds per phase since `earlier` (a copy of `phases`), for one stage's record."""
        return {k: round(v - earlier.get(k, 0.0), 2) for k, v in self.phases.items() if v - earlier.get(k,
                                                                                                        0.0) >= 0.005}

    def record(self) -> dict:
        wall = time.monotonic() - self.started
        other = max(0.0, wall - self.load_s - sum(self.phases.values()))
        return {"wall_s": round(wall, 1), "load_s": round(self.load_s, 1),
                "load_share": round(self.load_s / wall, 3) if wall > 0 else 0.0,
                "outside_load_s": {**{k: round(v, 1) for k, v in self.phases.items()}, "other": round(other, 1)}}

    def describe(self) -> str:
        r = self.record()
        parts = ", ".join(f"{name} {s:.0f} s" for name, s in r["outside_load_s"].items() if s >= 0.5)
        return (f"wall time {r['wall_s']:.0f} s: load {r['load_s']:.0f} s ({r['load_share']:.0%}); "
                f"outside the load: {parts or 'nothing'}")
