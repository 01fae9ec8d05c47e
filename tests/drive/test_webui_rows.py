"""The keybench tab's rows from a collector, without Locust: the model's verdict and the
heatmap's shape follow the keys written."""

import random

from keybench.design.byteorder import TABLE_SPACE
from keybench.drive.webui import (
    HEATMAP_BINS,
    HEATMAP_BUCKETS,
    SHADES,
    heatmap_rows,
    model_rows,
)
from keybench.measure.collector import Collector
from keybench.model.splitmodel import SplitParams

WRITES = 4000


def collector_with(keys: list[bytes]) -> Collector:
    collector = Collector()
    for i, key in enumerate(keys):
        collector.key_stream.add_write(TABLE_SPACE, i * 0.01, key)
    return collector


def test_monotonic_keys_are_a_hotspot_with_a_diagonal_heatmap():
    collector = collector_with([i.to_bytes(8, "big") for i in range(WRITES)])
    verdict = {r["series"]: r["figure"] for r in model_rows(collector.key_stream, SplitParams())}
    assert verdict["VERDICT"] == "HOTSPOT" and float(verdict["hot_node_share"]) > 0.9
    lines = [r["figure"] for r in heatmap_rows(collector.key_stream)]  # the highest keys first
    assert len(lines) == HEATMAP_BUCKETS and {len(line) for line in lines} == {HEATMAP_BINS}
    busy = [[i for i, c in enumerate(line) if c != SHADES[0]] for line in lines]
    # Each eighth of the key space is written in its own eighth of the time, the highest last.
    assert [b[0] for b in busy] == sorted((b[0] for b in busy), reverse=True)
    assert all(b[-1] - b[0] < HEATMAP_BINS // 4 for b in busy)


def test_random_keys_are_spread_with_every_bucket_busy_all_the_time():
    rng = random.Random(7)
    collector = collector_with([rng.getrandbits(64).to_bytes(8, "big") for _ in range(WRITES)])
    verdict = {r["series"]: r["figure"] for r in model_rows(collector.key_stream, SplitParams())}
    assert verdict["VERDICT"] == "SPREAD" and float(verdict["hot_node_share"]) < 0.25
    lines = [r["figure"] for r in heatmap_rows(collector.key_stream)]
    assert all(line.count(SHADES[0]) < HEATMAP_BINS // 4 for line in lines)


def test_too_few_writes_say_so_instead_of_a_verdict():
    collector = collector_with([b"a", b"b"])
    [row] = model_rows(collector.key_stream, SplitParams())
    assert row["figure"] == "waiting" and "2 writes so far" in row["detail"]
    [row] = heatmap_rows(collector.key_stream)
    assert row["figure"] == "waiting"


def test_latency_is_in_milliseconds_to_about_three_digits():
    from keybench.drive.webui import milliseconds

    assert [milliseconds(us) for us in (412, 9_870, 51_234, 1_083_391)] == ["0.412", "9.87", "51.2", "1,083"]


def test_the_model_process_copy_fed_in_pieces_answers_as_the_whole_stream_does():
    from keybench.drive.webui import modelled_rows

    rng = random.Random(3)
    collector = collector_with([rng.getrandbits(64).to_bytes(8, "big") for _ in range(WRITES)])
    stream, marks, answers = collector.key_stream, {}, []
    for piece in range(4):
        writes = stream.writes_after(marks)
        sent = {s: tuple(a[: WRITES // 4] for a in w) for s, w in writes.items()}  # a quarter at a time
        marks = {s: marks.get(s, 0) + len(w[0]) for s, w in sent.items()}
        answers.append(modelled_rows(piece == 0, sent, {}, SplitParams()))
    whole = [*model_rows(stream, SplitParams()), *heatmap_rows(stream)]
    assert answers[-1] == whole
    assert answers[0] != whole  # the first quarter alone is another stream
    fresh = modelled_rows(True, stream.writes_after({}), {}, SplitParams())  # a new stage starts over
    assert fresh == whole
