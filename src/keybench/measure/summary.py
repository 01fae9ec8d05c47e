"""summary.csv and timeseries.csv: one summary row per backend, strategy, dialect and
operation, in a stable order, built from stage records (`result.StageResult`); and why a
finished stage fails the run."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
from pathlib import Path

from keybench.columns import (
    MODEL_COLUMNS,
    OBSERVED_COLUMNS,
    REPETITION_COLUMNS,
    ROW_COLUMNS,
    SCHEMA_VERSION,
    SUMMARY_COLUMNS,
    VERDICT_COLUMNS,
    VERDICTS_FILE_COLUMNS,
)
from keybench.errors import KeybenchError
from keybench.measure.collector import COUNTS, OperationStats, Series
from keybench.measure.latency import LatencyFigures, latency_figures
from keybench.measure.samples import MIN_SAMPLES, too_few
from keybench.measure.stage_result import StageResult


def provenance_columns(strategy) -> dict:
    """What the strategy expects and on whose word: the same in every row of the strategy."""
    return {"documented": strategy.claim if strategy.documented else "", "expected": strategy.claim,
            "source": strategy.source.text(), "advice": strategy.advice}


def thin_percentiles(samples: int) -> str:
    """The percentiles that `samples` operations are too few for, as summary.csv writes them."""
    return " ".join(p for p in MIN_SAMPLES if too_few(p, samples))


def _ms(us: float) -> str:
    return f"{us / 1000.0:.3f}"


def summary_row(
    series: Series, stats: OperationStats, seconds: float, integrity, fresh: bool, provenance: dict,
    aborts: int | None = None, emulator_bound: bool = False, note: str = "", batch_size: int | None = None,
) -> dict:
    h, n = latency_figures(stats.histogram), stats.requests
    intended = latency_figures(stats.intended)
    ok = n - stats.failures
    per = (lambda total: f"{total / ok:.2f}") if ok else (lambda total: "")
    row = {
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
        "p50_ms": _ms(h.p50) if n else "",
        "p90_ms": _ms(h.p90) if n else "",
        "p99_ms": _ms(h.p99) if n else "",
        "max_ms": _ms(h.max) if n else "",
        "mean_ms": _ms(h.mean) if n else "",
        "too_few_samples": thin_percentiles(n) if n else "",
        # Open loop only: latency from the moment the schedule made the operation due.
        "p50_intended_ms": _ms(intended.p50) if intended.count else "",
        "p99_intended_ms": _ms(intended.p99) if intended.count else "",
        "rows_per_op": per(stats.rows),
        "rows_scanned_per_op": per(stats.rows_scanned),
        "fanout": per(stats.fanout),
        "wrong_rows": stats.strays if series.operation != "insert" else "",
        "missing_rows": stats.missing if series.operation != "insert" else "",
        **integrity_columns(integrity),
        "fresh_emulator": "yes" if fresh else "no",
        "documented": provenance["documented"],
        "note": note,
    } | _spread(1, h, n) | {"batch_size": "" if batch_size is None else batch_size} | {
        c: "" for c in (*VERDICT_COLUMNS, *MODEL_COLUMNS,
                        *OBSERVED_COLUMNS)} | provenance  # the split model fills its columns in per stage
    return {c: row[c] for c in ROW_COLUMNS}


def integrity_columns(integrity) -> dict:
    """The audit's columns; a stage whose database went away has nothing to count."""
    verified = integrity.verified
    return {
        "integrity": "unverified" if not verified else "ok" if integrity.ok else "MISMATCH",
        "acknowledged": integrity.acknowledged,
        **{name: getattr(integrity, name) if verified else "" for name in ("stored", "lost", "duplicates",
                                                                           "unexpected")},
        "unknown_outcome": integrity.unknown,
        "unknown_stored": integrity.unknown_stored if verified else "",
    }


def _spread(repetitions: int, h: LatencyFigures, n: int) -> dict:
    """A single run's spread: its own p50 and p99 are both the min and the max."""
    p50 = _ms(h.p50) if n else ""
    p99 = _ms(h.p99) if n else ""
    return {"repetitions": repetitions, "p50_min_ms": p50, "p50_max_ms": p50, "p99_min_ms": p99, "p99_max_ms": p99}


def tenant_drop_row(strategy, drop, integrity, fresh: bool) -> dict:
    """The multi-tenant check as a summary row: one prefix delete, timed, and its outcome."""
    row: dict[str, object] = {c: "" for c in ROW_COLUMNS}
    ms = _ms(drop.seconds * 1e6)
    row.update({
        "emulator_bound": "no",
        "schema_version": SCHEMA_VERSION, "backend": strategy.backend, "strategy": strategy.name,
        "dialect": strategy.dialect, "operation": "tenant_drop", "access": "prefix_delete",
        "requests": 1, "failures": 0 if drop.ok else 1, "p50_ms": ms, "p90_ms": ms, "p99_ms": ms,
        "max_ms": ms, "mean_ms": ms, "too_few_samples": thin_percentiles(1), "rows_per_op": f"{drop.removed:.2f}",
        "wrong_rows": drop.others_removed, "missing_rows": drop.left_behind,
        **integrity_columns(integrity), "fresh_emulator": "yes" if fresh else "no",
        **provenance_columns(strategy),
    })
    return row


def _insert_only(series: Series, value):
    return value if series.operation == "insert" else None


def _rows_of(result: StageResult, stats: dict[Series, OperationStats], seconds: float, integrity, tenant_drop,
             fresh: bool) -> list[dict]:
    first = result
    rows = [
        summary_row(series, st, seconds, integrity, fresh, provenance_columns(first.strategy),
                    _insert_only(series, st.aborts if first.counts_aborts else None),
                    series.operation == "insert" and first.emulator_bound_inserts, first.strategy.note,
                    _insert_only(series, first.batch_size))
        for series, st in stats.items()
    ]
    if tenant_drop is not None:
        rows.append(tenant_drop_row(first.strategy, tenant_drop, integrity, fresh))
    return rows


def stage_rows(result: StageResult) -> list[dict]:
    """The summary rows of one finished stage, in operation order."""
    return _rows_of(result, result.stats, result.seconds, result.integrity, result.tenant_drop, result.fresh)


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
    values: dict[str, object] = {}
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


@dataclasses.dataclass(frozen=True)
class VariantSummary:
    """One variant (backend, strategy, dialect) over all its repetitions."""

    rows: list[dict]
    problems: list[str]
    repetition_rows: list[dict] = dataclasses.field(default_factory=list)  # repetitions.csv: each repetition alone


def variant_summary(results: list[StageResult]) -> VariantSummary:
    """The summary rows of one strategy run K times. Percentiles come from the merged
    histograms; the spread columns give the min and max of each repetition's own p50 and
    p99. Then the problems that fail the run."""
    first = results[0]
    integrity = _added([r.integrity for r in results])
    drops = [r.tenant_drop for r in results if r.tenant_drop is not None]
    tenant_drop = dataclasses.replace(_added(drops),
                                      seconds=sum(d.seconds for d in drops) / len(drops)) if drops else None
    merged = {series: merge_stats([r.stats[series] for r in results]) for series in first.stats}
    rows = _rows_of(first, merged, sum(r.seconds for r in results), integrity, tenant_drop,
                    all(r.fresh for r in results))
    if tenant_drop is not None:
        rows[-1]["requests"] = len(drops)
    per_rep = [stage_rows(r) for r in results]
    for i, row in enumerate(rows):
        mine = [rep[i] for rep in per_rep]
        row["repetitions"] = len(results)
        for q in ("p50", "p99"):
            values = [float(m[f"{q}_ms"]) for m in mine if m[f"{q}_ms"] != ""]
            row[f"{q}_min_ms"] = f"{min(values):.3f}" if values else ""
            row[f"{q}_max_ms"] = f"{max(values):.3f}" if values else ""
    observed = [r.observed for r in results if r.observed]
    if observed:  # the hottest repetition's, as the service saw it
        hottest = max(observed, key=lambda o: float(o.get("observed_score") or 0))
        for row in rows:
            row.update({c: hottest.get(c, "") for c in OBSERVED_COLUMNS})
    ended_early = next((r.ended_early for r in results if r.ended_early), None)
    repetitions = [{column: row.get(column, "") for column in REPETITION_COLUMNS} | {"repetition": number}
                   for number, rep in enumerate(per_rep, start=1) for row in rep]
    return VariantSummary(rows, stage_problems(first.strategy, rows, integrity, tenant_drop, ended_early), repetitions)


def stage_problems(strategy, rows: list[dict], integrity, tenant_drop, ended_early: str | None = None) -> list[str]:
    """Why a finished stage (or variant) fails the run, if it does."""
    label = strategy.label
    problems = [] if integrity.ok else [f"{label} integrity {integrity.describe()}"]
    if ended_early:
        problems.insert(0, f"{label} ended early: {ended_early}")
    # A stage that measured nothing must never pass as a green run.
    operations = [r for r in rows if r["operation"] != "tenant_drop"]
    if not sum(int(r["requests"] or 0) for r in operations):
        problems.append(f"{label} completed no operation")
    for r in operations:
        requests, failures = int(r["requests"] or 0), int(r["failures"] or 0)
        if requests and failures == requests:
            problems.append(f"{label} {r['operation']} failed every time ({failures} of {requests})")
    if tenant_drop is not None and not tenant_drop.ok:
        problems.append(f"{label} tenant_drop removed the wrong rows")
    collisions = sum(int(r["collisions"] or 0) for r in rows)
    if collisions:
        problems.append(f"{label} {collisions} insert(s) collided with an existing key")
    # The documented trap of unpadded numbers is in their numeric range reads, and only there.
    trap = "number_range" if strategy.expect_wrong_rows else None
    wrong = sum(int(r["wrong_rows"] or 0) + int(r["missing_rows"] or 0) for r in rows if r["operation"] != trap)
    if wrong:
        problems.append(f"{label} reads returned {wrong} wrong or missing row(s)")
    return problems


def timeseries_rows(result: StageResult) -> list[dict]:
    """One row per (second, series) in which operations completed, in time order."""
    order = {series: i for i, series in enumerate(result.stats)}
    started_epoch_s = result.started_epoch_s
    rows = []
    for (second, series), s in sorted(result.per_second.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])):
        figures = latency_figures(s.histogram())
        rows.append({
            "schema_version": SCHEMA_VERSION,
            "second": dt.datetime.fromtimestamp(second, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "elapsed_s": max(0, second - int(started_epoch_s)), "backend": series.backend, "strategy": series.strategy,
            "dialect": series.dialect, "operation": series.operation, "ops": s.ops, "failures": s.failures,
            "p50_ms": _ms(figures.p50),
            "p99_ms": _ms(figures.p99),
        })
    return rows


# A spreadsheet runs a cell that starts with one of these as a formula; a design's note or
# advice is text, so such a cell is written with a leading apostrophe (numbers stay as they are).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """A CSV cell a spreadsheet shows as text, never runs."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def to_csv(rows: list[dict], columns=SUMMARY_COLUMNS) -> str:
    """`rows` as CSV of `columns`, in that order; a row's other keys are not written (a summary
    row carries its design's columns too, which verdicts.csv holds)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def design_rows(rows: list[dict]) -> list[dict]:
    """verdicts.csv's rows: one per design (backend, strategy, dialect), from its insert row
    (else its first), in the summary's order."""
    designs: dict[tuple, dict] = {}
    for row in rows:
        key = (row["backend"], row["strategy"], row["dialect"])
        if key not in designs or (row["operation"] == "insert" and designs[key]["operation"] != "insert"):
            designs[key] = row
    return list(designs.values())


def read_results(path: Path) -> list[dict]:
    """summary.csv's rows, each with its design's columns from verdicts.csv beside it; a file of
    schema 4 or earlier holds them in every row already."""
    rows = read_summary(path)
    verdicts = path.with_name("verdicts.csv")
    if not verdicts.is_file():
        return rows
    designs = {(r["backend"], r["strategy"], r["dialect"]): r for r in require_columns(
        read_summary(verdicts), verdicts, ("backend", "strategy", "dialect"), "verdicts.csv")}
    blank = dict.fromkeys(VERDICTS_FILE_COLUMNS[4:], "")
    for row in rows:
        design = designs.get((row.get("backend"), row.get("strategy"), row.get("dialect")), {})
        row.update(blank | {k: v for k, v in design.items() if k in blank})
    return rows


def require_columns(rows: list[dict], path: Path, columns, what: str = "summary.csv") -> list[dict]:
    """Rows (at least one) that carry every column a reader indexes, else one KeybenchError
    naming the missing ones: a summary that lost a column is not a summary keybench wrote."""
    missing = [c for c in columns if not rows or c not in rows[0]]
    if missing:
        raise KeybenchError(f"{path} is not a keybench {what} (no rows, or missing "
                            f"{', '.join(missing)})")
    return rows


def read_summary(path: Path) -> list[dict]:
    """The rows of a summary.csv or timeseries.csv; an unreadable file is one KeybenchError."""
    if Path(path).exists() and not Path(path).is_file():  # /dev/zero, a pipe: never read whole
        raise KeybenchError(f"{path} is not a regular file, so not a CSV file keybench wrote")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        raise KeybenchError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise KeybenchError(f"{path} is not a CSV file keybench wrote ({type(exc).__name__})") from None
    if any(None in row or None in row.values() for row in rows):
        raise KeybenchError(f"{path} is malformed: a row has more or fewer fields than the header")
    return rows
