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

Each key space (the table, each Spanner index) is modelled separately; a strategy's
headline is its worst space, so an index that hotspots shows on a table that does not.
Every figure here is **modelled** from the key stream, never measured.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from pathlib import Path

from loadtests.design.byteorder import TABLE_SPACE
from loadtests.errors import KeybenchError
from loadtests.model.params import SplitParams
from loadtests.model.keystream import KeyStream


RECENT_WRITES_PER_RANGE = 8  # writes the balancer remembers per range: cuts from fewer are noise
MIN_MEASURED_PER_NODE = 4  # measured writes per node below which a space cannot decide a verdict


@dataclass
class SpaceMetrics:
    """What the model predicts for one key space."""

    space: str
    writes: int
    windows: int  # windows measured (after the table held enough rows to cut into ranges)
    window_writes: int
    measured_writes: int  # writes in the measured windows
    hot_node_share: float  # mean over windows of the hot node's share of writes; ideal 1/N
    effective_nodes: float  # 1 / (mean over windows of sum(share^2)), unbiased per window; ideal N
    write_throughput_vs_ideal: float  # 1 / (N * hot_node_share): the busiest node saturates first
    hot_unit_share: float  # the busiest split unit's (row's, or root row's) share of writes
    read_ranges_touched: float | None  # mean ranges a read's intervals span; None without reads
    reads: int
    read_ranges_touched_by_operation: dict[str, float]  # the same mean per read operation
    read_counts: dict[str, int]  # reads measured per operation
    mean_key_bytes: float
    splits: int  # ranges - 1 at the end of the stream
    final_ranges: int
    rows: int = 0  # distinct rows (keys) the load wrote
    rewrite_share: float = 0.0  # share of writes to a row written before: a new version or cell
    rewrite_lifetime: float = 0.0  # how long rewritten rows keep being written, as a share of the stream
    max_row_writes: int = 0  # writes to the most-written row: its versions or cells
    row_writes_per_s: float = 0.0  # the same row's writes per second over its life


@dataclass
class ModelResult:
    nodes: int
    spaces: dict[str, SpaceMetrics] = field(default_factory=dict)

    def measurable(self) -> list[SpaceMetrics]:
        """Spaces with enough measured writes to tell spread from hot at this node count
        (MIN_MEASURED_PER_NODE per node); every space if none has."""
        enough = [m for m in self.spaces.values() if m.measured_writes >= MIN_MEASURED_PER_NODE * self.nodes]
        return enough or list(self.spaces.values())

    @property
    def measured(self) -> bool:
        """Whether some space had enough writes measured for a verdict."""
        return any(m.measured_writes >= MIN_MEASURED_PER_NODE * self.nodes for m in self.spaces.values())

    @property
    def hot_space(self) -> str:
        """The space whose busiest node carries the largest share: the strategy's bottleneck."""
        return max(self.measurable(), key=lambda m: (m.hot_node_share, m.space == TABLE_SPACE)).space

    def summary(self) -> dict:
        """Headline figures: write figures of the worst space, reads over every space,
        key size of the table, splits and ranges summed over spaces."""
        worst = self.spaces[self.hot_space]
        hot_unit = max(self.measurable(), key=lambda m: m.hot_unit_share)
        rewritten = max(self.spaces.values(), key=lambda m: (m.rewrite_share, m.space == TABLE_SPACE))
        busiest_row = max(self.spaces.values(), key=lambda m: m.max_row_writes)
        reads = sum(m.reads for m in self.spaces.values())
        touched = sum((m.read_ranges_touched or 0) * m.reads for m in self.spaces.values())
        table = self.spaces.get(TABLE_SPACE, worst)
        return {
            "nodes": self.nodes,
            "hot_space": worst.space,
            "hot_node_share": worst.hot_node_share,
            "effective_nodes": worst.effective_nodes,
            "write_throughput_vs_ideal": worst.write_throughput_vs_ideal,
            "hot_unit_share": hot_unit.hot_unit_share,
            "hot_unit_space": hot_unit.space,
            "rewrite_share": rewritten.rewrite_share,
            "rewrite_lifetime": rewritten.rewrite_lifetime,
            "measured": self.measured,
            "max_row_writes": busiest_row.max_row_writes,
            "row_writes_per_s": busiest_row.row_writes_per_s,
            "read_ranges_touched": touched / reads if reads else None,
            **{f"read_ranges_touched_{op}": value for op, value in self.read_ranges_by_operation().items()},
            "mean_key_bytes": table.mean_key_bytes,
            "splits": sum(m.splits for m in self.spaces.values()),
            "final_ranges": sum(m.final_ranges for m in self.spaces.values()),
            "windows": worst.windows,
            "measured_writes": worst.measured_writes,
            "window_writes": worst.window_writes,
            "writes": sum(m.writes for m in self.spaces.values()),
            # what the table and its indexes hold: a NULL_FILTERED index has entries for some rows only
            "table_rows": self.spaces[TABLE_SPACE].writes if TABLE_SPACE in self.spaces else 0,
            "index_entries": sum(m.writes for s, m in self.spaces.items() if s != TABLE_SPACE),
        }

    def read_ranges_by_operation(self) -> dict[str, float]:
        """Mean ranges touched per read operation, over every space its reads went to."""
        totals: dict[str, list[float]] = {}
        for m in self.spaces.values():
            for op, value in m.read_ranges_touched_by_operation.items():
                count = m.read_counts.get(op, 0)
                entry = totals.setdefault(op, [0.0, 0])
                entry[0] += value * count
                entry[1] += count
        return {op: total / count for op, (total, count) in totals.items() if count}

    def per_space(self) -> list[dict]:
        return [asdict(m) for m in self.spaces.values()]


# --- ranks -------------------------------------------------------------------------------


def rank_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, rank of each key among them). Rewrites of one row share a rank.
    Keys that differ only by trailing NUL bytes compare equal here (numpy 'S' padding)."""
    if len(keys) == 0:
        return keys, np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    distinct = ordered if new.all() else ordered[new]  # distinct keys: no second copy
    del ordered
    ranks = np.empty(len(keys), dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    return distinct, ranks


def rank_of(distinct: np.ndarray, key: bytes) -> int:
    """How many distinct keys sort before `key` (numpy truncates a needle wider than the
    array; every key equal to the truncated needle is then smaller than the needle)."""
    width = distinct.dtype.itemsize
    if len(key) > width:
        return int(np.searchsorted(distinct, np.array(key[:width], dtype=distinct.dtype), side="right"))
    return int(np.searchsorted(distinct, np.array(key, dtype=distinct.dtype), side="left"))


def interval_ranks(distinct: np.ndarray, start: bytes, end: bytes) -> tuple[int, int]:
    """[start, end) bytes as [lo, hi) ranks; end b"" is the end of the space."""
    lo = rank_of(distinct, start) if start else 0
    hi = len(distinct) if not end else rank_of(distinct, end)
    return lo, max(lo, hi)


# --- placement and the cross-fitted estimates ----------------------------------------------------


def assign_greedy(loads: np.ndarray, nodes: int, capacity: int | None = None) -> np.ndarray:
    """Node of each range: the loaded ranges heaviest first, each onto the least-loaded node
    that holds fewer than `capacity` ranges (None: no limit); then the ranges without load
    onto the nodes holding the fewest ranges, as a balancer by size would place them."""
    heap = [(0.0, 0, n) for n in range(nodes)]
    counts = np.zeros(nodes, dtype=np.int64)
    assignment = np.zeros(len(loads), dtype=np.int64)
    order = np.argsort(-loads, kind="stable")
    loaded = order[loads[order] > 0]
    for r in loaded:
        total, _, node = heapq.heappop(heap)
        while capacity is not None and counts[node] >= capacity and heap:  # full: skip it for good
            total, _, node = heapq.heappop(heap)
        assignment[r] = node
        counts[node] += 1
        heapq.heappush(heap, (total + float(loads[r]), int(counts[node]), node))
    idle = order[len(loaded):]
    if len(idle):
        # Deal the idle ranges out so the range counts even up: the emptiest nodes first.
        per_node = math.ceil((len(loads)) / nodes)
        room = np.maximum(per_node - counts, 0)
        slots = np.repeat(np.argsort(counts, kind="stable"), room[np.argsort(counts, kind="stable")])
        if len(slots) < len(idle):  # more idle ranges than room: round-robin over every node
            slots = np.concatenate([slots, np.resize(np.arange(nodes), len(idle) - len(slots))])
        assignment[idle] = slots[:len(idle)]
    return assignment


def range_span(bounds: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """First and last of the ranges starting at `bounds` (sorted, from rank 0) that an interval
    of ranks [lo, hi) spans; an empty interval still asks the range holding lo."""
    first, last = np.searchsorted(bounds, [lo, max(lo, hi - 1)], side="right") - 1
    return int(first), int(last)


def _touched(bounds: np.ndarray, lo: int, hi: int) -> int:
    first, last = range_span(bounds, lo, hi)
    return last - first + 1


def quantile_cuts(ranks: np.ndarray, pieces: int) -> np.ndarray:
    """Ranks that cut sorted `ranks` into `pieces` equal counts (fewer with fewer ranks)."""
    count = min(pieces, len(ranks))
    if count <= 1:
        return np.zeros(0, dtype=np.int64)
    return ranks[(np.arange(1, count) * len(ranks)) // count]


def steady_bounds(held: np.ndarray, recent: np.ndarray, ranges: int) -> np.ndarray:
    """Start ranks of the ranges before a window: `ranges` pieces at quantiles of the units
    the recent writes went to (where the writes go, load splits cut the ranges), and
    `ranges` / 4 pieces at quantiles of every unit held (data no write touches any more, a
    migration's source, is split by size only); the first range starts at rank 0, so every
    rank falls in one."""
    by_size = quantile_cuts(held, max(1, ranges // 4))
    by_load = quantile_cuts(np.sort(recent), ranges)
    return np.unique(np.concatenate(([0], by_size, by_load)))


@dataclass(frozen=True)
class WindowEstimate:
    hot_node_share: float
    simpson: float | None  # unbiased estimate of sum(node share^2); None with under 2 writes a half
    hot_unit_share: float


def _hot_node_share(fit: np.ndarray, held_out: np.ndarray, prior: np.ndarray, nodes: int) -> tuple[float, float | None]:
    """Ranges placed by their load in `fit` plus `prior` (the previous window's load, as a
    balancer remembers it); the hot node's share of `held_out`, and the unbiased sum of
    squared node shares of `held_out`. Neither placement nor the choice of the hot node sees
    `held_out`."""
    known = fit + prior
    # Each node takes an equal number of ranges, as balancing by size (the ranges hold equal
    # data) and by load together leave them; the heaviest are placed first.
    assignment = assign_greedy(known, nodes, capacity=math.ceil(len(known) / nodes))
    known_nodes = np.bincount(assignment, weights=known, minlength=nodes)
    held_nodes = np.bincount(assignment, weights=held_out, minlength=nodes)
    total = held_out.sum()
    # Ties (a window too small to tell nodes apart): the mean share of the tied nodes.
    tied = np.flatnonzero(known_nodes == known_nodes.max())
    share = float(held_nodes[tied].mean() / total) if total else 0.0
    simpson = float((held_nodes * (held_nodes - 1)).sum() / (total * (total - 1))) if total >= 2 else None
    return share, simpson


def _hot_unit_share(fit_units: np.ndarray, held_units: np.ndarray) -> float:
    """The share of `held_units` that falls on the unit most written in `fit_units`."""
    if not len(fit_units) or not len(held_units):
        return 0.0
    values, counts = np.unique(fit_units, return_counts=True)
    top = values[counts == counts.max()]
    return float(np.isin(held_units, top).sum() / len(top) / len(held_units))


def estimate_window(bins: np.ndarray, units: np.ndarray, ranges: int, nodes: int,
                    previous_bins: np.ndarray | None = None) -> WindowEstimate:
    """The cross-fitted estimates of one window: `bins` is each write's range, `units` its
    split unit's rank, both in write order; `previous_bins` the ranges the previous window's
    writes fall in."""
    # Halves drawn at random (seeded by the window's size, so a replay is repeatable), not
    # alternately: a bit-reversed counter sends consecutive writes to opposite ends of the key
    # space, and alternate halves would then never meet on a node.
    in_first = np.random.default_rng(len(bins)).permutation(len(bins)) < (len(bins) + 1) // 2
    halves = (in_first, ~in_first)
    loads = [np.bincount(bins[h], minlength=ranges).astype(np.float64) for h in halves]
    prior = np.zeros(ranges)
    if previous_bins is not None and len(previous_bins):
        prior = np.bincount(previous_bins, minlength=ranges) * (len(bins) / 2 / len(previous_bins))
    shares, simpsons, unit_shares = [], [], []
    for fit, held in ((0, 1), (1, 0)):
        share, simpson = _hot_node_share(loads[fit], loads[held], prior, nodes)
        shares.append(share)
        if simpson is not None:
            simpsons.append(simpson)
        unit_shares.append(_hot_unit_share(units[halves[fit]], units[halves[held]]))
    return WindowEstimate(float(np.mean(shares)), float(np.mean(simpsons)) if simpsons else None,
                          float(np.mean(unit_shares)))


@dataclass(frozen=True)
class RowGrowth:
    """How the writes treat rows: a new row each, or the same rows over and over."""

    rows: int
    rewrite_share: float
    rewrite_lifetime: float
    max_row_writes: int
    row_writes_per_s: float


def row_growth(times: np.ndarray, row_ranks: np.ndarray) -> RowGrowth:
    """Rows (full keys) of writes in time order: how many are rewrites, and for how long the
    rewritten rows go on being written (weighted by their rewrites) relative to the stream.
    A row rewritten throughout the stream keeps growing; one that stops (an interval's
    aggregate) does not."""
    n = len(row_ranks)
    if n == 0:
        return RowGrowth(0, 0.0, 0.0, 0, 0.0)
    counts = np.bincount(row_ranks)
    _, first = np.unique(row_ranks, return_index=True)
    _, last_reversed = np.unique(row_ranks[::-1], return_index=True)
    life = times[n - 1 - last_reversed] - times[first]  # per distinct row, in rank order
    written = counts[counts > 0]
    rewrites = written - 1
    span = float(times[-1] - times[0])
    lifetime = float((rewrites * life).sum() / rewrites.sum() / span) if rewrites.sum() and span > 0 else 0.0
    busiest = int(np.argmax(written))
    return RowGrowth(
        rows=len(written), rewrite_share=float(rewrites.sum() / n), rewrite_lifetime=min(1.0, lifetime),
        max_row_writes=int(written[busiest]),
        row_writes_per_s=float(written[busiest] / life[busiest]) if life[busiest] > 0 else 0.0)


# --- the replay ------------------------------------------------------------------------------


def _unit_keys(keys: np.ndarray, lengths: np.ndarray, units: np.ndarray | None) -> np.ndarray:
    """Each key cut to its split unit (the leading `units` bytes); the keys themselves when
    every key is its own unit."""
    if units is None or not len(keys) or np.all(units >= lengths):
        return keys
    width = keys.dtype.itemsize
    matrix = keys.view(np.uint8).reshape(len(keys), width).copy()
    matrix[np.arange(width)[None, :] >= units[:, None].astype(np.int64)] = 0
    return matrix.view(f"S{width}").ravel()


def _join_keys(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    width = max(first.dtype.itemsize, second.dtype.itemsize, 1)
    return np.concatenate([first.astype(f"S{width}"), second.astype(f"S{width}")])


def model_space(times: np.ndarray, keys: np.ndarray, lengths: np.ndarray, reads: list, params: SplitParams,
                space: str = TABLE_SPACE, units: np.ndarray | None = None,
                initial: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> SpaceMetrics:
    """Replays one key space's writes in time order; `reads` are (time, intervals[, operation]);
    `units` each write's split-unit length (None: whole keys); `initial` the (keys, lengths,
    unit lengths) of rows the space held before the load."""
    nodes, ranges = params.nodes, params.ranges
    order = np.argsort(times, kind="stable")
    times = np.asarray(times)[order]
    n = len(times)
    write_units = _unit_keys(keys, lengths, units)[order]
    initial_units = (_unit_keys(*initial) if initial is not None and len(initial[0])
                     else np.zeros(0, dtype=write_units.dtype))
    distinct, unit_ranks = rank_keys(_join_keys(initial_units, write_units) if len(initial_units) else write_units)
    held_initially, unit_ranks = unit_ranks[:len(initial_units)], unit_ranks[len(initial_units):]
    _, row_ranks = rank_keys(np.asarray(keys)[order])
    del order
    rows = row_growth(times, row_ranks)

    window = params.window_size(n)
    windows_total = max(1, math.ceil(n / window))
    # A window is measured once the space holds enough units to cut into its ranges, or half
    # the units it will ever hold, if fewer (a design of few rows is measured early).
    ready_at = min(ranges, math.ceil(len(distinct) / 2))
    read_times = np.array([r[0] for r in reads], dtype=np.float64)
    read_ranks = [[interval_ranks(distinct, a, b) for a, b in r[1]] for r in reads]
    read_ops = [r[2] if len(r) > 2 else "" for r in reads]
    window_starts = times[::window] if n else np.zeros(1)
    read_window = np.maximum(np.searchsorted(window_starts, read_times, side="right") - 1, 0)

    present = np.zeros(len(distinct), dtype=bool)
    present[held_initially] = True
    bounds = np.zeros(1, dtype=np.int64)
    recent = previous = np.zeros(0, dtype=np.int64)
    # The balancer's memory of where writes go: enough recent writes to cut every range at
    # quantiles of RECENT_WRITES_PER_RANGE writes each, and at least one window.
    memory = max(window, RECENT_WRITES_PER_RANGE * ranges)
    estimates: list[WindowEstimate] = []
    measured = 0
    touched = []
    for k in range(windows_total):
        chunk = unit_ranks[k * window:(k + 1) * window]
        held = np.flatnonzero(present)
        bounds = steady_bounds(held, recent, ranges)
        # The first window is never measured, even on initial data: balancing by load needs
        # one window of load to see where the writes go.
        if k > 0 and len(held) >= ready_at and len(chunk) >= 2:
            bins = np.searchsorted(bounds, chunk, side="right") - 1
            previous_bins = np.searchsorted(bounds, previous, side="right") - 1
            estimates.append(estimate_window(bins, chunk, len(bounds), nodes, previous_bins))
            measured += len(chunk)
        # A read's cost is counted on ranges of equal size (the size splits alone): the fine
        # load splits behind a moving tail say where writes go, not how data is laid out.
        window_reads = np.flatnonzero(read_window == k)
        if len(window_reads):  # most windows have no read: cut the equal-size ranges only for those that do
            by_size = np.unique(np.concatenate(([0], quantile_cuts(held, ranges))))
        for r in window_reads:
            if read_ranks[r]:
                touched.append((read_ops[r], sum(_touched(by_size, lo, hi) for lo, hi in read_ranks[r])))
        present[chunk] = True
        previous = chunk
        recent = unit_ranks[max(0, (k + 1) * window - memory):(k + 1) * window]
    bounds = steady_bounds(np.flatnonzero(present), recent, ranges)
    by_operation: dict[str, list[int]] = {}
    for op, count in touched:
        by_operation.setdefault(op, []).append(count)
    hot_share = float(np.mean([e.hot_node_share for e in estimates])) if estimates else 1.0
    simpsons = [e.simpson for e in estimates if e.simpson is not None]
    simpson = float(np.mean(simpsons)) if simpsons else 1.0
    return SpaceMetrics(
        space=space, writes=n, windows=len(estimates), window_writes=window, measured_writes=measured,
        hot_node_share=hot_share,
        effective_nodes=min(float(nodes), 1.0 / simpson) if simpson > 0 else float(nodes),
        write_throughput_vs_ideal=1.0 / (nodes * hot_share) if hot_share > 0 else 1.0,
        hot_unit_share=float(np.mean([e.hot_unit_share for e in estimates])) if estimates else 1.0,
        read_ranges_touched=float(np.mean([c for _, c in touched])) if touched else None,
        reads=len(touched),
        read_ranges_touched_by_operation={op: float(np.mean(c)) for op, c in by_operation.items() if op},
        read_counts={op: len(c) for op, c in by_operation.items() if op},
        mean_key_bytes=float(lengths.mean()) if len(lengths) else 0.0,
        splits=len(bounds) - 1, final_ranges=len(bounds), **asdict(rows),
    )


def model_stream(stream: KeyStream, params: SplitParams | None = None) -> ModelResult:
    """Every key space of a stream, modelled separately."""
    params = params or SplitParams()
    result = ModelResult(nodes=params.nodes)
    for space in stream.spaces():
        times, keys, lengths = stream.writes(space)
        if not len(times):
            continue
        reads = [(t, intervals, op) for t, _, intervals, op in stream.reads(space, with_operation=True)]
        result.spaces[space] = model_space(times, keys, lengths, reads, params, space, stream.unit_lengths(space),
                                           stream.initial(space))
    return result


def analyze_file(path: str | Path, params: SplitParams | None = None) -> ModelResult:
    """The model over a saved key stream (`KeyStream.save`), e.g. for `keybench analyze RUN --nodes N`."""
    return model_stream(KeyStream.load(path), params)


ANALYSIS_COLUMNS = ("nodes", "hot_space", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
                    "read_ranges_touched", "mean_key_bytes", "windows", "writes", "table_rows", "index_entries")


def analyze_run(run_dir: Path, params: SplitParams | None = None) -> list[dict]:
    """The model over every key stream a run directory keeps, one row per unit."""
    params = params or SplitParams()
    params.validate()
    streams = sorted((Path(run_dir) / "keystream").glob("*.npz"))
    if not streams:
        raise KeybenchError(f"{run_dir} has no keystream/*.npz: not a keybench run directory, or one from before "
                            "key streams were recorded")
    from loadtests.model.verdict import judge

    rows = []
    for path in streams:
        result = analyze_file(path, params)
        summary = result.summary()
        rows.append({"unit": path.stem, "verdict": judge(result).verdict, **{k: summary[k] for k in ANALYSIS_COLUMNS}})
    return rows


MODEL_COLUMNS = ("model_space", "model_nodes", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
                 "hot_row_share", "rewrite_share", "max_row_writes", "row_mb_per_hour", "read_ranges_touched",
                 "mean_key_bytes", "model_windows", "verdict_reason")
VERDICT_COLUMNS = ("verdict", "agrees")


def model_columns(result: ModelResult, operation: str, claim: str, cell_bytes: float = 0.0) -> dict:
    """A summary row's modelled columns: the strategy's verdict and write figures on every row
    of it, the ranges one read touches on that read's row. `claim` is the strategy's expected
    distribution; `cell_bytes` what one write adds to a row (key and payload), for the growth
    of the busiest row."""
    from loadtests.model.verdict import judge

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
