"""Simulation: a strategy's key stream made by its key generator alone, then modelled.

No database: `rows` events with entities drawn from a population, timestamps advancing at
a steady synthetic rate and insert numbers 1..rows; the keys encoded as the database
orders them (`design/byteorder.py`); a sample of the strategy's reads built by its read plans;
the split model run over it all (`splitmodel.py`).

Key generation is vectorised with numpy for the common parts (times, users, devices,
insert numbers, bit-reversed and generated sequences, UUID text); any other part goes
through the real per-event `Part.compute`, one Python call per row. The vectorised parts
produce exactly the bytes the per-event path produces for the same event (UUID parts: the
same format and ordering from a different random stream); tests compare the two.
"""

from __future__ import annotations

import mmap
import os
import sys
import time
from dataclasses import replace

import numpy as np

from keybench.backends.base import DEFAULT_PAYLOAD_BYTES
from keybench.design.byteorder import (
    TABLE_SPACE,
    KeyEncoder,
)
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.events import WriteEvent
from keybench.design.keys import (
    DEFAULT_POPULATION,
    DEFAULT_SEED,
    MAX_POPULATION,
    preload_keys,
)
from keybench.design.plans import (
    DEFAULT_WINDOW_S,
)
from keybench.errors import check_range
from keybench.model.keycolumns import (
    START_US,
    EventColumns,
    encode_events,
    index_rows,
    make_events,
)
from keybench.model.keystream import KeyStream
from keybench.model.model_result import ModelResult
from keybench.model.params import (
    DEFAULT_RATE_PER_S,
    DEFAULT_READS,
    MAX_READS,
    MAX_ROWS,
    SplitParams,
)
from keybench.model.sampled_reads import add_sample_reads, build_reads, sample_read_plan
from keybench.model.shape import key_shape
from keybench.model.sketches import key_hashes
from keybench.model.splitmodel import SpaceModel, check_model_budget
from keybench.model.verdict import judge

CHUNK_ROWS = 1_000_000  # rows generated at a time: bounds the temporary arrays


# --- reads -------------------------------------------------------------------------------------


# --- the whole simulation ------------------------------------------------------------------------

def _initial_rows(strategy, seed: int, population: int) -> KeyStream:
    """A migration's source rows, the data the table starts with, as a stream's initial rows."""
    stream = KeyStream()
    if strategy.preload:
        spec = strategy.preload
        keys = preload_keys(spec["keys"], spec["rows"], seed, tuple(spec.get("with_keys", ())))
        stream.record_initial(KeyEncoder(strategy), [((k,), WriteEvent(i % population + 1,
                                                                       START_US - 86_400_000_000 + i * 1000,
                                                                          "", 0)) for i, k in enumerate(keys)])
    return stream


def _chunks(strategy, rows: int, seed: int, population: int, rate_per_s: float, skew: Skew):
    """(events, {space: (times, keys, lengths, units)}) per block of CHUNK_ROWS inserts."""
    for first in range(0, rows, CHUNK_ROWS):
        events = make_events(min(CHUNK_ROWS, rows - first), population, seed, rate_per_s, first, skew)
        times = events.ts_us / 1e6
        held = index_rows(strategy, events)
        spaces = {}
        for space, (keys, lengths, units) in encode_events(strategy, events, seed, held).items():
            kept = held.get(space, slice(None))  # a NULL_FILTERED index: the rows with its key columns set
            spaces[space] = (times[kept], keys, lengths, units)
        yield events, spaces


def simulate_stream(strategy, rows: int, seed: int = DEFAULT_SEED, population: int = DEFAULT_POPULATION,
                    rate_per_s: float = DEFAULT_RATE_PER_S, reads_per_operation: int = DEFAULT_READS,
                    read_window_s: float = DEFAULT_WINDOW_S, skew: Skew = UNIFORM) -> KeyStream:
    """The key stream a run of `rows` inserts at a steady rate would write, plus sample reads
    (a time_window read covers the last `read_window_s` seconds), held in memory."""
    stream = _initial_rows(strategy, seed, population)
    entities = []
    for events, spaces in _chunks(strategy, rows, seed, population, rate_per_s, skew):
        for space, (times, keys, lengths, units) in spaces.items():
            stream.add_writes(space, times, keys, lengths, units)
        entities.append(events.entity.astype(np.int32))
    if reads_per_operation and entities:
        entity = np.concatenate(entities)
        # Times and insert numbers follow from the position: rebuilt, not kept per chunk.
        seq = np.arange(1, rows + 1, dtype=np.int64)
        events = EventColumns(entity, START_US + np.floor((seq - 1) * (1_000_000 / rate_per_s)).astype(np.int64), seq)
        # The stream already holds the table keys; reuse its arrays rather than joining the chunks again.
        _, keys, lengths = stream.writes(TABLE_SPACE)
        add_sample_reads(stream, strategy, events, keys, lengths, reads_per_operation, seed, read_window_s)
    return stream


def _space_writes(strategy, rows: int, seed: int, population: int, rate_per_s: float, skew: Skew) -> dict[str, int]:
    """Writes per key space: every insert writes the table and each index, except a
    NULL_FILTERED index, whose entries are counted in a first pass over the events."""
    counts = {TABLE_SPACE: rows, **{index.name: 0 if index.null_filtered else rows for index in strategy.indexes}}
    if any(index.null_filtered for index in strategy.indexes):
        for first in range(0, rows, CHUNK_ROWS):
            events = make_events(min(CHUNK_ROWS, rows - first), population, seed, rate_per_s, first, skew)
            for name, mask in index_rows(strategy, events).items():
                counts[name] += int(mask.sum())
    return counts


# A simulation of this many rows or more models its table in a helper process while this
# one generates the next block of keys: on two cores, generating and modelling overlap.
HELPER_ROWS = 2 * CHUNK_ROWS


def simulate_model(strategy, rows: int, params: SplitParams, seed: int = DEFAULT_SEED,
                   population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                   reads_per_operation: int = DEFAULT_READS, read_window_s: float = DEFAULT_WINDOW_S,
                   skew: Skew = UNIFORM, helper: bool | None = None) -> ModelResult:
    """The split model over the stream `simulate_stream` would make, generated and modelled
    a block of inserts at a time: memory stays bounded whatever `rows` is. `helper` (by
    default from HELPER_ROWS on): the table is modelled in a helper process, beside the
    generation; the same figures, and a helper that fails leaves the work to this process."""
    check_model_budget(params, TABLE_SPACE, rows, 1)  # before hours of generating what could never be modelled
    args = (strategy, rows, params, seed, population, rate_per_s, reads_per_operation, read_window_s, skew)
    if helper is None:
        helper = rows >= HELPER_ROWS
    if not helper:
        return _simulate_model(*args, None)
    from keybench.children import PlainProcess, PlainProcessError

    process = PlainProcess()
    try:
        return _simulate_model(*args, process)
    except PlainProcessError as exc:
        print(f"keybench: the model's helper process failed ({exc}); modelling in this process only",
              file=sys.stderr, flush=True)
        return _simulate_model(*args, None)
    finally:
        process.close()


class _HelpedSpace:
    """A space modelled in a helper process, a block of writes at a time: the helper models
    one block while this process makes the next. The blocks pass through memory both map
    (a memfd the helper opens by /proc), not through the pipe: a pickle of 50 MB through a
    pipe costs as much as making the keys."""

    def __init__(self, process, params: SplitParams, space: str, writes: int, initial):
        self.process, self.space = process, space
        self.reads: list = []
        self.waited = 0.0  # how long this process last waited for the helper
        self.hashing = 0.0  # how long hashing a block here last took
        self.fd = os.memfd_create("keybench-block", os.MFD_CLOEXEC)
        self.block: mmap.mmap | None = None
        self.path = f"/proc/{os.getpid()}/fd/{self.fd}"
        process.call(open_space, params, space, writes, initial)

    def add_reads(self, reads) -> None:
        self.reads.extend(reads)

    def add(self, times, keys, lengths, units) -> None:
        if self.process.busy:
            began = time.perf_counter()
            self.process.receive()  # the block before is modelled (and copied out of the shared memory)
            self.waited = time.perf_counter() - began
        named = {"times": times, "keys": keys, "lengths": lengths, "units": units}
        if self.hashes_here():
            began = time.perf_counter()
            named["hashes"] = key_hashes(keys)
            self.hashing = time.perf_counter() - began
        names = [name for name, a in named.items() if a is not None]
        arrays = [np.ascontiguousarray(named[name]) for name in names]
        size = sum(a.nbytes for a in arrays)
        if self.block is None or len(self.block) < size:
            if self.block is not None:
                self.block.close()
            os.ftruncate(self.fd, max(size, 1))
            self.block = mmap.mmap(self.fd, max(size, 1))
        layout, offset = [], 0
        for name, a in zip(names, arrays, strict=True):
            self.block[offset:offset + a.nbytes] = a.reshape(-1).view(np.uint8).data
            layout.append((name, offset, a.dtype.str, len(a)))
            offset += a.nbytes
        self.process.send(feed_space, self.space, self.reads, self.path, layout)
        self.reads = []

    def hashes_here(self) -> bool:
        """Whether the helper is the slower of the two: then the keys are hashed here, in
        time this process would spend waiting for it (the same hashes, see SpaceModel.add)."""
        return self.waited > self.hashing

    def finish(self):
        try:
            if self.process.busy:
                self.process.receive()
            return self.process.call(finish_space, self.space, self.reads)
        finally:
            if self.block is not None:
                self.block.close()
            os.close(self.fd)


_HELD: dict[str, SpaceModel] = {}  # in a helper process: the spaces it models
_MAPPED: dict[str, mmap.mmap] = {}  # in a helper process: the memory blocks come through


def open_space(params: SplitParams, space: str, writes: int, initial) -> None:
    _HELD[space] = SpaceModel(params, space, writes, initial)


def feed_space(space: str, reads: list, path: str, layout: list[tuple[str, int, str, int]]) -> None:
    """Models a block of writes the caller put at `layout` (SpaceModel.add's argument, offset,
    dtype, count) in `path`."""
    end = max(offset + np.dtype(dtype).itemsize * count for _, offset, dtype, count in layout)
    block = _MAPPED.get(path)
    if block is None or len(block) < end:
        if block is not None:
            block.close()
        with open(path, "r+b") as file:
            block = _MAPPED[path] = mmap.mmap(file.fileno(), 0)
    # copies: the caller reuses the memory for its next block, and the model keeps recent writes
    arrays = {name: np.frombuffer(block, dtype=dtype, count=count, offset=offset).copy()
              for name, offset, dtype, count in layout}
    model = _HELD[space]
    model.add_reads(reads)
    model.add(**arrays)


def finish_space(space: str, reads: list):
    model = _HELD.pop(space)
    model.add_reads(reads)
    for block in _MAPPED.values():
        block.close()
    _MAPPED.clear()
    return model.finish()


def _simulate_model(strategy, rows: int, params: SplitParams, seed: int, population: int, rate_per_s: float,
                    reads_per_operation: int, read_window_s: float, skew: Skew, process) -> ModelResult:
    initial = _initial_rows(strategy, seed, population)
    writes = _space_writes(strategy, rows, seed, population, rate_per_s, skew)
    models: dict[str, SpaceModel | _HelpedSpace] = {}
    plan = sample_read_plan(strategy, rows, reads_per_operation, seed)
    wanted = {r.row for r in plan if r.row is not None}
    rows_at: dict[int, tuple[bytes, int]] = {}  # the rows reads ask for: table key and entity
    step_us = 1_000_000 / rate_per_s
    for events, spaces in _chunks(strategy, rows, seed, population, rate_per_s, skew):
        first = int(events.seq[0]) - 1
        _, keys, lengths, _ = spaces[TABLE_SPACE]
        for row in sorted(r for r in wanted if first <= r < first + len(events)):
            rows_at[row] = (keys[row - first].ljust(int(lengths[row - first]), b"\x00"),
                            int(events.entity[row - first]))
        for space in spaces:
            if space not in models and writes.get(space, 0):
                models[space] = (_HelpedSpace(process, params, space, writes[space], initial.initial(space))
                                 if process is not None and space == TABLE_SPACE else
                                 SpaceModel(params, space, writes[space], initial.initial(space)))
        due = [r for r in plan if first <= r.position < first + len(events)]
        for t_s, intervals, space, op in build_reads(strategy, due, lambda row: rows_at[row][0],
                                                     lambda row: rows_at[row][1],
                                                     lambda p: START_US + int(np.floor(p * step_us)), read_window_s):
            if space in models:
                models[space].add_reads([(t_s, intervals, op)])
        for space, (times, keys, lengths, units) in spaces.items():
            if space in models and len(times):
                models[space].add(times, keys, lengths, units)
    result = ModelResult(nodes=params.nodes, shape=key_shape(strategy, DEFAULT_PAYLOAD_BYTES))
    for space, model in models.items():
        result.spaces[space] = model.finish()
    return result


def simulate_strategy(strategy, rows: int, nodes: int | None = None, seed: int = DEFAULT_SEED,
                      population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                      reads_per_operation: int = DEFAULT_READS,
                      params: SplitParams | None = None, read_window_s: float | None = None,
                      skew: Skew = UNIFORM) -> ModelResult:
    """Generates `rows` writes with the strategy's key generator (no database), a sample of its
    reads, and runs the split model. `params` overrides the model's defaults; `nodes`, when
    given, replaces its node count.

    The model's ranges are scaled to the run (see SplitParams), so a read's span of time is
    scaled too: by default a time_window read covers a tenth of one model window's writes,
    as 2 s of writes are a sliver of a multi-GB split in production."""
    check_range("--rows", rows, 1, MAX_ROWS)
    check_range("--population", population, 1, MAX_POPULATION)
    check_range("--reads", reads_per_operation, 0, MAX_READS)
    params = params or SplitParams()
    if nodes is not None:
        params = replace(params, nodes=nodes)
    params.validate()
    if read_window_s is None:
        read_window_s = params.window_size(rows) / 10 / rate_per_s
    return simulate_model(strategy, rows, params, seed, population, rate_per_s, reads_per_operation, read_window_s,
                          skew)


def simulate_verdicts(chosen, rows: int, seed: int = DEFAULT_SEED, population: int = DEFAULT_POPULATION,
                      params: SplitParams | None = None, reads_per_operation: int = DEFAULT_READS,
                      skew: Skew = UNIFORM) -> list[dict]:
    """Per strategy: its simulated stream's verdict against its claim, then every model figure."""
    out = []
    for strategy in chosen:
        result = simulate_strategy(strategy, rows, seed=seed, population=population, params=params,
                                   reads_per_operation=reads_per_operation, skew=skew)
        verdict = judge(result)
        out.append({"backend": strategy.backend, "strategy": strategy.name, "dialect": strategy.dialect,
                    "rows": rows, "skew": str(skew), "expected": strategy.claim, "verdict": verdict.verdict,
                    "agrees": verdict.agreement(strategy.claim),
                    "hot_node_share_se": round(verdict.hot_node_share_se, 4), "verdict_reason": verdict.reason,
                    **result.summary()})
    return out
