"""Result files of a run: summary.csv (one row per backend, strategy, dialect and
operation, in a stable order), Locust's own CSVs per stage, and the side-by-side table.

A run directory is built under a hidden `.<run-id>.partial` name and renamed to
`<run-id>` only when complete, so `results/` never shows a half-written run.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from loadtests.collector import COUNTS, OperationStats, Series
from loadtests.errors import KeybenchError
from loadtests.splitmodel import MODEL_COLUMNS

SCHEMA_VERSION = 2  # 2 added p50_intended_ms, p99_intended_ms and the split model's columns
SUMMARY_COLUMNS = (
    "schema_version", "backend", "strategy", "dialect", "operation", "access",
    "requests", "failures", "cut_off", "aborts", "collisions", "emulator_bound", "rps", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms",
    "p50_intended_ms", "p99_intended_ms", "rows_per_op", "rows_scanned_per_op", "fanout", "wrong_rows", "missing_rows", "integrity", "acknowledged", "stored",
    "lost", "duplicates", "unexpected", "unknown_outcome", "unknown_stored", "fresh_emulator", "documented", "note",
    "repetitions", "p50_min_ms", "p50_max_ms", "p99_min_ms", "p99_max_ms", "batch_size",
    # modelled, not measured: the split model over the stage's recorded key stream
    *MODEL_COLUMNS,
)


def _ms(us: float) -> str:
    return f"{us / 1000.0:.3f}"


def summary_row(
    series: Series, stats: OperationStats, seconds: float, integrity, fresh: bool, documented: str,
    aborts: int | None = None, emulator_bound: bool = False, note: str = "", batch_size: int | None = None,
) -> dict:
    h, n = stats.histogram, stats.requests
    ok = n - stats.failures
    per = (lambda total: f"{total / ok:.2f}") if ok else (lambda total: "")
    return {
        "schema_version": SCHEMA_VERSION,
        "backend": series.backend,
        "strategy": series.strategy,
        "dialect": series.dialect,
        "operation": series.operation,
        "access": stats.access,
        "requests": n,
        "failures": stats.failures,
        "cut_off": stats.cut_off,
        "aborts": "" if aborts is None else aborts,
        "collisions": stats.collisions if series.operation == "insert" else "",
        "emulator_bound": "yes" if emulator_bound else "no",
        "rps": f"{n / seconds:.1f}" if seconds > 0 else "0.0",
        "p50_ms": _ms(h.get_value_at_percentile(50)) if n else "",
        "p90_ms": _ms(h.get_value_at_percentile(90)) if n else "",
        "p99_ms": _ms(h.get_value_at_percentile(99)) if n else "",
        "max_ms": _ms(h.get_max_value()) if n else "",
        "mean_ms": _ms(h.get_mean_value()) if n else "",
        # Open loop only: latency from the moment the schedule made the operation due.
        "p50_intended_ms": _ms(stats.intended.get_value_at_percentile(50)) if stats.intended.get_total_count() else "",
        "p99_intended_ms": _ms(stats.intended.get_value_at_percentile(99)) if stats.intended.get_total_count() else "",
        "rows_per_op": per(stats.rows),
        "rows_scanned_per_op": per(stats.rows_scanned),
        "fanout": per(stats.fanout),
        "wrong_rows": stats.strays if series.operation != "insert" else "",
        "missing_rows": stats.missing if series.operation != "insert" else "",
        **integrity_columns(integrity),
        "fresh_emulator": "yes" if fresh else "no",
        "documented": documented,
        "note": note,
    } | _spread(1, h, n) | {"batch_size": "" if batch_size is None else batch_size} | {
        c: "" for c in MODEL_COLUMNS}  # the split model fills these in per stage


def integrity_columns(integrity) -> dict:
    """The audit's columns; a stage whose database went away has nothing to count."""
    verified = integrity.verified
    return {
        "integrity": "unverified" if not verified else "ok" if integrity.ok else "MISMATCH",
        "acknowledged": integrity.acknowledged,
        **{name: getattr(integrity, name) if verified else "" for name in ("stored", "lost", "duplicates", "unexpected")},
        "unknown_outcome": integrity.unknown,
        "unknown_stored": integrity.unknown_stored if verified else "",
    }


def _spread(repetitions: int, h, n: int) -> dict:
    """A single run's spread: its own p50 and p99 are both the min and the max."""
    p50 = _ms(h.get_value_at_percentile(50)) if n else ""
    p99 = _ms(h.get_value_at_percentile(99)) if n else ""
    return {"repetitions": repetitions, "p50_min_ms": p50, "p50_max_ms": p50, "p99_min_ms": p99, "p99_max_ms": p99}


def tenant_drop_row(strategy, drop, integrity, fresh: bool) -> dict:
    """The multi-tenant check as a summary row: one prefix delete, timed, and its outcome."""
    row = {c: "" for c in SUMMARY_COLUMNS}
    ms = _ms(drop.seconds * 1e6)
    row.update({
        "emulator_bound": "no",
        "schema_version": SCHEMA_VERSION, "backend": strategy.backend, "strategy": strategy.name,
        "dialect": strategy.dialect, "operation": "tenant_drop", "access": "prefix_delete",
        "requests": 1, "failures": 0 if drop.ok else 1, "p50_ms": ms, "p90_ms": ms, "p99_ms": ms,
        "max_ms": ms, "mean_ms": ms, "rows_per_op": f"{drop.removed:.2f}",
        "wrong_rows": drop.others_removed, "missing_rows": drop.left_behind,
        **integrity_columns(integrity), "fresh_emulator": "yes" if fresh else "no",
        "documented": strategy.claim,
    })
    return row


def stage_rows(stage, seconds: float, integrity, tenant_drop, fresh: bool) -> list[dict]:
    """The summary rows of one finished stage, in operation order."""
    claim = stage.strategy.claim
    aborted = getattr(stage.backend, "aborted_commits", None)  # Spanner: retried ABORTED commits
    rows = [
        summary_row(series, stats, seconds, integrity, fresh, claim,
                    aborted if series.operation == "insert" else None,
                    series.operation == "insert" and stage.backend.emulator_bound_inserts, stage.strategy.note,
                    stage.settings.batch_size if series.operation == "insert" else None)
        for series, stats in stage.collector.stats.items()
    ]
    if tenant_drop is not None:
        rows.append(tenant_drop_row(stage.strategy, tenant_drop, integrity, fresh))
    return rows


def merge_stats(parts: list[OperationStats]) -> OperationStats:
    """One series over several repetitions: counts added, histograms merged."""
    merged = OperationStats(parts[0].access)
    for p in parts:
        merged.histogram.add(p.histogram)
        merged.intended.add(p.intended)
        for name in COUNTS:
            setattr(merged, name, getattr(merged, name) + getattr(p, name))
        for reason, count in p.errors.items():
            merged.errors[reason] = merged.errors.get(reason, 0) + count
    return merged


def _added(items):
    """A dataclass of counts added up field by field (integrity, tenant drops)."""
    first = items[0]
    values = {}
    for name, value in vars(first).items():
        if isinstance(value, bool):
            values[name] = all(getattr(i, name) for i in items)
        elif isinstance(value, (int, float)):
            values[name] = sum(getattr(i, name) for i in items)
        elif isinstance(value, str) and name == "cause":
            values[name] = "; ".join(dict.fromkeys(getattr(i, name) for i in items if getattr(i, name)))
        else:
            values[name] = value
    return type(first)(**values)


def repeated_rows(runs: list[tuple]) -> tuple[list[dict], object, object]:
    """The summary rows of one strategy run K times: (stage, seconds, integrity, tenant_drop,
    fresh) per repetition. Percentiles come from the merged histograms; the spread columns
    give the min and max of each repetition's own p50 and p99."""
    stages = [r[0] for r in runs]
    seconds = sum(r[1] for r in runs)
    integrity = _added([r[2] for r in runs])
    drops = [r[3] for r in runs if r[3] is not None]
    tenant_drop = dataclasses.replace(_added(drops), seconds=sum(d.seconds for d in drops) / len(drops)) if drops else None
    fresh = all(r[4] for r in runs)
    first = stages[0]
    aborted = [getattr(st.backend, "aborted_commits", None) for st in stages]
    total_aborts = None if aborted[0] is None else sum(aborted)
    per_rep = [stage_rows(*r) for r in runs]
    rows = []
    for series in first.collector.stats:
        merged = merge_stats([st.collector.stats[series] for st in stages])
        row = summary_row(series, merged, seconds, integrity, fresh, first.strategy.claim,
                          total_aborts if series.operation == "insert" else None,
                          series.operation == "insert" and first.backend.emulator_bound_inserts, first.strategy.note,
                          first.settings.batch_size if series.operation == "insert" else None)
        rows.append(row)
    if tenant_drop is not None:
        rows.append(tenant_drop_row(first.strategy, tenant_drop, integrity, fresh))
        rows[-1]["requests"] = len(drops)
    for i, row in enumerate(rows):
        mine = [rep[i] for rep in per_rep]
        row["repetitions"] = len(runs)
        for q in ("p50", "p99"):
            values = [float(m[f"{q}_ms"]) for m in mine if m[f"{q}_ms"] != ""]
            row[f"{q}_min_ms"] = f"{min(values):.3f}" if values else ""
            row[f"{q}_max_ms"] = f"{max(values):.3f}" if values else ""
    return rows, integrity, tenant_drop


def stage_problems(stage, rows: list[dict], integrity, tenant_drop) -> list[str]:
    """Why a finished stage fails the run, if it does."""
    label = stage.strategy.label
    problems = [] if integrity.ok else [f"{label} integrity {integrity.describe()}"]
    if getattr(stage, "ended_early", None):
        problems.insert(0, f"{label} ended early: {stage.ended_early}")
    if tenant_drop is not None and not tenant_drop.ok:
        problems.append(f"{label} tenant_drop removed the wrong rows")
    collisions = sum(int(r["collisions"] or 0) for r in rows)
    if collisions:
        problems.append(f"{label} {collisions} insert(s) collided with an existing key")
    # The documented trap of unpadded numbers is in their numeric range reads, and only there.
    trap = "number_range" if stage.strategy.expect_wrong_rows else None
    wrong = sum(int(r["wrong_rows"] or 0) + int(r["missing_rows"] or 0) for r in rows if r["operation"] != trap)
    if wrong:
        problems.append(f"{label} reads returned {wrong} wrong or missing row(s)")
    return problems


TIMESERIES_COLUMNS = ("schema_version", "second", "elapsed_s", "backend", "strategy", "dialect", "operation",
                      "ops", "failures", "p50_ms", "p99_ms")


def timeseries_rows(collector, started_epoch_s: float) -> list[dict]:
    """One row per (second, series) in which operations completed, in time order."""
    order = {series: i for i, series in enumerate(collector.stats)}
    rows = []
    for (second, series), s in sorted(collector.seconds.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])):
        rows.append({
            "schema_version": SCHEMA_VERSION,
            "second": dt.datetime.fromtimestamp(second, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "elapsed_s": max(0, second - int(started_epoch_s)), "backend": series.backend, "strategy": series.strategy,
            "dialect": series.dialect, "operation": series.operation, "ops": s.ops, "failures": s.failures,
            "p50_ms": _ms(s.histogram.get_value_at_percentile(50)),
            "p99_ms": _ms(s.histogram.get_value_at_percentile(99)),
        })
    return rows


def to_csv(rows: list[dict], columns=SUMMARY_COLUMNS) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def read_summary(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@dataclass
class RunDirectory:
    root: Path
    run_id: str

    @property
    def final(self) -> Path:
        return self.root / self.run_id

    @property
    def partial(self) -> Path:
        return self.root / f".{self.run_id}.partial"

    @staticmethod
    def check_writable(root: Path) -> None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / f".keybench-probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise KeybenchError(f"results directory {root} is not writable: {exc.strerror or exc}") from None

    def open(self) -> None:
        if self.final.exists():
            raise KeybenchError(f"{self.final} already exists; choose another --run-id")
        try:
            self.partial.mkdir(parents=True)
        except FileExistsError:
            raise KeybenchError(
                f"{self.partial} exists: another run with this id is in progress, or one was cut off "
                f"(remove it, or choose another --run-id)"
            ) from None

    def write(self, name: str, text: str) -> Path:
        path = self.partial / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(path)
        return path

    def commit(self) -> Path:
        self.partial.replace(self.final)
        return self.final

    def discard(self) -> None:
        shutil.rmtree(self.partial, ignore_errors=True)


def side_by_side(rows: list[dict]) -> str:
    """The summary as a table per (backend, operation), one line per strategy."""
    cols = ("strategy", "access", "requests", "failures", "aborts", "collisions", "rps", "p50_ms", "p90_ms", "p99_ms", "max_ms",
            "rows_per_op", "fanout", "wrong_rows", "missing_rows", "integrity")
    lines = []
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["backend"], r["operation"]), []).append(r)
    for (backend, op), members in groups.items():
        label = [dict(r, strategy=r["strategy"] + (f"[{r['dialect']}]" if r["dialect"] not in ("", "googlesql") else ""))
                 for r in members]
        widths = {c: max(len(c), *(len(str(r[c])) for r in label)) for c in cols}
        lines.append(f"\n{backend} / {op}")
        lines.append("  ".join(c.ljust(widths[c]) if c in ("strategy", "access", "integrity") else c.rjust(widths[c]) for c in cols))
        for r in label:
            lines.append("  ".join(
                str(r[c]).ljust(widths[c]) if c in ("strategy", "access", "integrity") else str(r[c]).rjust(widths[c])
                for c in cols
            ))
    return "\n".join(lines)
