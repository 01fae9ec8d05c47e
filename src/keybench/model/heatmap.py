"""Key-Visualizer-like heatmaps of a key stream: time across, key space up, intensity as colour.

The key axis is cut into buckets at quantiles of the keys written, so a sparse key space
(a few long prefixes, UUID text) still spreads over the whole picture instead of filling
one bucket. Reads are drawn over the same buckets: a read adds 1 spread evenly over the
buckets its intervals cover (a full scan paints a thin line across all of them).

Every picture says that it is modelled from the recorded key stream: the emulators do not
split data, so nothing here is a measurement of a database's key distribution.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from keybench.atomic import write_atomically
from keybench.design.byteorder import TABLE_SPACE
from keybench.model.keystream import KeyStream
from keybench.model.placement import interval_ranks, range_span, rank_keys

WRITES, READS = "writes", "reads"
PROVENANCE = "modelled from the recorded key stream"


WRITES_PER_CELL = 8  # on average: an even design then reads as a band, not as salt and pepper
MAX_BUCKETS, MAX_TIME_BINS = 250, 200  # about one pixel row per bucket, two columns per bin, at the drawn size


def resolution(writes: int) -> tuple[int, int]:
    """(key buckets, time bins) for a stream of `writes`: about WRITES_PER_CELL writes in a cell
    on average, with twice as many buckets as bins, and never finer than the picture can show
    (a bucket finer than a pixel row would be skipped, hot or not)."""
    cells = max(1, writes // WRITES_PER_CELL)
    time_bins = min(MAX_TIME_BINS, max(10, round((cells / 2) ** 0.5)))
    return min(MAX_BUCKETS, max(16, cells // time_bins)), time_bins


# The colour scale every heatmap shares: steps of a bin's operations, as shares of it. Even
# over 16 to 250 buckets is 6 % to 0.4 %, a dim band; a hotspot is 50 % to 100 %, bright; a
# bucket nothing reached is black. Steps, not a gradient, so that a share reads off the bar.
SHARE_STEPS = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
PALETTE_COLOURS = 64  # the steps, the text's greys and their edges: a palette of 64 keeps them all


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
    # Each time bin's operations as shares of it: every heatmap on one scale, so that two side by
    # side compare by eye.
    totals = matrix.sum(axis=0)
    shares = matrix / np.where(totals > 0, totals, 1.0)
    from matplotlib.colors import BoundaryNorm

    colours = plt.get_cmap("inferno", len(SHARE_STEPS) - 1)
    # Drawn small with large type: the report shows a grid of them, each about 500 px wide.
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=100)
    image = ax.imshow(shares, origin="lower", aspect="auto", cmap=colours, norm=BoundaryNorm(SHARE_STEPS, colours.N),
                      interpolation="nearest", extent=(0.0, max(t1 - t0, 1e-9), 0, matrix.shape[0]))
    # Centred on the figure and wrapped at its width: a long index's key space name would run off it.
    heading = [*textwrap.wrap(title, 70), *textwrap.wrap(f"{kind}, key space {space!r} ({PROVENANCE})", 70)]
    fig.suptitle("\n".join(heading), fontsize=10, y=0.99, va="top")
    ax.set_xlabel("seconds since the first operation", fontsize=9)
    ax.set_ylabel(f"keys: {matrix.shape[0]} buckets", fontsize=9)
    ax.tick_params(labelsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # buckets are whole
    bar = fig.colorbar(image, ax=ax, ticks=SHARE_STEPS)
    bar.ax.set_yticklabels([f"{step:.1%}".replace(".0%", "%") for step in SHARE_STEPS])
    bar.set_label(f"share of the bin's {kind}", fontsize=9)
    bar.ax.tick_params(labelsize=8)
    # Fixed margins (room for the title's lines and the colorbar's labels): tight_layout would
    # draw the whole figure once more, which doubled the time of every heatmap.
    fig.subplots_adjust(left=0.11, right=0.96, top=1 - (0.05 + 0.05 * len(heading)), bottom=0.14)
    png = palette_png(fig, PALETTE_COLOURS)
    plt.close(fig)
    return png


def palette_png(fig, colours: int) -> bytes:
    """A matplotlib figure as a PNG in a palette of `colours`, as the report embeds it and the
    heatmaps folder keeps it: a quarter of the bytes of full colour, and nothing to convert later."""
    import io

    from PIL import Image

    fig.canvas.draw()
    picture = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())[..., :3])
    buffer = io.BytesIO()
    picture.quantize(colours, method=Image.Quantize.MEDIANCUT).save(buffer, format="PNG")
    return buffer.getvalue()


def render_heatmap(stream: KeyStream, space: str, kind: str, path: str | Path, title: str,
                   buckets: int | None = None, time_bins: int | None = None) -> Path:
    """Writes a PNG heatmap of one key space's writes or reads and returns its path."""
    return write_atomically(Path(path), heatmap_png(stream, space, kind, title, buckets, time_bins))
