"""What keybench prints: the summary as side-by-side tables, the catalogue, and the model's
figures (simulate, analyze) as text or CSV."""

from __future__ import annotations

import csv
import io

from loadtests.design.plans import strategy_plans


def catalogue_lines(catalogue, latest_n: int) -> list[str]:
    """`keybench strategies`: each design, its expected key distribution and whose expectation
    that is, where it comes from, the documents' advice, and how it serves the reads."""
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


def metrics_text(metrics: dict, fmt: str) -> str:
    """`keybench simulate`: one 'name: value' line per metric, or a CSV header and row."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(metrics)
        writer.writerow(["" if v is None else v for v in metrics.values()])
        return out.getvalue()
    return "".join(f"{name}: {'' if value is None else value}\n" for name, value in metrics.items())


def analysis_text(rows: list[dict], nodes: int, fmt: str) -> str:
    """`keybench analyze`: one line per unit, or CSV."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()}
                         for r in rows)
        return out.getvalue()
    lines = [f"modelled, not measured: the split model over each stage's recorded keys, {nodes} nodes",
             f"{'unit':44} {'hot_space':24} {'hot_node_share':>14} {'effective_nodes':>15} {'vs_ideal':>8} "
             f"{'read_ranges':>11} {'key_bytes':>9} {'windows':>7} {'table_rows':>10} {'index_entries':>13}"]
    for r in rows:
        touched = "" if r["read_ranges_touched"] is None else f"{r['read_ranges_touched']:.2f}"
        lines.append(f"{r['unit']:44} {r['hot_space']:24} {r['hot_node_share']:14.3f} {r['effective_nodes']:15.2f} "
                     f"{r['write_throughput_vs_ideal']:8.3f} {touched:>11} {r['mean_key_bytes']:9.1f} {r['windows']:7} "
                     f"{r['table_rows']:10} {r['index_entries']:13}")
    return "\n".join(lines) + "\n"


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
