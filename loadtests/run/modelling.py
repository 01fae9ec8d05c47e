"""After the load: each unit's key stream saved, the split model's columns added to its
summary rows, and its heatmaps drawn. Every figure here is modelled: the emulators never split."""

from __future__ import annotations

from loadtests.design.byteorder import TABLE_SPACE
from loadtests.measure.result import StageResult
from loadtests.measure.rundir import RunDirectory
from loadtests.model.keystream import KeyStream
from loadtests.model.splitmodel import SplitParams, model_columns, model_stream
from loadtests.run.state import unit_name


def model_unit(results: list[StageResult], rows: list[dict], params: SplitParams, run_dir: RunDirectory,
               heatmaps: bool, payload_bytes: int = 0) -> list[dict]:
    """The unit's rows with the model's columns filled in (its verdict first); its key stream
    and heatmaps written. `payload_bytes` is what each write adds beside its key."""
    stream = KeyStream()
    for result in results:
        stream.merge(result.key_stream)
    strategy = results[0].strategy
    name = unit_name(strategy)
    run_dir.write(f"keystream/{name}.npz", stream.to_bytes())
    model = model_stream(stream, params)
    cell_bytes = stream.mean_key_bytes() + payload_bytes if stream.write_count() else 0.0
    modelled = [{**row, **model_columns(model, row["operation"], strategy.claim, cell_bytes)} for row in rows]
    if heatmaps and stream.spaces():
        from loadtests.model.heatmap import render_heatmap

        folder = run_dir.partial / "heatmaps"
        folder.mkdir(exist_ok=True)
        for space in stream.spaces():
            suffix = "" if space == TABLE_SPACE else f"-{space}"
            for kind in ("writes", "reads"):
                render_heatmap(stream, space, kind, folder / f"{name}{suffix}-{kind}.png", strategy.label)
    return modelled
