"""Key-Visualizer-like heatmaps of a key stream: time across, key space up, intensity as colour.

The key axis is cut into buckets at quantiles of the keys written, so a sparse key space
(a few long prefixes, UUID text) still spreads over the whole picture instead of filling
one bucket. Reads are drawn over the same buckets: a read adds 1 spread evenly over the
buckets its intervals cover (a full scan paints a thin line across all of them).

Every picture says that it is modelled from the recorded key stream: the emulators do not
split data, so nothing here is a measurement of a database's key distribution.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from keybench.atomic import figure_png, write_atomically
from keybench.design.byteorder import TABLE_SPACE
from keybench.model.keystream import KeyStream
from keybench.model.placement import interval_ranks, range_span, rank_keys

WRITES, READS = "writes", "reads"
PROVENANCE = "modelled from the recorded key stream"


def resolution(writes: int) -> tuple[int, int]:
    """(key buckets, time bins) for a stream of `writes`: about 1,000 buckets and 200 time
    bins at scale, fewer for a short emulator stage so a cell holds a few writes on average
    and an even spread reads as a field rather than scattered dots."""
    return min(1000, max(16, writes // 100)), min(200, max(20, writes // 40))


def bucket_edges(ranks: np.ndarray, buckets: int) -> np.ndarray:
    """Start rank of each bucket: quantiles of the ranks written (duplicates merged)."""
    ordered = np.sort(ranks)
    return np.unique(ordered[np.linspace(0, len(ordered) - 1, buckets + 1).astype(np.int64)[:-1]])


def intensity(stream: KeyStream, space: str = TABLE_SPACE, kind: str = WRITES, buckets: int = 1000,
              time_bins: int = 200) -> tuple[np.ndarray, float, float]:
    """(matrix [bucket, time bin], first time, last time) of writes or reads in one space."""
    times, keys, _ = stream.writes(space)
    if not len(times):
        raise ValueError(f"the key stream has no writes in space {space!r}")
    distinct, ranks = rank_keys(keys)
    edges = bucket_edges(ranks, buckets)
    read_list = list(stream.reads(space)) if kind == READS else []
    all_times = np.concatenate([times, [t for t, _, _ in read_list]]) if read_list else times
    t0, t1 = float(all_times.min()), float(all_times.max())
    span = max(t1 - t0, 1e-9)

    def time_bin(t):
        return np.minimum(((np.asarray(t) - t0) / span * time_bins).astype(np.int64), time_bins - 1)

    matrix = np.zeros((len(edges), time_bins), dtype=np.float64)
    if kind == WRITES:
        bucket = np.searchsorted(edges, ranks, side="right") - 1
        np.add.at(matrix, (bucket, time_bin(times)), 1.0)
    elif kind == READS:
        for t, _, intervals in read_list:
            covered: list[int] = []
            for start, end in intervals:
                first, last = range_span(edges, *interval_ranks(distinct, start, end))
                covered.extend(range(first, last + 1))
            if covered:
                # add.at: intervals that share a bucket add up (`+=` would keep only one of them).
                np.add.at(matrix, (covered, int(time_bin(t))), 1.0 / len(covered))
    else:
        raise ValueError(f"kind must be {WRITES!r} or {READS!r}, not {kind!r}")
    return matrix, t0, t1


def heatmap_png(stream: KeyStream, space: str, kind: str, title: str, buckets: int | None = None,
                time_bins: int | None = None) -> bytes:
    """A PNG heatmap of one key space's writes or reads, as bytes: the model process draws it,
    the run writes it with the rest of its results."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    auto_buckets, auto_bins = resolution(stream.write_count(space))
    matrix, t0, t1 = intensity(stream, space, kind, buckets or auto_buckets, time_bins or auto_bins)
    # Each time bin's operations as shares of it: every heatmap on one scale, 0 to 1, so that two
    # side by side compare by eye (a hotspot is one bright bucket, an even design a dim band).
    totals = matrix.sum(axis=0)
    shares = matrix / np.where(totals > 0, totals, 1.0)
    # Drawn small with large type: the report shows a grid of them, each about 500 px wide.
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=100)
    image = ax.imshow(shares, origin="lower", aspect="auto", cmap="inferno", interpolation="nearest", vmin=0.0,
                      vmax=1.0, extent=(0.0, max(t1 - t0, 1e-9), 0, matrix.shape[0]))
    ax.set_title(f"{title}\n{kind}, key space {space!r} ({PROVENANCE})", fontsize=10)
    ax.set_xlabel("seconds since the first operation", fontsize=9)
    ax.set_ylabel(f"keys: {matrix.shape[0]} buckets", fontsize=9)
    ax.tick_params(labelsize=8)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(f"share of the bin's {kind}", fontsize=9)
    bar.ax.tick_params(labelsize=8)
    # Fixed margins (room for the two-line title and the colorbar's label): tight_layout would
    # draw the whole figure once more, which doubled the time of every heatmap.
    fig.subplots_adjust(left=0.11, right=0.98, top=0.84, bottom=0.14)
    png = figure_png(fig)
    plt.close(fig)
    return png


def render_heatmap(stream: KeyStream, space: str, kind: str, path: str | Path, title: str,
                   buckets: int | None = None, time_bins: int | None = None) -> Path:
    """Writes a PNG heatmap of one key space's writes or reads and returns its path."""
    return write_atomically(Path(path), heatmap_png(stream, space, kind, title, buckets, time_bins))
