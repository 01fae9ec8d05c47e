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
import weakref
from collections import deque
from dataclasses import replace

import numpy as np

from keybench.backends.base import DEFAULT_PAYLOAD_BYTES
from keybench.design.byteorder import TABLE_SPACE, KeyEncoder
from keybench.design.distributions import UNIFORM, Skew
from keybench.design.events import WriteEvent
from keybench.design.keys import (
    DEFAULT_POPULATION,
    DEFAULT_SEED,
    MAX_POPULATION,
    preload_keys,
)
from keybench.design.plans import DEFAULT_WINDOW_S
from keybench.errors import check_range
from keybench.model.keycolumns import (
    START_US,
    EventColumns,
    encode_events,
    index_rows,
    make_events,
)
from keybench.model.keyorder import common_prefix, key_order
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
from keybench.model.splitmodel import SpaceModel, check_model_budget, held_writes, unit_keys_of
from keybench.model.verdict import judge

CHUNK_ROWS = 1_000_000  # rows generated at a time: bounds the temporary arrays


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
        del events, times, held, spaces, keys, lengths, units  # not alive beside the next block's


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


# A simulation of this many rows or more models its spaces in a helper process while this
# one generates the next block of keys: on two cores, generating and modelling overlap.
HELPER_ROWS = 2 * CHUNK_ROWS


def simulate_model(strategy, rows: int, params: SplitParams, seed: int = DEFAULT_SEED,
                   population: int = DEFAULT_POPULATION, rate_per_s: float = DEFAULT_RATE_PER_S,
                   reads_per_operation: int = DEFAULT_READS, read_window_s: float = DEFAULT_WINDOW_S,
                   skew: Skew = UNIFORM, helper: bool | None = None) -> ModelResult:
    """The split model over the stream `simulate_stream` would make, generated and modelled
    a block of inserts at a time: memory stays bounded whatever `rows` is. `helper` (by
    default from HELPER_ROWS on): the spaces are modelled in a helper process, beside the
    generation; the same figures, and a helper that fails leaves the work to this process."""
    check_model_budget(params, TABLE_SPACE, rows, 1)  # before hours of generating what could never be modelled
    args = (strategy, rows, params, seed, population, rate_per_s, reads_per_operation, read_window_s, skew)
    if helper is None:
        helper = rows >= HELPER_ROWS
    if not helper:
        return _simulate_model(*args, None)
    from keybench.children import PlainProcess, PlainProcessError

    process = _Helper(PlainProcess())
    try:
        return _simulate_model(*args, process)
    except PlainProcessError as exc:
        print(f"keybench: the model's helper process failed ({exc}); modelling in this process only",
              file=sys.stderr, flush=True)
        return _simulate_model(*args, None)
    finally:
        process.close()


class _SharedBlock:
    """Memory this process and the helper both map (a memfd the helper opens by /proc)."""

    def __init__(self, size: int):
        self.fd = os.memfd_create("keybench-block", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, size)
        self.memory = mmap.mmap(self.fd, size)
        self.path = f"/proc/{os.getpid()}/fd/{self.fd}"

    def close(self) -> None:
        self.memory.close()
        os.close(self.fd)


class _Helper:
    """The helper process, which models the blocks of every space (the table and each
    index): one helper, not one per space, so that the work this process can take from it
    (hashing, ordering: _HelpedSpace) is taken from the one that is behind, and two cores
    are not shared by three processes. A block of each space may be in flight: the helper
    models the next while this process makes the keys of the next insert block.

    The blocks pass through memory both processes map, not through the pipe (a pickle of
    50 MB through a pipe costs as much as making the keys), and the helper models them where
    they lie: a block is written again only once the helper says no model of its holds any
    of it any more (feed_space)."""

    def __init__(self, process):
        self.process = process
        self.spaces = 0  # the spaces it models
        self.in_flight: deque[str] = deque()  # the spaces whose blocks were sent and not yet answered, in turn
        self.prefixes: dict[str, int | None] = {}  # by space: the prefix its keys share, as the helper last said
        self.free: list[_SharedBlock] = []
        self.held: dict[str, _SharedBlock] = {}  # by path: blocks the helper's models may still read

    def block(self, size: int) -> _SharedBlock:
        """A free block of at least `size` bytes (its pages already faulted in, where one is free)."""
        while self.free:
            block = self.free.pop()
            if len(block.memory) >= size:
                return block
            block.close()
        return _SharedBlock(size)

    def feed(self, space: str, reads: list, block: _SharedBlock, layout: list) -> None:
        self.held[block.path] = block
        self.process.send(feed_space, space, reads, block.path, layout)
        self.in_flight.append(space)

    def wait(self, in_flight: int = 0) -> float | None:
        """Waits until at most `in_flight` blocks are in flight; how long that took (None: no
        more were)."""
        if len(self.in_flight) <= in_flight:
            return None
        began = time.perf_counter()
        while len(self.in_flight) > in_flight:
            released, self.prefixes[self.in_flight.popleft()] = self.process.receive()
            self.free.extend(self.held.pop(path) for path in released)
        return time.perf_counter() - began

    def room(self) -> float | None:
        """Waits until a block may be sent: a block of each space in flight keeps the helper
        busy while this process makes the next ones."""
        return self.wait(self.spaces - 1)

    def open(self, params: SplitParams, space: str, writes: int, initial) -> None:
        self.call(open_space, params, space, writes, initial)
        self.spaces += 1

    def call(self, function, *args):
        self.wait()
        return self.process.call(function, *args)

    def close(self) -> None:
        for block in [*self.free, *self.held.values()]:
            block.close()
        self.free, self.held = [], {}
        self.process.close()


class _HelpedSpace:
    """A space modelled in the helper, a block of writes at a time: the helper models one
    block while this process makes the next."""

    def __init__(self, helper: _Helper, params: SplitParams, space: str, writes: int, initial):
        self.helper, self.space = helper, space
        self.reads: list = []
        self.waited = 0.0  # how long this process last waited for the helper
        self.hashing = 0.0  # how long hashing a block here last took
        # The helper's windows whose key order this process computes (windows_to_order).
        self.window = held_writes(params, writes)[0]
        self.fed = 0  # writes sent to the helper
        self.ordered = 0  # windows a block ordered here
        self.ordering = 0.0  # how long ordering one window here last took
        helper.open(params, space, writes, initial)

    def add_reads(self, reads) -> None:
        self.reads.extend(reads)

    def add(self, times, keys, lengths, units) -> None:
        """The block is made ready for the helper (hashed, ordered, in shared memory) while
        the helper models the one before: nothing this process does for a block is done while
        the helper waits for it."""
        named = {"times": times, "keys": keys, "lengths": lengths, "units": units}
        if self.hashes_here():
            began = time.perf_counter()
            named["hashes"] = key_hashes(keys)
            self.hashing = time.perf_counter() - began
        most, self.ordered = self.windows_to_order(), 0
        if most:
            began = time.perf_counter()
            orders, self.ordered = window_orders(keys, lengths, units, self.fed, self.window, most,
                                                 self.helper.prefixes.get(self.space))
            if self.ordered:  # (fewer where the block holds fewer whole windows, none where the helper needs none)
                named["orders"] = orders
                self.ordering = (time.perf_counter() - began) / self.ordered
        self.fed += len(keys)
        names = [name for name, a in named.items() if a is not None]
        arrays = [np.ascontiguousarray(named[name]) for name in names]
        block = self.helper.block(max(1, sum(a.nbytes for a in arrays)))
        layout, offset = [], 0
        for name, a in zip(names, arrays, strict=True):
            block.memory[offset:offset + a.nbytes] = a.reshape(-1).view(np.uint8).data
            layout.append((name, offset, a.dtype.str, len(a)))
            offset += a.nbytes
        waited = self.helper.room()
        if waited is not None:
            self.waited = waited
        self.helper.feed(self.space, self.reads, block, layout)
        self.reads = []

    def hashes_here(self) -> bool:
        """Whether the helper is the slower of the two: then the keys are hashed here, in
        time this process would spend waiting for it (the same hashes, see SpaceModel.add)."""
        return self.waited > self.hashing

    def windows_to_order(self) -> int:
        """How many of the block's windows to order here (window_orders): one more than the
        block before while this process still waits for the helper, one fewer once it hardly
        does; so the two processes come to share the work."""
        threshold = self.ordering or FIRST_ORDERING_S
        if self.waited > threshold:
            return self.ordered + 1
        return max(0, self.ordered - 1) if self.waited < threshold / 4 else self.ordered

    def finish(self):
        return self.helper.call(finish_space, self.space, self.reads)


FIRST_ORDERING_S = 0.005  # a wait for the helper worth ordering a first window here


def window_orders(keys, lengths, units, fed: int, window: int, most: int,
                  prefix: int | None) -> tuple[np.ndarray, int]:
    """The key order of at most `most` of the model's windows that lie wholly in this block
    of writes, as SpaceModel.add takes it (the model takes its windows `window` writes at a
    time from its first write; `fed` writes came before the block): each window's key_order
    of its split units, indices within the window, -1 for the other writes; and how many
    windows it ordered: none where the units are no wider than the `prefix` the helper's
    keys share and one word (the helper orders them by their words alone)."""
    orders = np.full(len(keys), -1, dtype=np.intp)
    ordered = 0
    start = -(-fed // window) * window - fed  # the first window that begins in the block
    while ordered < most and start + window <= len(keys):
        span = slice(start, start + window)
        span_units = unit_keys_of(keys[span], lengths[span], None if units is None else units[span])
        if prefix is None or span_units.dtype.itemsize <= prefix + 8:
            break
        orders[span] = key_order(span_units, common_prefix(span_units))
        ordered += 1
        start += window
    return orders, ordered


_HELD: dict[str, SpaceModel] = {}  # in a helper process: the spaces it models
_RELEASED: list[str] = []  # in a helper process: blocks its models no longer hold, not yet told


def open_space(params: SplitParams, space: str, writes: int, initial) -> None:
    _HELD[space] = SpaceModel(params, space, writes, initial)


def feed_space(space: str, reads: list, path: str,
               layout: list[tuple[str, int, str, int]]) -> tuple[list[str], int | None]:
    """Models a block of writes the caller put at `layout` (SpaceModel.add's argument, offset,
    dtype, count) in `path`, in place. Returns the paths of the blocks no array of the model
    refers to any more (the mapping ends with its last array), which the caller may reuse,
    and the prefix the model's keys share (see window_orders)."""
    with open(path, "r+b") as file:
        block = mmap.mmap(file.fileno(), 0)
    weakref.finalize(block, _RELEASED.append, path)
    arrays = {name: np.frombuffer(block, dtype=dtype, count=count, offset=offset)
              for name, offset, dtype, count in layout}
    del block
    model = _HELD[space]
    model.add_reads(reads)
    model.add(**arrays)
    del arrays
    released = _RELEASED[:]
    _RELEASED.clear()
    return released, model.prefix


def finish_space(space: str, reads: list):
    model = _HELD.pop(space)
    model.add_reads(reads)
    return model.finish()


def _rows_read(table, events: EventColumns, wanted: set[int]) -> dict[int, tuple[bytes, int]]:
    """The table key and entity of each row of the block a read asks for (`wanted`: rows from 0)."""
    _, keys, lengths, _ = table
    first = int(events.seq[0]) - 1
    return {row: (keys[row - first].ljust(int(lengths[row - first]), b"\x00"), int(events.entity[row - first]))
            for row in sorted(wanted) if first <= row < first + len(events)}


def _simulate_model(strategy, rows: int, params: SplitParams, seed: int, population: int, rate_per_s: float,
                    reads_per_operation: int, read_window_s: float, skew: Skew,
                    helper: _Helper | None) -> ModelResult:
    initial = _initial_rows(strategy, seed, population)
    writes = _space_writes(strategy, rows, seed, population, rate_per_s, skew)
    models: dict[str, SpaceModel | _HelpedSpace] = {}
    plan = sample_read_plan(strategy, rows, reads_per_operation, seed)
    wanted = {r.row for r in plan if r.row is not None}
    rows_at: dict[int, tuple[bytes, int]] = {}  # the rows reads ask for: table key and entity
    step_us = 1_000_000 / rate_per_s
    for events, spaces in _chunks(strategy, rows, seed, population, rate_per_s, skew):
        first = int(events.seq[0]) - 1
        rows_at.update(_rows_read(spaces[TABLE_SPACE], events, wanted))
        for space in spaces:
            if space not in models and writes.get(space, 0):
                models[space] = (_HelpedSpace(helper, params, space, writes[space], initial.initial(space))
                                 if helper is not None else
                                 SpaceModel(params, space, writes[space], initial.initial(space)))
        due = [r for r in plan if first <= r.position < first + len(events)]
        for t_s, intervals, space, op in build_reads(strategy, due, lambda row: rows_at[row][0],
                                                     lambda row: rows_at[row][1],
                                                     lambda p: START_US + int(np.floor(p * step_us)), read_window_s):
            if space in models:
                models[space].add_reads([(t_s, intervals, op)])
        for space, block in spaces.items():
            if space in models and len(block[0]):
                models[space].add(*block)
        del events, spaces, block  # the block's arrays end before the next block's are made (_chunks's too)
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
