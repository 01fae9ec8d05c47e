"""Key-space heatmaps: every write counted, reads weighed once, a resolution that an even
design fills, one colour scale with steps that tell nothing, an even spread and a hotspot apart,
and a PNG in a palette that says it is modelled."""

from __future__ import annotations

import io

import numpy as np
import pytest

from keybench.design import strategies
from keybench.design.byteorder import TABLE_SPACE
from keybench.model.heatmap import (
    MAX_BUCKETS,
    MAX_TIME_BINS,
    PROVENANCE,
    SHARE_STEPS,
    WRITES_PER_CELL,
    heatmap_png,
    intensity,
    render_heatmap,
    resolution,
)
from keybench.model.keystream import KeyStream
from keybench.model.simulate import simulate_stream


def test_heatmap_counts_every_write_and_says_it_is_modelled(tmp_path):
    stream = simulate_stream(strategies.catalogue("spanner")["hash_shard"], 5000, reads_per_operation=10)
    writes, _, _ = intensity(stream, TABLE_SPACE, "writes", buckets=100, time_bins=20)
    assert writes.sum() == 5000 and writes.shape == (100, 20)
    reads, _, _ = intensity(stream, TABLE_SPACE, "reads", buckets=100, time_bins=20)
    assert reads.sum() == pytest.approx(sum(1 for _, _, iv in stream.reads(TABLE_SPACE) if iv))
    path = render_heatmap(stream, TABLE_SPACE, "writes", tmp_path / "w.png", "spanner:hash_shard")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "modelled" in PROVENANCE


def test_a_read_whose_intervals_share_a_heatmap_bucket_still_weighs_one():
    stream = KeyStream()
    for i, letter in enumerate(b"abcdefgh"):
        stream.add_write(TABLE_SPACE, float(i), bytes([letter]))
    stream.add_read(3.0, [(b"b", b"c"), (b"e", b"f")])  # two ranges, one bucket
    reads, _, _ = intensity(stream, TABLE_SPACE, "reads", buckets=1, time_bins=4)
    assert reads.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("writes", [200, 5_000, 100_000, 10_000_000])
def test_the_resolution_gives_a_cell_several_writes_and_never_more_cells_than_pixels(writes):
    buckets, bins = resolution(writes)
    assert 16 <= buckets <= MAX_BUCKETS and 10 <= bins <= MAX_TIME_BINS
    if writes >= 5_000:  # a short stream gets the smallest picture, however sparse
        assert writes / (buckets * bins) >= WRITES_PER_CELL * 0.9


def _shares(stream: KeyStream) -> np.ndarray:
    matrix, _, _ = intensity(stream, TABLE_SPACE, "writes", *resolution(stream.write_count(TABLE_SPACE)))
    return matrix / matrix.sum(axis=0)


def _step(share: float) -> int:
    return int(np.searchsorted(SHARE_STEPS, share, side="right"))


def test_an_even_design_a_hotspot_and_nothing_fall_in_steps_of_their_own():
    even = _shares(simulate_stream(strategies.catalogue("spanner")["uuid4_string"], 50_000, reads_per_operation=0))
    hot = _shares(simulate_stream(strategies.catalogue("spanner")["timestamp_first"], 50_000, reads_per_operation=0))
    # An even design fills its picture: (almost) no cell is black, and the typical cell is dim.
    assert (even == 0).mean() < 0.01
    assert 1 < _step(float(np.median(even))) < _step(0.2)
    # A hotspot's bins each put half their writes or more in one bucket: the top steps.
    assert np.median(hot.max(axis=0)) >= 0.5 and _step(float(np.median(hot.max(axis=0)))) >= len(SHARE_STEPS) - 2


def test_the_png_is_in_a_palette_and_a_long_key_space_name_keeps_its_title_inside_the_picture():
    from PIL import Image

    stream = KeyStream()
    long_space = "AccessLogByUserIdAndTimestampDescendingWithStoringColumns"
    for i in range(2_000):
        stream.add_write(long_space, float(i) / 100, i.to_bytes(4, "big"))
    png = heatmap_png(stream, long_space, "writes", "spanner:index_storing-postgresql")
    with Image.open(io.BytesIO(png)) as picture:
        assert picture.mode == "P" and picture.size == (600, 360)
        pixels = np.asarray(picture.convert("L"))
    # The title's ink stays off the picture's left and right edges (a clipped title reaches them).
    top = pixels[: pixels.shape[0] // 6]
    assert (top[:, :3] == 255).all() and (top[:, -3:] == 255).all()
