"""`keybench run`, the orchestration: options, schedule, one stage at a time, the run's state.
The library's entry point: `from keybench.run import RunOptions, run`. The names load on
first use, so reading the options (as the CLI does at start) does not load Locust."""

from __future__ import annotations

import importlib

_HOMES = {"RunOptions": "options", "parse_duration": "options", "schedule_stages": "schedule", "run": "pipeline"}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
