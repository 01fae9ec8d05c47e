"""`keybench compare RUN_A RUN_B`: two runs side by side, with ratios, and a CI gate.

Rows are joined on (backend, strategy, dialect, operation). `--fail-on` rules such as
`p99_ms>+20%` (B more than 20 % above A), `rps<-10%` (B more than 10 % below A) or
`failures>0` (B above an absolute bound) make the command exit 1 when B breaks them.

Whatever the rules, a candidate that tested less than the baseline fails too: a row of A
missing from B, a row of B whose integrity is not `ok` or that ran 0 times, or a run B that
did not complete.
A gate must never pass because the candidate measured nothing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from keybench.columns import SCHEMA_VERSION
from keybench.errors import KeybenchError
from keybench.measure.summary import read_summary, require_columns

KEY = ("backend", "strategy", "dialect", "operation")
DEFAULT_METRICS = ("requests", "failures", "rps", "p50_ms", "p99_ms")
RULE = re.compile(r"^\s*([a-z0-9_]+)\s*([<>])\s*([+-]?\d+(?:\.\d+)?)(%?)\s*$")


@dataclass(frozen=True)
class Rule:
    metric: str
    above: bool  # True: fail when B exceeds the bound; False: when B falls below it
    amount: float
    relative: bool  # a percentage of A, not an absolute bound on B

    @classmethod
    def parse(cls, text: str) -> Rule:
        m = RULE.match(text)
        if not m:
            raise KeybenchError(f"cannot parse --fail-on {text!r}; write e.g. 'p99_ms>+20%', 'rps<-10%' or "
                                "'failures>0'")
        metric, op, amount, percent = m.groups()
        return cls(metric, op == ">", float(amount), bool(percent))

    def bound(self, a: float) -> float:
        return a * (1 + self.amount / 100) if self.relative else self.amount

    def broken(self, a: float, b: float) -> bool:
        limit = self.bound(a)
        return b > limit if self.above else b < limit

    def __str__(self) -> str:
        sign = ">" if self.above else "<"
        return f"{self.metric}{sign}{self.amount:+g}%" if self.relative else f"{self.metric}{sign}{self.amount:g}"


def load(run: str | Path) -> dict[tuple, dict]:
    """A run's summary rows by key; `run` is a run directory or a summary.csv."""
    path = Path(run)
    path = path / "summary.csv" if path.is_dir() else path
    rows = require_columns(read_summary(path), path, (*KEY, "schema_version"))
    versions = {r["schema_version"] for r in rows}
    readable = {str(v) for v in range(1, SCHEMA_VERSION + 1)}  # later versions only add columns
    if not versions <= readable:
        raise KeybenchError(f"{path} has schema_version {', '.join(sorted(versions))}; "
                            f"this keybench reads 1 to {SCHEMA_VERSION}")
    return {tuple(r[k] for k in KEY): r for r in rows}


def _number(row: dict, metric: str, where: str) -> float | None:
    if metric not in row:
        raise KeybenchError(f"{where} has no column {metric!r}")
    value = row[metric]
    if value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        raise KeybenchError(f"{where}: {metric}={value!r} is not a number") from None
    if not math.isfinite(number):
        raise KeybenchError(f"{where}: {metric}={value!r} is not a finite number")
    return number


def run_status(run: str | Path) -> str | None:
    """The status run.json gives a run directory (None: a bare summary.csv, or no run.json)."""
    path = Path(run) / "run.json"
    if not path.is_file():
        return None
    try:
        status = json.loads(path.read_text()).get("status")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        raise KeybenchError(f"{path} is not a readable run.json") from None
    return str(status)


def coverage_problems(a: dict[tuple, dict], b: dict[tuple, dict], run_b: str | Path) -> list[str]:
    """Why candidate B tested less than baseline A, whatever the rules say."""
    problems = []
    status = run_status(run_b)
    if status not in (None, "complete"):
        problems.append(f"{run_b}: the candidate run is {status}, not complete")
    missing = [k for k in a if k not in b]
    if missing:
        shown = ", ".join("/".join(x for x in k if x) for k in missing[:5])
        problems.append(f"{len(missing)} row(s) of the baseline are missing from the candidate: {shown}"
                        + (", ..." if len(missing) > 5 else ""))
    for key, row in b.items():
        if key not in a:
            continue
        name = "/".join(x for x in key if x)
        if row.get("integrity", "ok") not in ("ok", ""):
            problems.append(f"{name}: candidate integrity {row['integrity']}")
        if str(row.get("requests", "")).strip() in ("0", ""):
            problems.append(f"{name}: the candidate ran it 0 times, so its figures say nothing")
    return problems


def compare(run_a: str | Path, run_b: str | Path, rules: list[Rule], metrics=DEFAULT_METRICS) -> tuple[str, list[str]]:
    """The side-by-side text and the broken rules."""
    a, b = load(run_a), load(run_b)
    common = [k for k in a if k in b]
    if not common:
        raise KeybenchError(f"{run_a} and {run_b} share no (backend, strategy, dialect, operation) row")
    metrics = list(dict.fromkeys([*metrics, *(r.metric for r in rules)]))
    lines = ["  ".join(["backend/strategy[dialect]/operation".ljust(48)] +
                       [f"{m:>10} A {m:>10} B {'B/A':>6}" for m in metrics])]
    broken = []
    for key in common:
        backend, strategy, dialect, operation = key
        label = f"{backend}/{strategy}" + (f"[{dialect}]" if dialect else "") + f"/{operation}"
        cells = []
        for m in metrics:
            va, vb = _number(a[key], m, str(run_a)), _number(b[key], m, str(run_b))
            ratio = f"{vb / va:6.2f}" if va and vb is not None else "     -"
            cells.append(f"{'' if va is None else f'{va:g}':>12} {'' if vb is None else f'{vb:g}':>12} {ratio}")
        lines.append("  ".join([label.ljust(48)] + cells))
        for rule in rules:
            va, vb = _number(a[key], rule.metric, str(run_a)), _number(b[key], rule.metric, str(run_b))
            if va is not None and vb is not None and rule.broken(va, vb):
                broken.append(f"{label}: {rule.metric} {va:g} -> {vb:g} breaks {rule} (bound {rule.bound(va):g})")
    only = [k for k in b if k not in a]
    if only:
        lines.append(f"({len(only)} row(s) of the candidate are not in the baseline and are not compared)")
    return "\n".join(lines), coverage_problems(a, b, run_b) + broken
