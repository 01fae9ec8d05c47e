"""The report's SVG plots: well-formed, every figure on its log axis where it belongs, a too-small
sample drawn hollow, each mark naming its figure, and names escaped."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from keybench.measure.plots import latency_svg, linear_ticks, log_ticks, throughput_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(("low", "high"), [(0.37, 1234.0), (5.0, 5.0), (1.0, 10.0), (0.004, 0.09), (2e3, 3e6)])
def test_log_ticks_run_in_steps_of_1_2_5_and_cover_the_figures(low, high):
    ticks = log_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high and len(ticks) >= 2
    assert ticks == sorted(set(ticks))
    for tick in ticks:
        mantissa = tick / 10 ** math.floor(math.log10(tick) + 1e-9)
        assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-6, tick
    assert ticks[1] > low * (1 - 1e-9) and (ticks[-2] < high or len(ticks) == 2)  # none wasted beyond the figures


@pytest.mark.parametrize("high", [0.3, 7.0, 10.0, 3418.0, 1e6])
def test_linear_ticks_start_at_zero_and_reach_the_top(high):
    ticks = linear_ticks(high)
    assert ticks[0] == 0 and ticks[-1] >= high and ticks[-2] < high and 3 <= len(ticks) <= 11


def _row(strategy: str, p50: float, p99: float, requests: int, too_few: str = "") -> dict:
    return {"strategy": strategy, "dialect": "googlesql", "requests": str(requests), "p50_ms": str(p50),
            "p90_ms": str((p50 + p99) / 2), "p99_ms": str(p99), "max_ms": str(p99 * 2), "too_few_samples": too_few}


def _label(row: dict) -> str:
    return row["strategy"]


def test_a_latency_plot_places_each_mark_on_its_log_axis_and_draws_too_few_hollow():
    rows = [_row("hash_shard", 2.0, 20.0, 5000), _row("uuid4_string", 10.0, 100.0, 12, "p99")]
    root = ET.fromstring(latency_svg(rows, "spanner / insert", _label))
    assert root.get("class") == "latency"
    marks = {mark.find(f"{SVG}title").text: mark for mark in root.iter()
             if mark.find(f"{SVG}title") is not None and mark.tag != f"{SVG}svg"}
    p50 = {name: float(marks[f"{name} (n={n}): p50 {p} ms"].get("cx")) for name, n, p in
           (("hash_shard", 5000, 2), ("uuid4_string", 12, 10))}
    first_p99 = marks["hash_shard (n=5000): p99 20 ms"]
    hollow = marks["uuid4_string (n=12): p99 100 ms (too few operations)"]

    def x_of(triangle) -> float:
        return float(triangle.get("d").split()[0][1:])  # the apex: M<x> <y>

    # A decade is the same width wherever it falls: 2 -> 20 ms and 10 -> 100 ms span alike.
    assert x_of(first_p99) - p50["hash_shard"] == pytest.approx(x_of(hollow) - p50["uuid4_string"], abs=0.2)
    assert p50["hash_shard"] < p50["uuid4_string"] < x_of(first_p99)  # 2 < 10 < 20 ms, on one axis
    assert hollow.get("fill") == "none" and first_p99.get("fill") != "none"
    assert marks["uuid4_string (n=12): p50 10 ms"].get("fill") != "none"


def test_a_latency_plot_of_nothing_says_so_and_names_are_escaped():
    empty = ET.fromstring(latency_svg([], "bigtable / point_read", _label))
    assert "no operation completed" in "".join(empty.itertext())
    crafted = ET.fromstring(latency_svg([_row("<b>x</b>", 1.0, 2.0, 100)], "t", _label))
    assert "<b>x</b> (n=100)" in "".join(crafted.itertext())


def test_a_throughput_plot_has_a_line_and_a_legend_entry_per_design():
    series = {"hash_shard": [(0, 100), (1, 900), (2, 950)], "timestamp_first": [(0, 80), (1, 700)]}
    root = ET.fromstring(throughput_svg(series, "spanner (googlesql): throughput over time"))
    lines = root.findall(f"{SVG}polyline")
    assert [line.find(f"{SVG}title").text for line in lines] == sorted(series)
    assert [len(line.get("points").split()) for line in lines] == [3, 2]
    assert {"hash_shard", "timestamp_first"} <= set(root.itertext())
