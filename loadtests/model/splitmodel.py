"""The split model: which node would serve each write, had the database split its key space.

The emulators keep every table in one piece, so a hotspot never shows in their latency.
This model replays a recorded (or simulated) key stream against N nodes that serve
contiguous key ranges, and splits ranges as the documents say Spanner and Bigtable do:

- a table starts as one range (a new table);
- the write stream is cut, in time order, into windows of equal write count;
- after each window, a range whose writes in that window exceed `load_split_share` of one
  node's fair share (window writes / N) splits by load, at quantiles of the keys it was
  written in that window (the median, for a range just over the threshold), and a range
  holding more than `size_split_rows` rows splits by size at its median row. An
  append-at-the-end pattern therefore splits behind its newest keys and keeps hitting the
  last range, as the documents describe;
- then ranges are rebalanced greedily onto the nodes by the load each had in that window:
  heaviest range first, each onto the least-loaded node. The next window's writes are
  counted on that assignment, so balancing always reacts one window late.

Everything works on integer key ranks (all keys sorted once), so 10M keys replay in seconds.
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


@dataclass
class SpaceMetrics:
    """What the model predicts for one key space."""

    space: str
    writes: int
    windows: int  # windows measured (after the warm-up)
    window_writes: int
    hot_node_share: float  # mean over windows of the busiest node's share of writes; ideal 1/N
    effective_nodes: float  # mean over windows of 1 / sum(share^2); ideal N
    write_throughput_vs_ideal: float  # 1 / (N * hot_node_share): the busiest node saturates first
    read_ranges_touched: float | None  # mean ranges a read's intervals span; None without reads
    reads: int
    read_ranges_touched_by_operation: dict[str, float]  # the same mean per read operation
    read_counts: dict[str, int]  # reads measured per operation
    mean_key_bytes: float
    splits: int
    load_splits: int
    size_splits: int
    final_ranges: int


@dataclass
class ModelResult:
    nodes: int
    spaces: dict[str, SpaceMetrics] = field(default_factory=dict)

    @property
    def hot_space(self) -> str:
        """The space whose busiest node carries the largest share: the strategy's bottleneck."""
        return max(self.spaces.values(), key=lambda m: (m.hot_node_share, m.space == TABLE_SPACE)).space

    def summary(self) -> dict:
        """Headline figures: write figures of the worst space, reads over every space,
        key size of the table, splits and ranges summed over spaces."""
        worst = self.spaces[self.hot_space]
        reads = sum(m.reads for m in self.spaces.values())
        touched = sum((m.read_ranges_touched or 0) * m.reads for m in self.spaces.values())
        table = self.spaces.get(TABLE_SPACE, worst)
        return {
            "nodes": self.nodes,
            "hot_space": worst.space,
            "hot_node_share": worst.hot_node_share,
            "effective_nodes": worst.effective_nodes,
            "write_throughput_vs_ideal": worst.write_throughput_vs_ideal,
            "read_ranges_touched": touched / reads if reads else None,
            **{f"read_ranges_touched_{op}": value for op, value in self.read_ranges_by_operation().items()},
            "mean_key_bytes": table.mean_key_bytes,
            "splits": sum(m.splits for m in self.spaces.values()),
            "final_ranges": sum(m.final_ranges for m in self.spaces.values()),
            "windows": worst.windows,
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


# --- balancing and splitting ---------------------------------------------------------------


def assign_greedy(loads: np.ndarray, nodes: int) -> np.ndarray:
    """Node of each range: heaviest range first, onto the node with the least load so far."""
    heap = [(0.0, n) for n in range(nodes)]
    assignment = np.zeros(len(loads), dtype=np.int64)
    for r in np.argsort(-loads, kind="stable"):
        total, node = heapq.heappop(heap)
        assignment[r] = node
        heapq.heappush(heap, (total + float(loads[r]), node))
    return assignment


def load_split_points(window_ranks_sorted: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                      loads: np.ndarray, threshold: float, max_pieces: int = 2) -> list[int]:
    """New boundaries for ranges whose window load passed the threshold: the range cut into
    ceil(load / threshold) pieces, at most `max_pieces`, at quantiles of the keys written to
    it in the window (2 pieces: at their median)."""
    points = []
    for r in np.flatnonzero(loads > threshold):
        lo, hi = np.searchsorted(window_ranks_sorted, [starts[r], ends[r]])
        written = window_ranks_sorted[lo:hi]
        pieces = min(max_pieces, math.ceil(loads[r] / threshold))
        cuts = written[(np.arange(1, pieces) * len(written)) // pieces]
        points.extend(int(c) for c in np.unique(cuts) if c > starts[r])
    return points


def size_split_points(written: np.ndarray, starts: np.ndarray, ends: np.ndarray, rows: np.ndarray,
                      threshold: int) -> list[int]:
    """New boundaries for ranges holding more rows than the threshold: at the median row."""
    points = []
    for r in np.flatnonzero(rows > threshold):
        held = np.flatnonzero(written[starts[r]:ends[r]])
        median = int(starts[r] + held[len(held) // 2])
        if median > starts[r]:
            points.append(median)
    return points


# --- the replay ------------------------------------------------------------------------------


def range_span(bounds: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """First and last of the ranges starting at `bounds` (sorted, from rank 0) that an interval
    of ranks [lo, hi) spans; an empty interval still asks the range holding lo."""
    first, last = np.searchsorted(bounds, [lo, max(lo, hi - 1)], side="right") - 1
    return int(first), int(last)


def _touched(bounds: np.ndarray, lo: int, hi: int) -> int:
    first, last = range_span(bounds, lo, hi)
    return last - first + 1


def model_space(times: np.ndarray, keys: np.ndarray, lengths: np.ndarray, reads: list, params: SplitParams,
                space: str = TABLE_SPACE) -> SpaceMetrics:
    """Replays one key space's writes in time order; `reads` are (time, intervals[, operation])."""
    nodes = params.nodes
    order = np.argsort(times, kind="stable")
    times = np.asarray(times)[order]
    distinct, ranks = rank_keys(keys)
    ranks = ranks[order]
    del order
    n = len(ranks)
    window = params.window_size(n)
    size_threshold = params.size_threshold(len(distinct))
    load_threshold = params.load_split_share * window / nodes

    read_times = np.array([r[0] for r in reads], dtype=np.float64)
    read_ranks = [[interval_ranks(distinct, a, b) for a, b in r[1]] for r in reads]
    read_ops = [r[2] if len(r) > 2 else "" for r in reads]
    window_starts = times[::window] if n else np.zeros(1)
    read_window = np.maximum(np.searchsorted(window_starts, read_times, side="right") - 1, 0)
    windows_total = max(1, math.ceil(n / window))
    warmup = min(params.warmup(), windows_total - 1)

    bounds = np.zeros(1, dtype=np.int64)  # start rank of each range: one range, a new table
    assignment = np.zeros(1, dtype=np.int64)
    written = np.zeros(len(distinct), dtype=bool)
    hot, effective, touched = [], [], []
    load_splits = size_splits = 0
    for k in range(windows_total):
        chunk = ranks[k * window:(k + 1) * window]
        in_range = np.searchsorted(bounds, chunk, side="right") - 1
        loads = np.bincount(in_range, minlength=len(bounds)).astype(np.float64)
        if k >= warmup and len(chunk):
            shares = np.bincount(assignment, weights=loads, minlength=nodes) / len(chunk)
            hot.append(shares.max())
            effective.append(1.0 / float(np.square(shares).sum()))
        for r in np.flatnonzero(read_window == k) if (k >= warmup or warmup == 0) else ():
            if read_ranks[r]:
                touched.append((read_ops[r], sum(_touched(bounds, lo, hi) for lo, hi in read_ranks[r])))
        # The window is over: record its rows, split, rebalance.
        written[chunk] = True
        starts, ends = bounds, np.append(bounds[1:], len(distinct))
        cumulative = np.concatenate(([0], np.cumsum(written)))
        rows = cumulative[ends] - cumulative[starts]
        by_load = load_split_points(np.sort(chunk), starts, ends, loads, load_threshold, params.max_load_pieces)
        by_size = size_split_points(written, starts, ends, rows, size_threshold)
        new = np.setdiff1d(np.array(by_load + by_size, dtype=np.int64), bounds)
        load_splits += len(np.setdiff1d(np.array(by_load, dtype=np.int64), bounds))
        size_splits += len(np.setdiff1d(np.array(by_size, dtype=np.int64), np.concatenate([bounds, by_load])))
        bounds = np.union1d(bounds, new)
        in_range = np.searchsorted(bounds, chunk, side="right") - 1
        assignment = assign_greedy(np.bincount(in_range, minlength=len(bounds)).astype(np.float64), nodes)
    if not touched:  # every read fell in the warm-up: count them rather than report nothing
        touched = [(op, sum(_touched(bounds, lo, hi) for lo, hi in rr)) for op, rr in zip(read_ops, read_ranks,
                                                                                             strict=True) if rr]
    by_operation: dict[str, list[int]] = {}
    for op, count in touched:
        by_operation.setdefault(op, []).append(count)
    hot_share = float(np.mean(hot)) if hot else 1.0
    return SpaceMetrics(
        space=space, writes=n, windows=len(hot), window_writes=window,
        hot_node_share=hot_share,
        effective_nodes=float(np.mean(effective)) if effective else 1.0,
        write_throughput_vs_ideal=1.0 / (nodes * hot_share),
        read_ranges_touched=float(np.mean([c for _, c in touched])) if touched else None,
        reads=len(touched),
        read_ranges_touched_by_operation={op: float(np.mean(c)) for op, c in by_operation.items() if op},
        read_counts={op: len(c) for op, c in by_operation.items() if op},
        mean_key_bytes=float(lengths.mean()) if len(lengths) else 0.0,
        splits=len(bounds) - 1, load_splits=load_splits, size_splits=size_splits,
        final_ranges=len(bounds),
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
        result.spaces[space] = model_space(times, keys, lengths, reads, params, space)
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
    rows = []
    for path in streams:
        summary = analyze_file(path, params).summary()
        rows.append({"unit": path.stem, **{k: summary[k] for k in ANALYSIS_COLUMNS}})
    return rows


MODEL_COLUMNS = ("model_space", "hot_node_share", "effective_nodes", "write_throughput_vs_ideal",
                 "read_ranges_touched", "mean_key_bytes", "model_windows")


def model_columns(result: ModelResult, operation: str) -> dict:
    """A summary row's modelled columns: the strategy's write figures on every row of it,
    the ranges one read touches on that read's row."""
    if not result.spaces:
        return {c: "" for c in MODEL_COLUMNS}
    s = result.summary()
    touched = result.read_ranges_by_operation().get(operation)
    return {
        "model_space": s["hot_space"],
        "hot_node_share": f"{s['hot_node_share']:.3f}",
        "effective_nodes": f"{s['effective_nodes']:.2f}",
        "write_throughput_vs_ideal": f"{s['write_throughput_vs_ideal']:.3f}",
        "read_ranges_touched": "" if touched is None else f"{touched:.2f}",
        "mean_key_bytes": f"{s['mean_key_bytes']:.1f}",
        "model_windows": s["windows"],
    }
