"""The split model: which node would serve each write, had the database split its key space.

The emulators keep every table in one piece, so a hotspot never shows in their latency.
This model asks of a recorded (or simulated) key stream what the documents ask of a key
design: once the database has split the table and balanced it, do new writes spread over
the nodes, pile up at one place in the key space, or pile up on one row?

The estimator (results/README.md, "The split model", explains it and its uncertainty):

- the writes, in time order, are cut into windows of equal write count;
- the steady state before each window: the key space held so far (the rows written before
  the window, and a migration's initial rows) cut into `ranges_per_node * nodes` ranges at
  quantiles of its rows, so that every range holds as much data, as size-based splitting
  leaves a table. Ranges split only between split units: rows, or root rows for an
  interleaved table or index (the rows of one root row stay together);
- each window's writes are dealt at random into two halves. The ranges are placed on
  the nodes by the load of one half (heaviest first onto the least-loaded node, each range
  also counting as much load as an average one, since equally sized ranges are balanced
  by size too); the node that half makes busiest is the hot node, and its share of the
  *other* half's writes is the estimate. Then the halves swap roles. Picking the hot node
  on the writes that measure it would report noise as a hotspot (the busiest of 32 equal
  nodes always looks busy in a few hundred writes); cross-fitting does not, so a short
  stream of a spread key reads about 1/N, as a long one does;
- new keys that land past the rows held so far (a key that grows with time) all fall in
  the last range, whatever the window's size, so a monotonic key reads about 1.0;
- the busiest split unit's share is estimated the same way (chosen on one half, measured
  on the other): a design whose writes pile onto one row (or one root row) reads hot_row.

The replay streams (SpaceModel): it takes the writes a window at a time and keeps a bounded
state between windows, the recent writes the balancer remembers, a sample of the units held
(for the cuts by size) and a sample of the rows with their exact write counts plus a table of
the most written rows (sketches.py). Below HELD_SAMPLE distinct units and ROW_SAMPLE rows
the samples hold everything and every figure is exact; past them they are uniform samples by
hash, which leaves the cuts by size off by about sqrt(p (1 - p) / HELD_SAMPLE / 2) of the
units held, and the row figures estimated (results/README.md, "The split model", item 9).

Each key space (the table, each Spanner index) is modelled separately; a strategy's
headline is its worst space, so an index that hotspots shows on a table that does not.
Every figure here is **modelled** from the key stream, never measured.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from keybench.design.byteorder import TABLE_SPACE
from keybench.errors import KeybenchError
from keybench.model.keyorder import (
    common_prefix,
    key_order,
    order_statistics,
    ordered_range_counts,
    ordered_range_of,
    prefix_words,
    quantile_positions,
    range_counts,
    range_of,
    same_width,
)
from keybench.model.keystream import KeyStream
from keybench.model.memo import SpaceInputs, SpaceMemo
from keybench.model.model_result import ModelResult, SpaceMetrics
from keybench.model.params import MODEL_MEMORY_BYTES, SplitParams, held_write_bytes
from keybench.model.placement import WindowEstimate, estimate_window, window_halves
from keybench.model.readspans import IntervalSpans, interval_spans
from keybench.model.saved_stream import SavedKeyStream
from keybench.model.shape import KeyShape
from keybench.model.sketches import DistinctSample, RowSample, key_hashes
from keybench.model.textcolumns import first_bytes, zero_past

# Writes as the model takes them: times, keys, lengths, split-unit lengths (None: whole keys),
# the keys' hashes (None: not yet hashed) and each window's key order, indices within the
# window (simulate.window_orders; None, or -1 for a window's writes, where not yet known).
Block = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray | None]


def _sliced(block: Block, at: slice) -> Block:
    times, keys, lengths, *rest = block
    units, hashes, orders = (None if a is None else a[at] for a in rest)
    return times[at], keys[at], lengths[at], units, hashes, orders


# The recent writes' units, their words, and either their words sorted or their key order.
Recent = tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]

RECENT_WRITES_PER_RANGE = 8  # writes the balancer remembers per range: cuts from fewer are noise


def unit_keys_of(keys: np.ndarray, lengths: np.ndarray, units: np.ndarray | None) -> np.ndarray:
    """Each key cut to its split unit (the leading `units` bytes), as wide as the widest unit
    (a narrow unit fits the model's 8-byte words, which then decide alone); the keys
    themselves when every key is its own unit."""
    if units is None or not len(keys) or np.all(units >= lengths):
        return keys
    width = max(1, min(keys.dtype.itemsize, int(units.max())))
    matrix = first_bytes(keys, width)
    zero_past(matrix, units.astype(np.int64))
    return matrix.view(f"S{width}").ravel()


# Distinct split units the model keeps to cut the held key space at its quantiles, and rows
# whose write counts it keeps: the model's memory, whatever the stream's length. Below these
# counts it is exact; past them, a uniform sample (results/README.md, "The split model").
HELD_SAMPLE = 1 << 17
ROW_SAMPLE = 1 << 17


def held_writes(params: SplitParams, writes: int) -> tuple[int, int]:
    """A model of `writes`: its window, and the recent writes its balancer remembers (enough to
    cut every range at quantiles of RECENT_WRITES_PER_RANGE writes each, and at least one window)."""
    window = params.window_size(writes)
    return window, max(window, RECENT_WRITES_PER_RANGE * params.ranges)


def check_model_budget(params: SplitParams, space: str, writes: int, key_bytes: int) -> None:
    """Refuse, in one line, a model of `writes` whose window and recent writes, keys of
    `key_bytes`, would not fit MODEL_MEMORY_BYTES."""
    window, memory = (min(n, writes) for n in held_writes(params, writes))  # never more than the stream has
    need = (window + memory) * held_write_bytes(key_bytes)
    if need > MODEL_MEMORY_BYTES:
        raise KeybenchError(
            f"the model of {space} would hold {window + memory:,} writes at once (a window "
            f"of {window:,} and {memory:,} recent), {need / 1024**3:.1f} GiB or more with keys of {key_bytes} "
            f"byte(s) or more, over its "
            f"{MODEL_MEMORY_BYTES / 1024**3:g} GiB budget: model fewer rows, smaller windows or fewer nodes")


class SpaceModel:
    """One key space's replay, fed its writes in time order in chunks of any size: it keeps
    the current window, the recent writes the balancer remembers, a sample of the units held
    and a sample of the rows (sketches.py), never the whole stream."""

    def __init__(self, params: SplitParams, space: str, writes: int,
                 initial: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None):
        self.params, self.space, self.writes = params, space, writes
        self.nodes, self.ranges = params.nodes, params.ranges
        self.window, self.memory = held_writes(params, writes)
        self.held = DistinctSample(max(HELD_SAMPLE, 16 * self.ranges))
        self.rows = RowSample(ROW_SAMPLE)
        self.lowest: bytes | None = None  # the smallest unit held: the space's first range starts there
        self.pending: list[Block] = []  # writes not yet a whole window
        self.pending_count = 0
        # Units are compared by the 8 bytes after the prefix they all share (keyorder.py).
        self.reference: np.ndarray | None = None
        self.prefix: int | None = None
        self.recent: list[np.ndarray] = []
        self.recent_words: list[np.ndarray] = []
        self.recent_orders: list[np.ndarray | None] = []  # each block's key_order, where its words do not decide
        self.previous = np.zeros(0, dtype="S1")
        self.previous_words = np.zeros(0, dtype=np.uint64)
        self.previous_order: np.ndarray | None = None
        self.k = 0
        self.seen = 0
        self.key_bytes = 0
        self.first_time = self.last_time = 0.0
        self.estimates: list[tuple[WindowEstimate, int, float]] = []  # estimate, writes, units held before
        self.reads: list[tuple[float, list, str]] = []  # not yet given a window
        self.read_cuts: np.ndarray | None = None  # the equal-size cuts of the last window begun
        self.spans: list[tuple[str, IntervalSpans]] = []  # reads given a window, their ranges still open
        if initial is not None and len(initial[0]):
            self._hold(unit_keys_of(*initial))

    def _hold(self, units: np.ndarray, hashes: np.ndarray | None = None, words: np.ndarray | None = None,
              order: np.ndarray | None = None, hash_order: np.ndarray | None = None) -> None:
        """Units now held: into the sample; the lowest and the prefix all share kept. `words`,
        when given, are the units' words after the prefix, which then already covers them;
        `order` their key_order and `hash_order` the argsort of their hashes, if known."""
        if not len(units):
            return
        if words is None:
            words = prefix_words(units, self._share_prefix(units))
        self.held.add(units, key_hashes(units) if hashes is None else hashes, hash_order)
        low = units[order[0]] if order is not None else np.sort(units[words == words.min()])[0]
        if self.lowest is None or low < self.lowest:
            self.lowest = low

    def _share_prefix(self, units: np.ndarray) -> int:
        """Narrows the prefix every unit seen shares (and returns it); the recent writes' words
        follow it."""
        if self.reference is None:
            self.reference = units[:1]
        prefix = common_prefix(self.reference, units, limit=self.prefix)
        if prefix != self.prefix:
            self.prefix = prefix
            self.recent_words = [prefix_words(block, prefix) for block in self.recent]
            self.previous_words = prefix_words(self.previous, prefix)
        return prefix

    def add_reads(self, reads) -> None:
        """(time, intervals, operation) reads, before the writes of their time are added."""
        self.reads.extend(reads)

    def add(self, times: np.ndarray, keys: np.ndarray, lengths: np.ndarray, units: np.ndarray | None = None,
            hashes: np.ndarray | None = None, orders: np.ndarray | None = None) -> None:
        """Writes in time order (after every write added before); `hashes`, if the caller has
        them, key_hashes(keys), and `orders` (see Block) (a caller making the keys in another
        process computes them there, in time it would spend waiting for this one)."""
        if not self.pending:
            check_model_budget(self.params, self.space, self.writes, keys.dtype.itemsize)
        self.pending.append((np.asarray(times, dtype=np.float64), keys, np.asarray(lengths),
                             None if units is None else np.asarray(units), hashes, orders))
        self.pending_count += len(times)
        while self.pending_count >= self.window:
            self._window(*self._take(self.window))

    def _take(self, count: int) -> Block:
        taken, rest, need = [], [], count
        for block in self.pending:
            if need <= 0:
                rest.append(block)
                continue
            n = len(block[0])
            if n <= need:
                taken.append(block)
            else:
                taken.append(_sliced(block, slice(None, need)))
                rest.append(_sliced(block, slice(need, None)))
            need -= min(n, need)
        self.pending, self.pending_count = rest, self.pending_count - count
        times = np.concatenate([b[0] for b in taken])
        keys = np.concatenate([b[1] for b in taken]) if len(taken) > 1 else taken[0][1]
        lengths = np.concatenate([b[2] for b in taken])
        units = None if all(b[3] is None for b in taken) else np.concatenate(
            [b[2] if b[3] is None else b[3] for b in taken])
        hashes = None if any(b[4] is None for b in taken) else np.concatenate([b[4] for b in taken])
        orders = None if any(b[5] is None for b in taken) else np.concatenate([b[5] for b in taken])
        return times, keys, lengths, units, hashes, orders

    def _recent(self) -> Recent:
        """The recent writes' units, their words, and their key order if known, else their words sorted."""
        if not self.recent:
            return np.zeros(0, "S1"), np.zeros(0, np.uint64), np.zeros(0, np.uint64), None
        if len(self.recent) == 1:
            keys, words, order = self.recent[0], self.recent_words[0], self.recent_orders[0]
            return keys, words, None if order is not None else np.sort(words), order
        words = np.concatenate(self.recent_words)
        return np.concatenate(self.recent), words, np.sort(words), None

    def _cuts(self, recent: Recent) -> np.ndarray:
        """The range boundaries before a window (as keys): ranges / 4 pieces at quantiles of
        the units held (data no write touches any more, a migration's source, is split by
        size only), `ranges` pieces at quantiles of the units the recent writes went to
        (where the writes go, load splits cut the ranges); the first range starts at the
        lowest unit held."""
        by_size = self.held.quantile_cuts(max(1, self.ranges // 4))
        keys, words, ordered, order = recent
        positions = quantile_positions(len(keys), self.ranges)
        if order is not None:
            by_load = keys[order[positions]]
        else:
            by_load = order_statistics(keys, positions, self.prefix, words, ordered) if len(keys) else by_size[:0]
        cuts = np.unique(np.concatenate(same_width(by_size, by_load)))
        if len(cuts) and self.lowest is not None and cuts[0] <= self.lowest:
            cuts = cuts[cuts > self.lowest]
        return cuts

    def _held_count(self) -> float:
        """Distinct units held: exact below the sample's capacity, beyond it 'more than enough'."""
        return math.inf if self.held.thinned else float(len(self.held))

    def _give_reads(self, before: float | None) -> None:
        """Counts the ranges of the reads before `before` (None: every read left) on the
        equal-size ranges of the window they fall in."""
        if self.read_cuts is None or not self.reads:
            return
        due = [r for r in self.reads if before is None or r[0] < before]
        if not due:
            return
        self.reads = [r for r in self.reads if before is not None and r[0] >= before]
        for _, intervals, op in due:
            if intervals:
                self.spans.append((op, interval_spans(self.read_cuts, intervals)))

    def _window(self, times: np.ndarray, keys: np.ndarray, lengths: np.ndarray, units: np.ndarray | None,
                hashes: np.ndarray | None, orders: np.ndarray | None) -> None:
        unit_keys = unit_keys_of(keys, lengths, units)
        row_hashes = key_hashes(keys) if hashes is None else hashes
        unit_hashes = row_hashes if unit_keys is keys else key_hashes(unit_keys)
        if self.seen == 0:
            self.first_time = float(times[0])
        self._give_reads(float(times[0]))
        prefix = self._share_prefix(unit_keys)
        words = prefix_words(unit_keys, prefix)
        # Keys longer than the shared prefix and one word are sorted once, here: their order
        # places them among this window's cuts, and cuts the next window from them.
        order = None
        if unit_keys.dtype.itemsize > prefix + 8:  # (the caller's orders: the same order, up to equal keys)
            order = key_order(unit_keys, prefix, words) if orders is None or orders.min() < 0 else orders
        recent = self._recent()
        cuts = self._cuts(recent)
        # The held sample sorts the units' hashes while it takes them all: one argsort serves it and this.
        hash_order = None if self.held.thinned else np.argsort(unit_hashes)
        ordered_units = np.sort(unit_hashes) if hash_order is None else unit_hashes[hash_order]
        # The first window is never measured, even on initial data: balancing by load needs
        # one window of load to see where the writes go.
        if self.k > 0 and len(unit_keys) >= 2:
            halves = window_halves(len(unit_keys))
            # the previous window's writes are the recent ones, unless the balancer remembers more
            previous_keys, previous_words, previous_ordered, previous_order = (
                recent if len(self.recent) == 1 else (self.previous, self.previous_words, None, self.previous_order))
            new_unit = np.concatenate(([True], ordered_units[1:] != ordered_units[:-1]))
            bins = ordered_range_of(cuts, unit_keys, order) if order is not None else range_of(
                cuts, unit_keys, prefix, words)
            first, second = (np.bincount(bins[h], minlength=len(cuts) + 1) for h in halves)
            unit_ids = None
            if not new_unit.all():  # a unit written twice: each write's unit as a number 0..units-1
                ids = np.empty(len(unit_hashes), dtype=np.intp)  # sorting once more beats searching each write
                ids[np.argsort(unit_hashes) if hash_order is None else hash_order] = np.cumsum(new_unit) - 1
                unit_ids = (ids[halves[0]], ids[halves[1]])
            estimate = estimate_window(
                (first, second), unit_ids, self.nodes,
                ordered_range_counts(cuts, previous_keys, previous_order) if previous_order is not None else
                range_counts(cuts, previous_keys, prefix, previous_words, previous_ordered))
            self.estimates.append((estimate, len(unit_keys), self._held_count()))
        # A read's cost is counted on ranges of equal size (the size splits alone): the fine
        # load splits behind a moving tail say where writes go, not how data is laid out.
        self.read_cuts = self.held.quantile_cuts(self.ranges)
        self._hold(unit_keys, unit_hashes, words, order, hash_order)
        self.rows.add(keys, row_hashes, times, ordered_units if unit_keys is keys else None)
        self.previous, self.previous_words, self.previous_order = unit_keys, words, order
        self.recent.append(unit_keys)
        self.recent_words.append(words)
        self.recent_orders.append(order)
        # The writes from `memory` before the window's nominal end (a last, short window's
        # end included) to its last write.
        memory = self.memory - (self.window - len(times))
        kept = sum(map(len, self.recent))
        while len(self.recent) > 1 and kept - len(self.recent[0]) >= memory:
            kept -= len(self.recent.pop(0))
            self.recent_words.pop(0)
            self.recent_orders.pop(0)
        if kept > memory:
            self.recent[0] = self.recent[0][kept - memory:]
            self.recent_words[0] = self.recent_words[0][kept - memory:]
            self.recent_orders[0] = None  # the order of the whole block
        self.seen += len(times)
        self.key_bytes += int(lengths.sum())
        self.last_time = float(times[-1])
        self.k += 1

    def finish(self) -> SpaceMetrics:
        if self.pending_count:
            self._window(*self._take(self.pending_count))
        self._give_reads(None)
        touched = [(op, spans.touched(self.held.keys)) for op, spans in self.spans]
        final_ranges = len(self._cuts(self._recent())) + 1
        nodes, ranges = self.nodes, self.ranges
        # A window is measured once the space holds enough units to cut into its ranges, or half
        # the units it will ever hold, if fewer (a design of few units is measured early).
        ready_at = ranges if self.held.thinned else min(ranges, math.ceil(len(self.held) / 2))
        ready = [(e, n) for e, n, held in self.estimates if held >= ready_at]
        measured = sum(n for _, n in ready)
        estimates = [e for e, _ in ready]
        by_operation: dict[str, list[int]] = {}
        for op, count in touched:
            by_operation.setdefault(op, []).append(count)
        hot_share = float(np.mean([e.hot_node_share for e in estimates])) if estimates else 1.0
        simpsons = [e.simpson for e in estimates if e.simpson is not None]
        simpson = float(np.mean(simpsons)) if simpsons else 1.0
        rows, rewrite_share, lifetime, most, per_s = self.rows.growth(self.last_time - self.first_time)
        return SpaceMetrics(
            space=self.space, writes=self.seen, windows=len(estimates), window_writes=self.window,
            measured_writes=measured, hot_node_share=hot_share,
            effective_nodes=min(float(nodes), 1.0 / simpson) if simpson > 0 else float(nodes),
            write_throughput_vs_ideal=1.0 / (nodes * hot_share) if hot_share > 0 else 1.0,
            hot_unit_share=float(np.mean([e.hot_unit_share for e in estimates])) if estimates else 1.0,
            read_ranges_touched=float(np.mean([c for _, c in touched])) if touched else None,
            reads=len(touched),
            read_ranges_touched_by_operation={op: float(np.mean(c)) for op, c in by_operation.items() if op},
            read_counts={op: len(c) for op, c in by_operation.items() if op},
            mean_key_bytes=self.key_bytes / self.seen if self.seen else 0.0,
            splits=final_ranges - 1, final_ranges=final_ranges, rows=rows, rewrite_share=rewrite_share,
            rewrite_lifetime=lifetime, max_row_writes=most, row_writes_per_s=per_s,
        )


CHUNK_WRITES = 1 << 20  # writes handed to a SpaceModel at a time when replaying a stream held in memory


def model_space(times: np.ndarray, keys: np.ndarray, lengths: np.ndarray, reads: list, params: SplitParams,
                space: str = TABLE_SPACE, units: np.ndarray | None = None,
                initial: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> SpaceMetrics:
    """Replays one key space's writes in time order; `reads` are (time, intervals[, operation]);
    `units` each write's split-unit length (None: whole keys); `initial` the (keys, lengths,
    unit lengths) of rows the space held before the load. The writes are taken in chunks, in
    time order (an index array sorts them if they are not)."""
    times = np.asarray(times)
    model = SpaceModel(params, space, len(times), initial)
    model.add_reads((r[0], r[1], r[2] if len(r) > 2 else "") for r in reads)
    ordered = bool(len(times) < 2 or (np.diff(times) >= 0).all())
    order = np.argsort(times, kind="stable") if not ordered else None
    for start in range(0, len(times), CHUNK_WRITES):
        at = slice(start, start + CHUNK_WRITES) if order is None else order[start:start + CHUNK_WRITES]
        model.add(times[at], keys[at], lengths[at], None if units is None else units[at])
    return model.finish()


def space_inputs(stream: KeyStream, space: str, params: SplitParams) -> SpaceInputs | None:
    """What model_space takes to model one space of a stream; None for a space with no writes."""
    times, keys, lengths = stream.writes(space)
    if not len(times):
        return None
    reads = [(t, intervals, op) for t, _, intervals, op in stream.reads(space, with_operation=True)]
    return times, keys, lengths, reads, params, space, stream.unit_lengths(space), stream.initial(space)


def model_stream(stream: KeyStream, params: SplitParams | None = None, shape: KeyShape | None = None,
                 memo: SpaceMemo | None = None) -> ModelResult:
    """Every key space of a stream, modelled separately; `shape` what the design's key says
    past the stream's end (model/shape.py). `memo`: spaces already modelled, by their writes
    and reads, so a space whose stream another one already had is not modelled again."""
    params = params or SplitParams()
    result = ModelResult(nodes=params.nodes, shape=shape or KeyShape())
    for space in stream.spaces():
        inputs = space_inputs(stream, space, params)
        if inputs is None:
            continue
        if memo is None:
            result.spaces[space] = model_space(*inputs)
            continue
        digest = SpaceMemo.digest(inputs)
        known = memo.get(digest)
        if known is None:
            known = model_space(*inputs)
            memo.put(digest, known)
        result.spaces[space] = dataclasses.replace(known, space=space)
    return result


def analyze_file(path: str | Path, params: SplitParams | None = None) -> ModelResult:
    """The model over a saved key stream (`KeyStream.save`), e.g. for `keybench analyze RUN
    --nodes N`: the same figures as model_stream over the stream loaded whole, its writes
    read a block at a time (SavedKeyStream), so memory does not grow with them."""
    params = params or SplitParams()
    result = ModelResult(nodes=params.nodes)
    with SavedKeyStream(path) as saved:
        for i, space, writes in saved.write_spaces():
            model = SpaceModel(params, space, writes, saved.rest.initial(space))
            model.add_reads((t, intervals, op) for t, _, intervals, op in saved.rest.reads(space, with_operation=True))
            for block in saved.writes_in_time_order(i):
                model.add(*block)
            result.spaces[space] = model.finish()
    return result


