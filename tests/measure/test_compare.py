"""`keybench compare` on a real run's summary and doctored copies of it."""

import csv

import pytest

from keybench.design.strategies import catalogue
from keybench.measure.audit import Integrity
from keybench.measure.collector import OperationStats, Series
from keybench.measure.compare import Rule
from keybench.measure.summary import provenance_columns, summary_row, to_csv
from tests.conftest import keybench

OK = Integrity(10, 10, 0, 0, 0, 0, 0)


@pytest.fixture
def baseline(tmp_path):
    rows = []
    for strategy, latency_us in (("timestamp_first", 1_000), ("hash_shard", 2_000)):
        for op in ("insert", "time_window"):
            stats = OperationStats("range")
            for i in range(100):
                stats.histogram.record_value(latency_us + i * 10)
            stats.requests = 100
            rows.append(summary_row(Series("spanner", strategy, "googlesql", op), stats, 1.0, OK, True,
                                    provenance_columns(catalogue("spanner")[strategy])))
    run = tmp_path / "a"
    run.mkdir()
    (run / "summary.csv").write_text(to_csv(rows))
    return run


def doctored(baseline, tmp_path, name, change):
    with open(baseline / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        change(r)
    run = tmp_path / name
    run.mkdir()
    (run / "summary.csv").write_text(to_csv(rows))
    return run


def test_an_identical_copy_passes(baseline, tmp_path):
    same = doctored(baseline, tmp_path, "same", lambda r: None)
    result = keybench("compare", str(baseline), str(same), "--fail-on", "p99_ms>+20%", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "spanner/hash_shard[googlesql]/time_window" in result.stdout and "REGRESSION" not in result.stdout


def test_a_p99_raised_by_half_is_flagged(baseline, tmp_path):
    slower = doctored(baseline, tmp_path, "slow", lambda r: r.update(p99_ms=f"{float(r['p99_ms']) * 1.5:.3f}"))
    result = keybench("compare", str(baseline), str(slower / "summary.csv"), "--fail-on", "p99_ms>+20%", timeout=60)
    assert result.returncode == 1
    assert result.stdout.count("REGRESSION") == 4 and "1.50" in result.stdout


def test_absolute_and_downward_rules():
    assert Rule.parse("failures>0").broken(0, 1) and not Rule.parse("failures>0").broken(5, 0)
    assert Rule.parse("rps<-10%").broken(100, 85) and not Rule.parse("rps<-10%").broken(100, 95)


@pytest.mark.parametrize("content, complaint", [
    ("a,b\n1,2\n", "is not a keybench summary.csv"),
    ("schema_version,backend,strategy,dialect,operation\n9,spanner,x,,insert\n", "schema_version 9"),
])
def test_malformed_input_is_one_line_and_exit_2(baseline, tmp_path, content, complaint):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    result = keybench("compare", str(baseline), str(bad), timeout=60)
    assert result.returncode == 2 and complaint in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_runs_with_nothing_in_common_are_refused(baseline, tmp_path):
    other = doctored(baseline, tmp_path, "other", lambda r: r.update(backend="bigtable"))
    result = keybench("compare", str(baseline), str(other), timeout=60)
    assert result.returncode == 2 and "share no" in result.stderr


def test_a_bad_rule_is_refused():
    result = keybench("compare", "a", "b", "--fail-on", "p99 grows", timeout=60)
    assert result.returncode == 2 and "cannot parse --fail-on" in result.stderr


def test_a_candidate_missing_a_row_of_the_baseline_fails_whatever_the_rules(baseline, tmp_path):
    fewer = doctored(baseline, tmp_path, "fewer", lambda r: None)
    lines = (fewer / "summary.csv").read_text().splitlines()
    (fewer / "summary.csv").write_text("\n".join(lines[:-1]) + "\n")  # hash_shard's time_window is gone
    result = keybench("compare", str(baseline), str(fewer), timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    missing = "spanner/hash_shard/googlesql/time_window"
    assert f"REGRESSION 1 row(s) of the baseline are missing from the candidate: {missing}" in result.stdout


@pytest.mark.parametrize("integrity", ["unverified", "MISMATCH"])
def test_a_candidate_whose_integrity_is_not_ok_fails(baseline, tmp_path, integrity):
    bad = doctored(baseline, tmp_path, "bad", lambda r: r.update(integrity=integrity))
    result = keybench("compare", str(baseline), str(bad), "--fail-on", "failures>0", timeout=60)
    assert result.returncode == 1
    assert result.stdout.count(f"candidate integrity {integrity}") == 4


def test_a_candidate_row_that_ran_0_times_fails_whatever_the_rules(baseline, tmp_path):
    idle = doctored(baseline, tmp_path, "idle",
                    lambda r: r.update(requests="0") if r["operation"] == "time_window" else None)
    result = keybench("compare", str(baseline), str(idle), timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("ran it 0 times, so its figures say nothing") == 2
    assert "spanner/timestamp_first/googlesql/time_window: the candidate ran it 0 times" in result.stdout


def test_a_candidate_run_that_did_not_complete_fails(baseline, tmp_path):
    cut = doctored(baseline, tmp_path, "cut", lambda r: None)
    (cut / "run.json").write_text('{"status": "interrupted"}')
    result = keybench("compare", str(baseline), str(cut), timeout=60)
    assert result.returncode == 1 and "the candidate run is interrupted, not complete" in result.stdout


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_non_finite_figure_is_refused_not_compared(baseline, tmp_path, value):
    odd = doctored(baseline, tmp_path, "odd", lambda r: r.update(p99_ms=value))
    result = keybench("compare", str(baseline), str(odd), "--fail-on", "p99_ms>+20%", timeout=60)
    assert result.returncode == 2 and "is not a finite number" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe binary",
                                     b"schema_version,backend\n2,spanner,extra,fields\n"])
def test_a_binary_or_ragged_summary_is_one_line_and_exit_2(baseline, tmp_path, content):
    bad = tmp_path / "summary.csv"
    bad.write_bytes(content)
    result = keybench("compare", str(baseline), str(bad), timeout=60)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
