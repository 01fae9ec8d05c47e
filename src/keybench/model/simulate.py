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


def simulate_model(strategy, rows: int, params: SplitParams, seed: int = DEFAULT_SEED,
                   population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                   reads_per_operation: int = DEFAULT_READS, read_window_s: float = DEFAULT_WINDOW_S,
                   skew: Skew = UNIFORM) -> ModelResult:
    """The split model over the stream `simulate_stream` would make, generated and modelled
    a block of inserts at a time: memory stays bounded whatever `rows` is."""
    check_model_budget(params, TABLE_SPACE, rows, 1)  # before hours of generating what could never be modelled
    initial = _initial_rows(strategy, seed, population)
    writes = _space_writes(strategy, rows, seed, population, rate_per_s, skew)
    models: dict[str, SpaceModel] = {}
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
                models[space] = SpaceModel(params, space, writes[space], initial.initial(space))
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
