"""`keybench run`, the orchestration: options, plan, one stage at a time, the run's state.
The library's entry point: `run(RunOptions(...))`."""

from loadtests.run.options import RunOptions, parse_duration
from loadtests.run.pipeline import run
from loadtests.run.plan import plan_stages

__all__ = ["RunOptions", "parse_duration", "plan_stages", "run"]
