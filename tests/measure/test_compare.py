"""`keybench compare` on a real run's summary and doctored copies of it."""

import csv
import json

import pytest

from keybench.columns import REPETITION_COLUMNS, VERDICTS_FILE_COLUMNS
from keybench.design.strategies import catalogue
from keybench.measure.audit import Integrity
from keybench.measure.collector import OperationStats, Series
from keybench.measure.compare import Rule
from keybench.measure.summary import design_rows, provenance_columns, summary_row, to_csv
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
    assert "\nspanner/hash_shard\n" in result.stdout and "  time_window" in result.stdout
    assert "REGRESSION" not in result.stdout and "cannot tell noise from change" in result.stdout


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


# Each repetition's p50 and rps around the baseline's, as five 10-second stages spread them.
SPREAD = (1.00, 1.04, 0.97, 1.02, 0.99)


def with_repetitions(run, scale: float = 1.0, spread=SPREAD, requests: int = 500, base=None):
    """repetitions.csv for every row of `run`: the p50/p90/p99 of `base` (default `run`) times
    `scale` and the spread, its rate divided by them (a slower candidate does fewer operations)."""
    with open((base or run) / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    reps = []
    for row in rows:
        for number, factor in enumerate(spread, start=1):
            rep = {c: row.get(c, "") for c in REPETITION_COLUMNS} | {"repetition": number, "requests": requests}
            for c in ("p50_ms", "p90_ms", "p99_ms"):
                rep[c] = f"{float(row[c]) * scale * factor:.3f}"
            rep["rps"] = f"{float(row['rps']) / (scale * factor):.1f}"
            reps.append(rep)
    (run / "repetitions.csv").write_text(to_csv(reps, REPETITION_COLUMNS))
    return run


def test_with_repetitions_the_same_figures_show_no_change_and_a_30_percent_slower_copy_does(baseline, tmp_path):
    with_repetitions(baseline)
    same = with_repetitions(doctored(baseline, tmp_path, "same", lambda r: None))
    result = keybench("compare", str(baseline), str(same), "--fail-on", "p50_ms>+20%", timeout=60)
    assert result.returncode == 0, result.stdout
    tested = [line for line in result.stdout.splitlines() if line.startswith("  ") and "(p=" in line]
    assert len(tested) == 12 and all("~ (p=1.00)" in line for line in tested)  # 4 rows x rps, p50, p99

    slower = with_repetitions(doctored(baseline, tmp_path, "slow", lambda r: r.update(
        p50_ms=f"{float(r['p50_ms']) * 1.3:.3f}", p99_ms=f"{float(r['p99_ms']) * 1.3:.3f}")), scale=1.3, base=baseline)
    result = keybench("compare", str(baseline), str(slower), "--fail-on", "p50_ms>+20%", timeout=60)
    assert result.returncode == 1
    p50 = result.stdout[result.stdout.index("\np50_ms"):result.stdout.index("\np99_ms")]
    changes = [line.split(None, 3)[3] for line in p50.splitlines() if line.startswith("  ")]
    assert len(changes) == 4 and all(c.startswith("+30% (p=0.0") for c in changes), p50
    assert result.stdout.count("REGRESSION") == 4 and "breaks p50_ms>+20%" in result.stdout


def test_a_relative_rule_is_not_broken_by_noise_nor_by_a_percentile_of_a_handful_of_samples(baseline, tmp_path):
    """B's p50 a little higher but within the repetitions' spread: no change, no regression.
    A p99 from 20 samples per repetition: too few to test, so no gate either."""
    with_repetitions(baseline, spread=(1.0, 1.3, 0.8, 1.2, 0.9))
    noisy = with_repetitions(doctored(baseline, tmp_path, "noisy", lambda r: None), scale=1.1,
                             spread=(0.9, 1.2, 0.85, 1.25, 1.0))
    result = keybench("compare", str(baseline), str(noisy), "--fail-on", "p50_ms>+5%", timeout=60)
    assert result.returncode == 0 and "REGRESSION" not in result.stdout, result.stdout
    few = with_repetitions(doctored(baseline, tmp_path, "few", lambda r: r.update(
        p99_ms=f"{float(r['p99_ms']) * 2:.3f}")), scale=2.0, requests=20, base=baseline)
    with_repetitions(baseline, requests=20)
    result = keybench("compare", str(baseline), str(few), "--fail-on", "p99_ms>+20%", timeout=60)
    assert "too few samples to test" in result.stdout and "REGRESSION" not in result.stdout, result.stdout


def test_three_repetitions_are_said_to_be_too_few_for_any_change_to_show(baseline, tmp_path):
    with_repetitions(baseline, spread=SPREAD[:3])
    slower = with_repetitions(doctored(baseline, tmp_path, "slow", lambda r: None), scale=2.0, spread=SPREAD[:3])
    result = keybench("compare", str(baseline), str(slower), timeout=60)
    assert "3 and 3 repetitions can never reach p < 0.05: run both with --repeat 5" in result.stdout
    assert "+100%" not in result.stdout and "~ (p=0.10)" in result.stdout


def _run_json(run, **settings):
    meta = {"status": "complete", "settings": {"users": 8, "duration_s": 10.0, "nodes": 8, **settings},
            "versions": {"keybench": "0.2.0"}, "machine": {"cores": 2}}
    (run / "run.json").write_text(json.dumps(meta))


def test_runs_of_different_settings_draw_a_warning_first_and_strict_refuses_them(baseline, tmp_path):
    _run_json(baseline)
    other = doctored(baseline, tmp_path, "other", lambda r: None)
    _run_json(other, users=4)
    result = keybench("compare", str(baseline), str(other), timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("warning: the runs differ in what changes the figures: users 8 -> 4")
    strict = keybench("compare", str(baseline), str(other), "--strict", timeout=60)
    assert strict.returncode == 2 and strict.stderr.count("\n") == 1 and "users 8 -> 4" in strict.stderr


def with_verdicts(run, verdicts: dict[str, str]):
    """verdicts.csv beside the run's summary: each design spread, but those `verdicts` names."""
    with open(run / "summary.csv", newline="") as f:
        rows = [r | {"verdict": verdicts.get(r["strategy"], "spread")} for r in csv.DictReader(f)]
    (run / "verdicts.csv").write_text(to_csv(design_rows(rows), VERDICTS_FILE_COLUMNS))
    return run


def test_a_changed_verdict_is_listed_first_and_fail_on_verdict_gates_on_it(baseline, tmp_path):
    before = with_verdicts(doctored(baseline, tmp_path, "before", lambda r: None), {})
    changed = with_verdicts(doctored(baseline, tmp_path, "changed", lambda r: None), {"hash_shard": "hotspot"})
    result = keybench("compare", str(before), str(changed), timeout=60)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and "verdicts: 1 of 2 design(s) changed:" in lines[1]
    assert lines[2] == "  spanner/hash_shard: spread -> hotspot"
    gated = keybench("compare", str(before), str(changed), "--fail-on", "verdict", timeout=60)
    assert gated.returncode == 1 and "REGRESSION verdict changed: spanner/hash_shard" in gated.stdout


def test_the_comparison_fits_100_columns(baseline, tmp_path):
    with_repetitions(baseline)
    slower = with_repetitions(doctored(baseline, tmp_path, "slow", lambda r: None), scale=1.3)
    result = keybench("compare", str(baseline), str(slower), env={"COLUMNS": "100"}, timeout=60)
    assert max(len(line.encode()) for line in result.stdout.splitlines()) <= 100


@pytest.mark.emulator
def test_a_run_with_repetitions_writes_each_one_and_compares_with_itself_as_no_change(emulator_hosts, tmp_path):
    done = keybench("run", "--backend", "bigtable", "--strategies", "salted", "--smoke", "--duration", "1s",
                    "--repeat", "3", "--no-report", "--results-dir", str(tmp_path), "--run-id", "r", timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(tmp_path / "r" / "repetitions.csv", newline="") as f:
        reps = list(csv.DictReader(f))
    with open(tmp_path / "r" / "summary.csv", newline="") as f:
        summary = {r["operation"]: r for r in csv.DictReader(f)}
    assert sorted({r["repetition"] for r in reps}) == ["1", "2", "3"] and len(reps) == 3 * len(summary)
    for operation, row in summary.items():  # the repetitions add up to the summary
        assert sum(int(r["requests"]) for r in reps if r["operation"] == operation) == int(row["requests"])
    result = keybench("compare", str(tmp_path / "r"), str(tmp_path / "r"), timeout=60)
    assert result.returncode == 0 and "3 repetitions of A, 3 of B" in result.stdout
    assert "verdicts: 0 of 1 design(s) changed" in result.stdout


def test_json_holds_every_figure_its_test_and_the_regressions(baseline, tmp_path):
    with_repetitions(baseline)
    slower = with_repetitions(doctored(baseline, tmp_path, "slow", lambda r: r.update(
        p50_ms=f"{float(r['p50_ms']) * 1.3:.3f}")), scale=1.3, base=baseline)
    result = keybench("compare", str(baseline), str(slower), "--fail-on", "p50_ms>+20%", "--format", "json",
                      timeout=60)
    document = json.loads(result.stdout)  # stdout is the document alone
    assert result.returncode == document["exit_code"] == 1 and len(document["regressions"]) == 4
    p50 = [f for f in document["figures"] if f["metric"] == "p50_ms"]
    assert len(p50) == 4 and all(f["significant"] and f["p"] < 0.05 and f["interval"][0] > 1 for f in p50)
    assert all(f["tested"] is False for f in document["figures"] if f["metric"] == "requests")
