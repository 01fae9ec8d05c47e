"""After the load: each variant's key stream saved, the split model's columns added to its
summary rows, and its heatmaps drawn. Every figure here is modelled: the emulators never split.

A variant is modelled as soon as its last stage is done, in a process of its own (`Modeller`),
while keybench audits that stage, restarts the emulator and sets up the next one. The next
stage's load waits until that model is done, so the model never shares the machine with a
measured stage: it only fills time that was not load anyway (README, "Where the time goes").
With `overlap=False` every variant is modelled at the end of the run, in this process, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from keybench.children import PlainProcess, PlainProcessError
from keybench.design.byteorder import TABLE_SPACE
from keybench.design.strategies import Strategy
from keybench.infra.progress import progress
from keybench.measure.rundir import RunDirectory
from keybench.model.keystream import KeyStream
from keybench.model.model_result import ModelResult
from keybench.model.observed import agreement
from keybench.model.rows import model_columns
from keybench.model.shape import KeyShape, key_shape
from keybench.model.splitmodel import SplitParams, model_stream
from keybench.run.state import variant_name


@dataclass(frozen=True)
class ModelJob:
    """One variant's model, in plain types: the model process receives it as it is."""

    stream: bytes  # KeyStream.to_bytes() of every repetition's keys
    params: SplitParams
    name: str  # the variant's file stem
    label: str
    heatmaps: bool  # draw the heatmaps too
    shape: KeyShape = KeyShape()  # what the design's key says past the stream's end


@dataclass(frozen=True)
class ModelOutput:
    """What the model process returns: the model, and its heatmaps as PNG bytes by file name.
    The process writes nothing: the run writes the pictures after its stages, with the key
    streams, so a small disk fills with the results of the stages that ran, never with a
    picture drawn beside a stage's audit."""

    model: ModelResult
    heatmaps: dict[str, bytes]


def run_job(job: ModelJob) -> ModelOutput:
    """The model of one variant's key stream, and its heatmaps drawn."""
    stream = KeyStream.from_bytes(job.stream)
    model = model_stream(stream, job.params, job.shape)
    pictures: dict[str, bytes] = {}
    if job.heatmaps and stream.spaces():
        from keybench.model.heatmap import heatmap_png

        for space in stream.spaces():
            suffix = "" if space == TABLE_SPACE else f"-{space}"
            for kind in ("writes", "reads"):
                pictures[f"{job.name}{suffix}-{kind}.png"] = heatmap_png(stream, space, kind, job.label)
    return ModelOutput(model, pictures)


@dataclass(frozen=True)
class _Variant:
    strategy: Strategy
    cell_bytes: float  # what one write adds: its key and its payload
    job: ModelJob


class Modeller:
    """The model of every variant of a run: `submit` a variant once its last stage is done, `wait`
    before the next load, and take the modelled rows at the end with `rows`."""

    def __init__(self, params: SplitParams, run_dir: RunDirectory, heatmaps: bool, payload_bytes: int = 0,
                 overlap: bool = True):
        self.params, self.run_dir, self.heatmaps, self.payload_bytes = params, run_dir, heatmaps, payload_bytes
        self.overlap = overlap
        self.variants: dict[str, _Variant] = {}
        self.models: dict[str, ModelOutput] = {}
        self._process: PlainProcess | None = None
        self._in_flight: str | None = None

    def submit(self, strategy: Strategy, streams: list[KeyStream]) -> None:
        """Model the variant's key stream (every repetition's): now, in the model process
        (overlap), or at the end."""
        stream = KeyStream()
        for each in streams:
            stream.merge(each)
        name = variant_name(strategy)
        blob = stream.to_bytes()
        cell_bytes = stream.mean_key_bytes() + self.payload_bytes if stream.write_count() else 0.0
        job = ModelJob(blob, self.params, name, strategy.label, self.heatmaps, key_shape(strategy, self.payload_bytes))
        self.variants[name] = _Variant(strategy, cell_bytes, job)
        self.models.pop(name, None)
        if self.overlap:
            self.wait()  # one variant at a time: the process models in order
            self._in_flight = name
            try:
                self._start().send(run_job, job)
            except PlainProcessError as exc:
                self._give_up(exc)

    def wait(self) -> None:
        """Until the variant in the model process is modelled (nothing to wait for without one)."""
        name, self._in_flight = self._in_flight, None
        if name is None:
            return
        assert self._process is not None  # a variant is in flight only in a running process
        try:
            self.models[name] = self._process.receive()
        except PlainProcessError as exc:
            self._give_up(exc)

    def rows(self, unit_rows: dict[str, list[dict]]) -> list[dict]:
        """Each variant's summary rows (by file stem) with the model's columns filled in, its
        verdict first, and its key stream saved; variants not yet modelled are modelled here."""
        self.wait()
        out: list[dict] = []
        for name, rows in unit_rows.items():
            variant = self.variants[name]
            # Written with the rest of the run's results, after the stages: a small disk fills
            # with the results of the stages that ran, not with key streams or pictures.
            self.run_dir.write(f"keystream/{name}.npz", variant.job.stream)
            if name not in self.models:
                self.models[name] = run_job(variant.job)
            output = self.models[name]
            for file_name, png in output.heatmaps.items():
                self.run_dir.write(f"heatmaps/{file_name}", png)
            for row in rows:
                modelled = {**row, **model_columns(output.model, row["operation"], variant.strategy.claim,
                                                   variant.cell_bytes)}
                out.append(modelled | {"observed_agrees": agreement(row.get("observed", ""), modelled["verdict"])})
        return out

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    def _start(self) -> PlainProcess:
        if self._process is None:
            self._process = PlainProcess()
        return self._process

    def _give_up(self, exc: Exception) -> None:
        """The model process failed: the rest is modelled in this process, at the end."""
        progress(f"keybench: the model process failed ({exc}); modelling in this process instead")
        self.overlap = False
        self._in_flight = None
        self.close()
