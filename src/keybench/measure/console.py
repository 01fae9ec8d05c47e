"""What keybench prints: the summary as side-by-side tables, the catalogue, and the model's
figures (simulate, analyze) as text or CSV."""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from functools import partial

from keybench.columns import OBSERVED_COLUMNS
from keybench.design.byteorder import TABLE_SPACE
from keybench.design.plans import strategy_plans
from keybench.measure.samples import MIN_SAMPLES, too_few
from keybench.model.params import ROW_LIMIT_MB, ROW_RECOMMENDED_MB


def catalogue_brief(catalogue, width: int) -> list[str]:
    """`keybench strategies`: one line per design (backend, name, expected distribution, key),
    cut to `width` columns; `--verbose` or `strategies NAME` has the rest."""
    lines = []
    for s in catalogue:
        line = f"{s.backend:8} {s.name:22} {s.expectation.split(' (')[0]:13} {s.summary}"
        lines.append(line if len(line) <= width else line[:width - 3] + "...")  # ASCII: awk and wc count bytes
    return lines


def catalogue_document(catalogue, latest_n: int) -> list[dict]:
    """`keybench strategies --format json`: each design as `catalogue_lines` gives it, as values."""
    return [{"backend": s.backend, "name": s.name, "dialect": s.dialect or None, "key": s.summary,
             "expected": s.expectation,
             "source": {"title": s.source.title or None, "section": s.source.section or None,  # None: no document's
                        "quote": s.source.phrase or None, "gloss": s.source.gloss or None, "text": s.source.text()},
             "advice": s.advice or None,
             "reads": {op: {"access": p.access, "fanout": p.fanout} for op, p in strategy_plans(s, latest_n).items()}}
            for s in catalogue]


def catalogue_lines(catalogue, latest_n: int) -> list[str]:
    """`keybench strategies --verbose`: each design, its expected key distribution and whose
    expectation that is, where it comes from, the documents' advice, and how it serves the reads."""
    lines = []
    indent = " " * 30
    for s in catalogue:
        plans = strategy_plans(s, latest_n)
        reads = ", ".join(f"{op}={p.access}" + (f"x{p.fanout}" if p.fanout > 1 else "") for op, p in plans.items())
        lines.append(f"{s.backend:8} {s.name:20} {s.summary}")
        lines.append(f"{indent}expected: {s.expectation}")
        lines.append(f"{indent}source: {s.source.text()}")
        if s.advice:
            lines.append(f"{indent}advice: {s.advice}")
        lines.append(f"{indent}reads: {reads}")
    return lines


# Said by metrics_text's first lines, so not repeated among the figures below them.
LEAD_METRICS = ("backend", "strategy", "dialect", "expected", "verdict", "agrees", "verdict_reason")


def metrics_text(metrics: dict, fmt: str) -> str:
    """`keybench simulate --strategy`: the verdict first, with its reason and what was modelled,
    then one 'name: value' line per figure (to 4 significant digits); or a CSV header and row;
    or one JSON document."""
    if fmt == "json":
        return simulation_json([metrics])
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(metrics)
        writer.writerow(["" if v is None else v for v in metrics.values()])
        return out.getvalue()
    if metrics["agrees"] == "yes":
        judged = f"as expected ({metrics['expected']})"
    elif metrics["agrees"] == "no":
        judged = f"expected {metrics['expected']}: the model disagrees"
    else:
        judged = "no expectation to compare (your design)"
    lines = [f"{metrics['backend']}:{_variant_label(metrics)}: {metrics['verdict']}, {judged}",
             f"  {metrics['verdict_reason']}",
             f"  modelled, not measured: {metrics['rows']:,} simulated writes, {metrics['nodes']} nodes, "
             f"skew {metrics['skew']}", ""]
    for name, value in metrics.items():
        if name in LEAD_METRICS:
            continue
        if name == "measured":  # the model's word: whether some key space had writes enough for a verdict
            name, value = "enough_writes_for_a_verdict", "yes" if value else "no"
        lines.append(f"{name}: {_figure(value)}")
    return "\n".join(lines) + "\n"


def _figure(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def simulation_json(rows: list[dict]) -> str:
    """`keybench simulate --format json`: one document, a row of figures per strategy (the CSV's
    columns, as numbers)."""
    finite = [{k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in r.items()} for r in rows]
    return json.dumps({"format_version": 1, "command": "simulate", "modelled": True, "rows": finite},
                      indent=2, allow_nan=False) + "\n"


SIMULATION_COLUMNS = ("strategy", "expected", "verdict", "agrees", "hot_node_share", "hot_node_share_se",
                      "effective_nodes", "hot_unit_share", "rewrite_share", "read_ranges_touched")


def simulation_table(rows: list[dict], fmt: str) -> str:
    """`keybench simulate` over many strategies: one line each, the verdict first; or CSV (or
    JSON) of every figure."""
    if fmt == "json":
        return simulation_json(rows)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in rows)
        return out.getvalue()
    first = rows[0]
    text = [{c: (f"{r[c]:.3f}" if isinstance(r[c], float) else ("-" if r[c] is None else str(r[c])))
             for c in SIMULATION_COLUMNS} | {"strategy": _variant_label(r)} for r in rows]
    widths = {c: max(len(c), *(len(t[c]) for t in text)) for c in SIMULATION_COLUMNS}
    agree = sum(r["agrees"] == "yes" for r in rows)
    lines = [f"modelled, not measured: {first['rows']:,} simulated writes per strategy, {first['nodes']} nodes, "
             f"skew {first['skew']}; {agree} of {len(rows)} verdicts agree with the expectation",
             "  ".join(c.ljust(widths[c]) for c in SIMULATION_COLUMNS).rstrip()]
    lines.extend("  ".join(t[c].ljust(widths[c]) for c in SIMULATION_COLUMNS).rstrip() for t in text)
    return "\n".join(lines) + "\n"


def analysis_text(rows: list[dict], nodes: int, fmt: str) -> str:
    """`keybench analyze`: one line per variant, or CSV."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()}
                         for r in rows)
        return out.getvalue()
    lines = [f"modelled, not measured: the split model over each stage's recorded keys, {nodes} nodes",
             f"{'variant':44} {'verdict':12} {'hot_space':24} {'hot_node_share':>14} {'effective_nodes':>15} "
             f"{'vs_ideal':>8} "
             f"{'read_ranges':>11} {'key_bytes':>9} {'windows':>7} {'table_rows':>10} {'index_entries':>13}"]
    for r in rows:
        touched = "" if r["read_ranges_touched"] is None else f"{r['read_ranges_touched']:.2f}"
        lines.append(f"{r['variant']:44} {r['verdict']:12} {r['hot_space']:24} {r['hot_node_share']:14.3f} "
                     f"{r['effective_nodes']:15.2f} "
                     f"{r['write_throughput_vs_ideal']:8.3f} {touched:>11} {r['mean_key_bytes']:9.1f} {r['windows']:7} "
                     f"{r['table_rows']:10} {r['index_entries']:13}")
    return "\n".join(lines) + "\n"


def side_by_side(rows: list[dict]) -> str:
    """The summary as a table per (backend, operation), one line per strategy."""
    cols = ("strategy", "access", "requests", "failures", "aborts", "collisions", "rps", "p50_ms", "p90_ms", "p99_ms",
            "max_ms",
            "rows_per_op", "fanout", "wrong_rows", "missing_rows", "integrity")
    lines = []
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["backend"], r["operation"]), []).append(r)
    for (backend, op), members in groups.items():
        label = [dict(r, strategy=_variant_label(r)) for r in members]
        widths = {c: max(len(c), *(len(str(r[c])) for r in label)) for c in cols}
        lines.append(f"\n{backend} / {op}")
        lines.append("  ".join(c.ljust(widths[c]) if c in ("strategy", "access",
                                                           "integrity") else c.rjust(widths[c]) for c in cols))
        for r in label:
            lines.append("  ".join(
                str(r[c]).ljust(widths[c]) if c in ("strategy", "access", "integrity") else str(r[c]).rjust(widths[c])
                for c in cols
            ))
    return "\n".join(lines)


def _variant_label(row: dict) -> str:
    return row["strategy"] + (f"[{row['dialect']}]" if row["dialect"] not in ("", "googlesql") else "")


def _units(rows: list[dict]) -> dict[tuple, list[dict]]:
    """Summary rows grouped per variant (backend, strategy, dialect), in summary order."""
    variants: dict[tuple, list[dict]] = {}
    for r in rows:
        variants.setdefault((r["backend"], r["strategy"], r["dialect"]), []).append(r)
    return variants


VERDICT_TABLE_COLUMNS = ("strategy", "expected", "verdict", "agrees", "hot_node_share", "effective_nodes",
                         "hot_row_share", "busiest_row", "insert_rps", "insert_p50_ms", "insert_p99_ms",
                         "reads (access/ranges touched)")


def _row_growth(row: dict) -> str:
    """The busiest row's writes, and for a hot row (rewritten throughout) its growth against
    the documented row sizes; '-' when every row was written once."""
    writes = row.get("max_row_writes") or ""
    if not writes or float(writes) <= 1:
        return "-"
    growth = float(row["row_mb_per_hour"]) if row.get("row_mb_per_hour") else 0.0
    if growth <= 0 or row.get("verdict") != "hot_row":  # a row that stops taking writes stops growing
        return f"{writes} writes"
    return (f"{writes} writes, {growth:.2f} MB/h: {ROW_RECOMMENDED_MB} MB in {ROW_RECOMMENDED_MB / growth:,.0f} h, "
            f"{ROW_LIMIT_MB} MB in {ROW_LIMIT_MB / growth:,.0f} h")


def _measured(insert: dict | None, column: str) -> str:
    """A design's measured insert figure, or "-" where it has no insert row or no figure."""
    return (insert[column] or "-") if insert else "-"


def verdict_rows(rows: list[dict]) -> list[dict]:
    """One row per design (backend, strategy, dialect) for the verdict table: its expected
    distribution, the modelled verdict and whether they agree, the model's shares, then its
    insert rate and latency and what each read costs (its access and the ranges it touches)."""
    out = []
    for (backend, _, dialect), members in _units(rows).items():
        insert = next((r for r in members if r["operation"] == "insert"), None)
        first = insert or members[0]
        measured = partial(_measured, insert)
        out.append({
            "backend": backend, "dialect": dialect, "strategy": _variant_label(first),
            "expected": first["expected"] + (" (documented)" if first["documented"] else " (keybench)")
                        if first["expected"] else "- (your design)",
            "verdict": first.get("verdict") or "-", "agrees": first.get("agrees") or "-",
            "hot_node_share": first.get("hot_node_share") or "-",
            "effective_nodes": first.get("effective_nodes") or "-",
            "hot_row_share": first.get("hot_row_share") or "-", "busiest_row": _row_growth(first),
            "insert_rps": measured("rps"), "insert_p50_ms": measured("p50_ms"), "insert_p99_ms": measured("p99_ms"),
            "reads (access/ranges touched)": " ".join(
                f"{r['operation']}={r['access']}/{r['read_ranges_touched'] or '-'}"
                for r in members if r["operation"] != "insert") or "-",
            "widest_read": _widest_read(members),
            "nodes": first.get("model_nodes", ""), "reason": first.get("verdict_reason", ""),
        } | ({c: first.get(c, "") for c in OBSERVED_COLUMNS} if first.get("observed") else {}))
    return out


def verdict_table(rows: list[dict]) -> str:
    """The answer first: `verdict_rows` as a text table per backend."""
    table: dict[str, list[dict]] = {}
    for row in verdict_rows(rows):
        table.setdefault(row["backend"], []).append(row)
    nodes = sorted({str(r["nodes"]) for members in table.values() for r in members if r["nodes"] != ""})
    lines = [f"verdicts: modelled from each stage's recorded keys at {', '.join(nodes) or '?'} nodes "
             "(the emulators never split, so their latency cannot show a hotspot); latency follows below"]
    cols = VERDICT_TABLE_COLUMNS
    for backend, members in table.items():
        widths = {c: max(len(c), *(len(str(m[c])) for m in members)) for c in cols}
        lines.append(f"\n{backend} / verdict")
        lines.append("  ".join(c.ljust(widths[c]) for c in cols).rstrip())
        lines.extend("  ".join(str(m[c]).ljust(widths[c]) for c in cols).rstrip() for m in members)
        lines.extend(observed_text(m) for m in members if m.get("observed"))
    return "\n".join(lines)


def run_tables(rows: list[dict], width: int, verbose: bool = False) -> str:
    """What `keybench run` prints: the verdicts, then the latency. In `width` columns: a verdict
    line per design and a latency line per operation; `verbose`: every column, as wide as it takes."""
    if verbose:
        return verdict_table(rows) + "\n" + side_by_side(rows)
    return brief_verdicts(rows, width) + "\n" + brief_latency(rows, width)


def _fitted(line: str, width: int) -> str:
    """A table line cut to `width` (its last column gives way), ASCII so that any tool counts it right."""
    return line if len(line) <= width else line[:width - 3] + "..."


def _aligned(table: list[list[str]], right: set[int], width: int, indent: str = "", cut_last: bool = False
             ) -> list[str]:
    """Columns aligned in `width`: the columns that do not fit are left out whole (a number cut
    short would read as another number), except a last column of text (`cut_last`), which is cut."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    used, kept = len(indent), 0
    for i, w in enumerate(widths):
        if used + w + (2 if i else 0) > width and kept:
            break
        used, kept = used + w + (2 if i else 0), i + 1
    if cut_last and kept == len(widths) - 1:
        kept = len(widths)
    return [_fitted(indent + "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                                       for i, cell in enumerate(row[:kept])).rstrip(), width) for row in table]


def brief_verdicts(rows: list[dict], width: int) -> str:
    """The verdict table in `width` columns: design, expected, verdict, agrees, the busiest node's
    share, the insert rate, and each read's access and modelled ranges (cut first)."""
    table: dict[str, list[dict]] = {}
    for row in verdict_rows(rows):
        table.setdefault(row["backend"], []).append(row)
    nodes = sorted({str(r["nodes"]) for members in table.values() for r in members if r["nodes"] != ""})
    lines = textwrap.wrap(f"verdicts: modelled from each stage's recorded keys at {', '.join(nodes) or '?'} nodes "
                          "(the emulators never split, so their latency cannot show a hotspot); latency follows "
                          "below", width)
    for backend, members in table.items():
        cells = [["design", "verdict", "agrees", "hot_share", "inserts/s", "widest read"]]
        cells += [[m["strategy"], m["verdict"], m["agrees"], str(m["hot_node_share"]), str(m["insert_rps"]),
                   m["widest_read"]] for m in members]
        lines += ["", backend, *_aligned(cells, {3, 4}, width, cut_last=True)]
        for m in members:  # a disagreement is the news of a run: what was expected, and why the model says otherwise
            if m["agrees"] == "no":
                lines += textwrap.wrap(f"{m['strategy']}: expected {m['expected']}, modelled {m['verdict']}: "
                                       f"{m['reason']}", width, subsequent_indent="  ")
        observed = [m for m in members if m.get("observed")]
        if observed:  # a real instance's own statistics, beside the model
            lines += ["", *textwrap.wrap("observed: the service's own statistics of each stage's minutes "
                                         f"({OBSERVED_SOURCE[backend]}), beside the modelled verdict", width)]
            lines += [line for m in observed for line in textwrap.wrap(observed_text(m), width,
                                                                        subsequent_indent="  ")]
    return "\n".join(lines)


OBSERVED_SOURCE = {"spanner": "SPANNER_SYS.SPLIT_STATS_TOP_MINUTE", "bigtable": "ListHotTablets"}


def observed_text(row: dict) -> str:
    """One design's observation beside its model: `timestamp_first: observed hotspot (...),
    modelled hotspot: they agree`."""
    measure = "CPU_USAGE_SCORE {}" if row.get("backend") != "bigtable" else "node CPU {} %"
    facts = [measure.format(row["observed_score"]) if row.get("observed_score") else "",
             f"{row['observed_space']}: {row['observed_where']}" if row.get("observed_space") else
             row.get("observed_where", ""),
             f"{float(row['observed_write_share']):.0%} of its recorded writes" if row.get("observed_write_share")
             else ""]
    detail = "; ".join(f for f in facts if f)
    agrees = {"yes": "they agree", "no": "they DISAGREE"}.get(row.get("observed_agrees", ""), "nothing to compare")
    return (f"{row['strategy']}: observed {row['observed']}" + (f" ({detail})" if detail else "")
            + f", modelled {row['verdict']}: {agrees}")


def _widest_read(members: list[dict]) -> str:
    """The read that touches the most modelled key ranges, as `operation access ranges`."""
    reads = [r for r in members if r["operation"] != "insert"]
    if not reads:
        return "-"
    widest = max(reads, key=lambda r: float(r["read_ranges_touched"] or 0))
    return f"{widest['operation']} {widest['access']} {widest['read_ranges_touched'] or '-'}"


# The latency table's columns: name, the width its values may take, right-aligned. n up to
# 999,999 and percentiles up to 9999.999~ ms: wider figures still show, in a wider column.
_LATENCY_COLUMNS = (("operation", 0, False), ("access", 0, False), ("n", 6, True), ("p50", 9, True), ("p99", 9, True),
                    ("failures", 0, True), ("integrity", len("unverified"), False), ("ranges", 0, True))


def brief_latency(rows: list[dict], width: int) -> str:
    """Latency per design and operation in `width` columns, each percentile with its n and a
    `~` where n is too few for it (latency.MIN_SAMPLES); `--verbose` has every column."""
    lines: list[str] = []
    for backend in dict.fromkeys(r["backend"] for r in rows):
        lines += ["", *textwrap.wrap(f"{backend} latency, ms: n operations measured; ~ marks a percentile from too "
                                     f"few of them (p50 under {MIN_SAMPLES['p50']}, p99 under "
                                     f"{MIN_SAMPLES['p99']})", width)]
        # Each figure's column is as wide as its figures may be, so which columns fit depends on
        # the terminal's width, never on how fast this machine was (a slow run's wider p99
        # once pushed `ranges` off an 80-column table).
        cells = [[name.rjust(wide) if right else name.ljust(wide) for name, wide, right in _LATENCY_COLUMNS]]
        designs = []
        for (row_backend, _, _), members in _units(rows).items():
            if row_backend != backend:
                continue
            designs.append((_variant_label(members[0]), len(cells)))
            for r in members:
                n = int(r["requests"] or 0)
                marked = {p: (r[f"{p}_ms"] or "-") + ("~" if r[f"{p}_ms"] and too_few(p, n) else "")
                          for p in ("p50", "p99")}
                cells.append([r["operation"], r["access"], str(n), marked["p50"], marked["p99"], str(r["failures"]),
                              r["integrity"], r.get("read_ranges_touched") or "-"])
        table = _aligned(cells, {2, 3, 4, 5, 7}, width, indent="  ")
        lines.append(table[0])
        starts = dict((start, name) for name, start in designs)
        for i, line in enumerate(table[1:], start=1):
            if i in starts:
                lines.append(_fitted(starts[i], width))
            lines.append(line)
    return "\n".join(lines)


def _typed(value: str):
    """A CSV cell as JSON wants it: a number where it is one, None where it is empty."""
    if value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return value
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() and "." not in str(value) else number


def run_document(rows: list[dict], run_dir, status: str, report: bool) -> dict:
    """`keybench run --format json`: the verdict of each design first, then every summary row
    with its figures as numbers (results.md gives each column's meaning)."""
    verdicts = [{k: _typed(str(v)) if k in ("hot_node_share", "effective_nodes", "hot_row_share", "insert_rps",
                                            "insert_p50_ms", "insert_p99_ms") else v
                 for k, v in row.items() if k != "reads (access/ranges touched)"} for row in verdict_rows(rows)]
    return {"format_version": 1, "command": "run", "status": status, "results": str(run_dir),
            "report": f"{run_dir}/report.html" if report else None, "verdicts": verdicts,
            "operations": [{k: _typed(str(v)) for k, v in row.items()} for row in rows]}


def verdict_offenders(rows: list[dict], verdicts: tuple[str, ...]) -> list[str]:
    """One line per design whose modelled verdict is among `verdicts` (`--fail-on-verdict`)."""
    if not verdicts:
        return []
    out = []
    for (backend, _, _), members in _units(rows).items():
        row = members[0]
        if row.get("verdict") in verdicts:
            # the key space that decided it, where it is an index; the expectation, where there is one
            space = row.get("model_space") or TABLE_SPACE
            out.append(f"{backend}:{_variant_label(row)} verdict {row['verdict']}"
                       + (f" in index {space}" if space != TABLE_SPACE else "")
                       + f" ({row.get('verdict_reason', '')})"
                       + (f"; expected {row['expected']}" if row.get("expected") else ""))
    return out
