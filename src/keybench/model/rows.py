"""The split model's figures as rows: `keybench analyze`'s row per key stream, and a summary
row's modelled columns (the verdict, and the write and read figures behind it)."""

from __future__ import annotations

from pathlib import Path

from keybench.columns import ANALYSIS_COLUMNS, MODEL_COLUMNS, VERDICT_COLUMNS
from keybench.errors import KeybenchError
from keybench.model.model_result import ModelResult
from keybench.model.params import SplitParams
from keybench.model.splitmodel import analyze_file
from keybench.model.verdict import judge


def analyze_run(run_dir: Path, params: SplitParams | None = None) -> list[dict]:
    """The model over every key stream a run directory keeps, one row per variant."""
    params = params or SplitParams()
    params.validate()
    streams = sorted((Path(run_dir) / "keystream").glob("*.npz"))
    if not streams:
        raise KeybenchError(f"{run_dir} has no keystream/*.npz: not a keybench run directory, or one from before "
                            "key streams were recorded")
    rows = []
    for path in streams:
        result = analyze_file(path, params)
        summary = result.summary()
        rows.append({"variant": path.stem, "verdict": judge(result).verdict,
                     **{k: summary[k] for k in ANALYSIS_COLUMNS}})
    return rows


def model_columns(result: ModelResult, operation: str, claim: str, cell_bytes: float = 0.0) -> dict:
    """A summary row's modelled columns: the strategy's verdict and write figures on every row
    of it, the ranges one read touches on that read's row. `claim` is the strategy's expected
    distribution; `cell_bytes` what one write adds to a row (key and payload), for the growth
    of the busiest row."""
    if not result.spaces:
        return {c: "" for c in (*VERDICT_COLUMNS, *MODEL_COLUMNS)}
    s = result.summary()
    verdict = judge(result)
    touched = result.read_ranges_by_operation().get(operation)
    growth = s["row_writes_per_s"] * cell_bytes * 3600 / 1e6
    return {
        "verdict": verdict.verdict,
        "agrees": verdict.agreement(claim),
        "model_space": s["hot_space"],
        "model_nodes": result.nodes,
        "hot_node_share": f"{s['hot_node_share']:.3f}",
        "effective_nodes": f"{s['effective_nodes']:.2f}",
        "write_throughput_vs_ideal": f"{s['write_throughput_vs_ideal']:.3f}",
        "hot_row_share": f"{s['hot_unit_share']:.3f}",
        "rewrite_share": f"{s['rewrite_share']:.3f}",
        "max_row_writes": s["max_row_writes"],
        "row_mb_per_hour": f"{growth:.3f}" if cell_bytes else "",
        "read_ranges_touched": "" if touched is None else f"{touched:.2f}",
        "mean_key_bytes": f"{s['mean_key_bytes']:.1f}",
        "model_windows": s["windows"],
        "verdict_reason": verdict.reason,
    }
