"""What `keybench run` prints: the verdicts, then the latency, in the terminal's width, each
percentile with its n and marked where n is too few for it; --verbose prints every column."""

from __future__ import annotations

import pytest

from keybench.measure.collector import Series
from keybench.measure.console import run_tables, verdict_offenders
from keybench.measure.samples import MIN_SAMPLES
from keybench.measure.summary import summary_row
from tests.measure.test_summary import OK, SPREAD, stats_with

LONG_NAME = "desc_timestamp_first"  # with [postgresql], the catalogue's widest label


def _rows() -> list[dict]:
    verdict = {"verdict": "hotspot", "agrees": "no", "hot_node_share": "0.981", "read_ranges_touched": "",
               "model_nodes": "8"}
    rows = []
    for operation, samples in (("insert", 150), ("point_read", 5), ("time_window", 40)):
        row = summary_row(Series("spanner", LONG_NAME, "postgresql", operation), stats_with([900] * samples), 1.0,
                          OK, True, SPREAD)
        rows.append(row | verdict | ({"read_ranges_touched": "24.50"} if operation == "time_window" else {}))
    return rows


@pytest.mark.parametrize("width", [100, 80, 60])
def test_every_line_fits_the_width(width):
    text = run_tables(_rows(), width)
    assert max(map(len, text.splitlines())) <= width
    assert f"{LONG_NAME}[postgresql]" in text  # a design's name is never cut below 60 columns


def test_a_percentile_from_too_few_samples_is_marked_and_its_n_shown():
    lines = {line.split()[0]: line.split() for line in run_tables(_rows(), 100).splitlines() if line.startswith("  ")}
    operation, access, n, p50, p99, failures, integrity, ranges = lines["insert"]
    assert (n, p50.endswith("~"), p99.endswith("~"), integrity) == ("150", False, False, "ok")
    operation, access, n, p50, p99 = lines["point_read"][:5]
    assert int(n) < MIN_SAMPLES["p50"] and p50.endswith("~") and p99.endswith("~")
    operation, access, n, p50, p99, failures, integrity, ranges = lines["time_window"]
    assert (ranges, n, p50.endswith("~"), p99.endswith("~")) == ("24.50", "40", False, True)


def test_a_column_that_does_not_fit_is_left_out_whole_never_cut_into_another_number():
    for width in (60, 70):
        for line in run_tables(_rows(), width).splitlines():
            assert not line.rstrip().endswith("...") or line.startswith(f"{LONG_NAME}[postgresql] "), line
    narrow = [line.split() for line in run_tables(_rows(), 60).splitlines() if line.startswith("  time_window")]
    assert narrow and all(cells[-1] != "24.50" and "24.50" not in cells for cells in narrow)


def test_the_verdict_comes_first_with_what_was_expected_when_it_disagrees():
    text = run_tables(_rows(), 100)
    verdict_line = next(line for line in text.splitlines() if line.startswith(f"{LONG_NAME}[postgresql] "))
    assert verdict_line.split()[1:3] == ["hotspot", "no"]
    assert verdict_line.endswith("time_window range 24.50")  # the read that touches the most ranges
    assert f"{LONG_NAME}[postgresql]: expected spread (documented), modelled hotspot" in text
    assert text.index(verdict_line) < text.index("expected spread") < text.index("latency, ms")


def test_verbose_prints_every_column_however_wide():
    text = run_tables(_rows(), 100, verbose=True)
    assert "spanner / verdict" in text and "spanner / insert" in text and "rows_per_op" in text
    assert max(map(len, text.splitlines())) > 100


def test_a_gate_line_names_the_index_that_decided_and_an_expectation_only_where_there_is_one():
    def row(strategy: str, verdict: str, space: str, expected: str) -> dict:
        return {"backend": "spanner", "strategy": strategy, "dialect": "googlesql", "verdict": verdict,
                "verdict_reason": "the busiest node takes 1.000", "model_space": space, "expected": expected}
    rows = [row("timestamp_first", "hotspot", "table", "hotspot"), row("players", "hotspot", "PlayerGame", ""),
            row("uuid4_string", "spread", "table", "spread")]
    assert verdict_offenders(rows, ("hotspot",)) == [
        "spanner:timestamp_first verdict hotspot (the busiest node takes 1.000); expected hotspot",
        "spanner:players verdict hotspot in index PlayerGame (the busiest node takes 1.000)"]
