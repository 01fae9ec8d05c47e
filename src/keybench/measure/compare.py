"""`keybench compare RUN_A RUN_B`: a baseline A and a candidate B, as benchstat compares them.

First what could make the comparison unfair: the settings, versions and machine that differ
(`--strict` refuses such a pair). Then the verdicts: a design whose verdict changed is listed
first (`--fail-on verdict` gates on it). Then a table per figure, a line per design and
operation: A, B, and the change. With repetitions (`--repeat K` on both runs, repetitions.csv)
a change is shown only when the Mann-Whitney U test over the repetitions finds it (p < 0.05),
with its confidence interval, and `~` otherwise. Without them compare cannot tell noise from
change, and says so.

Rows are joined on (backend, strategy, dialect, operation). `--fail-on` rules such as
`p99_ms>+20%` (B more than 20 % above A), `rps<-10%` (B more than 10 % below A) or
`failures>0` (B above an absolute bound) make the command exit 1 when B breaks them; with
repetitions only a significant change breaks a relative rule, and a percentile from too few
samples (samples.MIN_SAMPLES) never does.

Whatever the rules, a candidate that tested less than the baseline fails too: a row of A
missing from B, a row of B whose integrity is not `ok` or that ran 0 times, or a run B that
did not complete. A gate must never pass because the candidate measured nothing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from keybench.columns import SCHEMA_VERSION
from keybench.errors import KeybenchError
from keybench.measure.samples import MIN_SAMPLES, too_few
from keybench.measure.significance import ALPHA, Change, adjusted_p, compare_samples, smallest_p
from keybench.measure.summary import read_results, read_summary, require_columns

KEY = ("backend", "strategy", "dialect", "operation")
DEFAULT_METRICS = ("requests", "failures", "rps", "p50_ms", "p99_ms")
TESTED_METRICS = ("rps", "p50_ms", "p90_ms", "p99_ms")  # per repetition in repetitions.csv
VERDICT_RULE = "verdict"  # --fail-on verdict: a design whose verdict changed
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
            raise KeybenchError(f"cannot parse --fail-on {text!r}; write e.g. 'p99_ms>+20%', 'rps<-10%', "
                                f"'failures>0' or '{VERDICT_RULE}'")
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
    rows = require_columns(read_results(path), path, (*KEY, "schema_version"))
    versions = {r["schema_version"] for r in rows}
    readable = {str(v) for v in range(1, SCHEMA_VERSION + 1)}  # later versions only add columns
    if not versions <= readable:
        raise KeybenchError(f"{path} has schema_version {', '.join(sorted(versions))}; "
                            f"this keybench reads 1 to {SCHEMA_VERSION}")
    return {tuple(r[k] for k in KEY): r for r in rows}


def load_repetitions(run: str | Path) -> dict[tuple, list[dict]]:
    """Each row's repetitions, from repetitions.csv beside the summary (empty: none written)."""
    path = Path(run)
    path = (path if path.is_dir() else path.parent) / "repetitions.csv"
    if not path.is_file():
        return {}
    found: dict[tuple, list[dict]] = {}
    for row in require_columns(read_summary(path), path, (*KEY, "repetition"), "repetitions.csv"):
        found.setdefault(tuple(row[k] for k in KEY), []).append(row)
    return found


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


def _run_json(run: str | Path) -> dict | None:
    """run.json of a run directory (None: a bare summary.csv, or no run.json)."""
    path = Path(run)
    path = (path if path.is_dir() else path.parent) / "run.json"
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        raise KeybenchError(f"{path} is not a readable run.json") from None
    if not isinstance(meta, dict):
        raise KeybenchError(f"{path} is not a readable run.json")
    return meta


def run_status(run: str | Path) -> str | None:
    """The status run.json gives a run directory (None: a bare summary.csv, or no run.json)."""
    meta = _run_json(run) if Path(run).is_dir() else None
    return None if meta is None else str(meta.get("status"))


def _conditions(meta: dict) -> dict[str, object]:
    """What changes the figures: the load's settings, the model's nodes, the target, the versions
    of keybench, its clients and the emulators, and the machine."""
    def table(parent: dict, name: str) -> dict:  # a damaged run.json may hold anything anywhere
        value = parent.get(name)
        return value if isinstance(value, dict) else {}

    settings = table(meta, "settings")
    workload = {k: v for k, v in table(settings, "workload").items() if k != "users"}
    found: dict[str, object] = {name: settings.get(name) for name in ("users", "duration_s", "rate", "workers",
                                                                      "nodes", "repeat")}
    found |= {f"workload.{k}": v for k, v in workload.items()}
    found["target"] = table(meta, "target").get("kind")
    found |= {f"version of {k}": v for k, v in table(meta, "versions").items()}
    for backend, endpoint in table(meta, "endpoints").items():
        if isinstance(endpoint, dict) and endpoint.get("version"):
            found[f"{backend} emulator version"] = endpoint["version"]
    found |= {f"machine {k}": v for k, v in table(meta, "machine").items() if k != "platform"}
    return found


def setting_differences(run_a: str | Path, run_b: str | Path) -> list[str]:
    """The conditions in which the two runs differ, as `name A -> B`."""
    meta_a, meta_b = _run_json(run_a), _run_json(run_b)
    if meta_a is None or meta_b is None:
        return []
    a, b = _conditions(meta_a), _conditions(meta_b)
    return [f"{name} {a.get(name)} -> {b.get(name)}" for name in dict.fromkeys([*a, *b]) if a.get(name) != b.get(name)]


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


def verdict_changes(a: dict[tuple, dict], b: dict[tuple, dict]) -> list[str]:
    """Each design (its insert row) whose modelled verdict differs between the runs."""
    changes = []
    for key, row in a.items():
        if key[3] != "insert" or key not in b:
            continue
        before, after = row.get("verdict", ""), b[key].get("verdict", "")
        if before and after and before != after:
            changes.append(f"{design_label(key)}: {before} -> {after}")
    return changes


def design_label(key: tuple) -> str:
    backend, strategy, dialect, _ = key
    return f"{backend}/{strategy}" + (f"[{dialect}]" if dialect not in ("", "googlesql") else "")


@dataclass(frozen=True)
class Figure:
    """One metric of one row: A, B, and with repetitions the test of the change."""

    a: float | None
    b: float | None
    change: Change | None  # None: fewer than 2 repetitions on a side, or a count
    too_few: bool = False  # repetitions there are, but too few samples in them to test this figure


def _meaningful(metric: str, requests: float | None) -> bool:
    """Whether a repetition's figure rests on samples enough: a percentile on samples.MIN_SAMPLES,
    a rate on as many operations as a median."""
    percentile = metric.split("_")[0]
    return not too_few(percentile if percentile in MIN_SAMPLES else "p50", int(requests or 0))


def figure(key: tuple, metric: str, rows: tuple[dict, dict], reps: tuple[dict, dict], where: tuple[str, str]
           ) -> Figure:
    va, vb = (_number(row[key], metric, name) for row, name in zip(rows, where, strict=True))
    if metric not in TESTED_METRICS or not all(side.get(key) for side in reps):
        return Figure(va, vb, None)
    samples = []
    for side, name in zip(reps, where, strict=True):
        values = [(_number(r, metric, name), _number(r, "requests", name)) for r in side[key]]
        samples.append([v for v, n in values if v is not None and _meaningful(metric, n)])
    if not all(len(s) >= 2 for s in samples):
        return Figure(va, vb, None, too_few=True)  # tested on a handful of samples, noise would pass for change
    return Figure(va, vb, compare_samples(*samples))


def change_text(f: Figure) -> str:
    """`+31% (p=0.008, +18%..+45%)` for a significant change, `~ (p=0.42)` otherwise; without
    repetitions the plain ratio B/A, which cannot tell noise from change."""
    if f.change is None:
        ratio = f"x{f.b / f.a:.2f}" if f.a and f.b is not None else "-"
        return f"{ratio} (too few samples to test)" if f.too_few else ratio
    c = f.change
    p = c.p if c.adjusted is None else c.adjusted
    if not c.significant:
        return f"~ (p={p:.2f})"
    interval = f", {c.low - 1:+.0%}..{c.high - 1:+.0%}" if c.low is not None and c.high is not None else ""
    return f"{c.ratio - 1:+.0%} (p={p:.3f}{interval})"


def broken_rules(key: tuple, rules: list[Rule], figures: dict[str, Figure], row_b: dict) -> list[str]:
    label = "/".join(x for x in key if x)
    broken = []
    for rule in rules:
        f = figures[rule.metric]
        if f.a is None or f.b is None:
            continue
        percentile = rule.metric.split("_")[0]
        if percentile in MIN_SAMPLES and too_few(percentile, int(_number(row_b, "requests", "B") or 0)):
            continue  # a percentile from a handful of samples is no ground for a gate
        if rule.relative and (f.too_few or (f.change is not None and not f.change.significant)):
            continue  # within the noise of the repetitions, or too few samples to tell
        if rule.broken(f.a, f.b):
            broken.append(f"{label}: {rule.metric} {f.a:g} -> {f.b:g} breaks {rule} (bound {rule.bound(f.a):g})")
    return broken


def _repetitions_of(reps: dict[tuple, list[dict]]) -> int:
    return min((len(v) for v in reps.values()), default=0)


@dataclass(frozen=True)
class Comparison:
    """What compare found: the runs' differences, the verdicts that changed, each row's figures,
    and what fails the gate (broken rules, a changed verdict under --fail-on verdict, a candidate
    that tested less)."""

    runs: tuple[str, str]
    differences: list[str]
    repetitions: tuple[int, int]  # the fewest of any row, per side: 0 or 1 means no test
    changed: list[str]
    designs: int
    figures: dict[str, list[tuple[tuple, Figure]]]  # metric -> (row key, figure) in the baseline's order
    uncompared: int  # rows of the candidate the baseline lacks
    failures: list[str]


def compare(run_a: str | Path, run_b: str | Path, rules: list[Rule], strict: bool = False,
            fail_on_verdict: bool = False, metrics=DEFAULT_METRICS) -> Comparison:
    a, b = load(run_a), load(run_b)
    common = [k for k in a if k in b]
    if not common:
        raise KeybenchError(f"{run_a} and {run_b} share no (backend, strategy, dialect, operation) row")
    differences = setting_differences(run_a, run_b)
    if differences and strict:
        raise KeybenchError(f"--strict: the runs differ in what changes the figures: {'; '.join(differences)}")
    reps = (load_repetitions(run_a), load_repetitions(run_b))
    metrics = list(dict.fromkeys([*metrics, *(r.metric for r in rules)]))
    changed = verdict_changes(a, b)
    where = (str(run_a), str(run_b))
    every = {(key, m): figure(key, m, (a, b), reps, where) for key in common for m in metrics}
    tested = {pair: f.change for pair, f in every.items() if f.change is not None}
    for (pair, change), q in zip(tested.items(), adjusted_p([c.p for c in tested.values()]), strict=True):
        every[pair] = dataclasses.replace(every[pair], change=dataclasses.replace(change, adjusted=q))
    broken = [line for key in common for line in broken_rules(key, rules, {m: every[key, m] for m in metrics}, b[key])]
    gate = [f"verdict changed: {c}" for c in changed] if fail_on_verdict else []
    return Comparison(where, differences, (_repetitions_of(reps[0]), _repetitions_of(reps[1])), changed,
                      len({k[:3] for k in common}), {m: [(key, every[key, m]) for key in common] for m in metrics},
                      sum(k not in a for k in b), coverage_problems(a, b, run_b) + gate + broken)


def comparison_text(c: Comparison, width: int = 100) -> str:
    """The comparison in `width` columns: the warnings, the verdicts, then a table per figure."""
    import textwrap

    k_a, k_b = c.repetitions
    notes = [f"warning: the runs differ in what changes the figures: {'; '.join(c.differences)}"] if c.differences \
        else []
    if k_a >= 2 and k_b >= 2:
        notes.append(f"{k_a} repetitions of A, {k_b} of B: a change is shown when the Mann-Whitney U test over them "
                     f"finds it (p < {ALPHA:g}, adjusted for the comparison's other tests), with its 95% interval; "
                     "~ means none was found")
        if smallest_p(k_a, k_b) >= ALPHA:
            notes.append(f"note: {k_a} and {k_b} repetitions can never reach p < {ALPHA:g}: run both with --repeat 5")
    else:
        notes.append("one repetition on a side: compare cannot tell noise from change, so it shows the ratio B/A "
                     "(xR); run both with --repeat 5 for a test")
    notes.append(f"verdicts: {len(c.changed)} of {c.designs} design(s) changed" + (":" if c.changed else ""))
    lines = [line for note in notes for line in textwrap.wrap(note, width, subsequent_indent="    ")]
    lines += [f"  {line}" for line in c.changed]
    for metric, rows in c.figures.items():
        lines += ["", *_metric_table(metric, rows, width)]
    if c.uncompared:
        lines.append(f"({c.uncompared} row(s) of the candidate are not in the baseline and are not compared)")
    return "\n".join(lines)


def comparison_document(c: Comparison) -> dict:
    """`keybench compare --format json`: the same, as values."""
    def row(key: tuple, metric: str, f: Figure) -> dict:
        change = f.change
        return {**dict(zip(KEY, key, strict=True)), "metric": metric, "a": f.a, "b": f.b,
                "ratio": f.b / f.a if f.a and f.b is not None else None, "tested": change is not None,
                "too_few_samples": f.too_few,
                "p": None if change is None else (change.p if change.adjusted is None else change.adjusted),
                "significant": None if change is None else change.significant,
                "median_ratio": None if change is None or not math.isfinite(change.ratio) else change.ratio,
                "interval": None if change is None or change.low is None else [change.low, change.high]}

    return {"format_version": 1, "command": "compare", "baseline": c.runs[0], "candidate": c.runs[1],
            "setting_differences": c.differences, "repetitions": {"baseline": c.repetitions[0],
                                                                  "candidate": c.repetitions[1]},
            "verdict_changes": c.changed, "figures": [row(key, metric, f) for metric, rows in c.figures.items()
                                                      for key, f in rows],
            "uncompared_rows": c.uncompared, "regressions": c.failures, "exit_code": 1 if c.failures else 0}


def _metric_table(metric: str, rows: list[tuple[tuple, Figure]], width: int) -> list[str]:
    """One figure of every row: a line per design, then its operations with A, B and the change."""
    def shown(value: float | None) -> str:
        return "" if value is None else f"{value:g}"

    cells = [[f"  {key[3]}", shown(f.a), shown(f.b), change_text(f)] for key, f in rows]
    widths = [max(len(metric), *(len(c[0]) for c in cells)), *(max(len(h), *(len(c[i]) for c in cells))
                                                              for i, h in ((1, "A"), (2, "B")))]
    lines = [f"{metric.ljust(widths[0])}  {'A'.rjust(widths[1])}  {'B'.rjust(widths[2])}  change"]
    design = None
    for (key, _), cell in zip(rows, cells, strict=True):
        if design_label(key) != design:
            design = design_label(key)
            lines.append(design[:width])
        line = f"{cell[0].ljust(widths[0])}  {cell[1].rjust(widths[1])}  {cell[2].rjust(widths[2])}  {cell[3]}"
        lines.append(line if len(line) <= width else line[:width - 3] + "...")
    return lines
