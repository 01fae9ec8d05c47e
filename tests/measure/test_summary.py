import pytest

from keybench.columns import ROW_COLUMNS, SUMMARY_COLUMNS, VERDICTS_FILE_COLUMNS
from keybench.design.strategies import catalogue
from keybench.errors import KeybenchError
from keybench.measure.audit import Integrity
from keybench.measure.collector import OperationStats, Series
from keybench.measure.console import side_by_side
from keybench.measure.rundir import RunDirectory, latest_run
from keybench.measure.summary import (
    provenance_columns,
    read_results,
    read_summary,
    summary_row,
    to_csv,
)
from tests.conftest import keybench

OK = Integrity(acknowledged=10, stored=10, lost=0, duplicates=0, unexpected=0, unknown=0, unknown_stored=0)
SPREAD = provenance_columns(catalogue("spanner")["hash_shard"])


def stats_with(latencies_us, failures=0):
    s = OperationStats("range")
    for v in latencies_us:
        s.histogram.record_value(v)
    n = len(latencies_us)
    s.requests, s.failures, s.rows, s.fanout = n, failures, 5 * n, 16 * n
    return s


def test_summary_percentiles_come_from_the_microsecond_histogram():
    row = summary_row(Series("spanner", "hash_shard", "googlesql", "time_window"),
                      stats_with([200] * 90 + [20_000] * 10), seconds=2.0, integrity=OK, fresh=True, provenance=SPREAD)
    assert row["p50_ms"] == "0.200"
    assert abs(float(row["p99_ms"]) - 20.0) <= 20.0 * 1e-3  # 3 significant digits
    assert row["rps"] == "50.0" and row["fanout"] == "16.00" and row["integrity"] == "ok"
    assert list(row) == list(ROW_COLUMNS)  # the operation's figures, then its design's


def test_mismatch_is_visible_in_every_row_of_the_stage():
    lost = Integrity(10, 9, 1, 0, 0, 0, 0)
    row = summary_row(Series("bigtable", "salted", "", "insert"), stats_with([100]), 1.0, lost, True, SPREAD)
    assert row["integrity"] == "MISMATCH" and row["lost"] == 1


def test_csv_round_trips_and_the_table_lines_strategies_up(tmp_path):
    rows = [summary_row(Series("spanner", name, "googlesql", "insert"), stats_with([100, 300]), 1.0, OK, True, SPREAD)
            for name in ("timestamp_first", "hash_shard")]
    path = tmp_path / "summary.csv"
    path.write_text(to_csv(rows))
    assert [r["strategy"] for r in read_summary(path)] == ["timestamp_first", "hash_shard"]
    table = side_by_side(rows)
    assert "spanner / insert" in table and table.count("\n") == 4


def test_text_a_spreadsheet_would_run_as_a_formula_is_written_as_text_and_numbers_stay(tmp_path):
    row = summary_row(Series("spanner", "hash_shard", "googlesql", "insert"), stats_with([100]), 1.0, OK, True, SPREAD)
    row |= {"note": '=HYPERLINK("http://x","y")', "advice": "+cmd|' /C calc'!A0", "lost": "-1", "rps": "-0.5"}
    path = tmp_path / "summary.csv"
    path.write_text(to_csv([row]))
    (tmp_path / "verdicts.csv").write_text(to_csv([row], VERDICTS_FILE_COLUMNS))
    [back] = read_results(path)
    assert back["note"] == "'=HYPERLINK(\"http://x\",\"y\")" and back["advice"] == "'+cmd|' /C calc'!A0"
    assert back["lost"] == "-1" and back["rps"] == "-0.5"


def test_a_csv_path_that_is_no_regular_file_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "summary.csv").symlink_to("/dev/zero")
    with pytest.raises(KeybenchError, match="is not a regular file"):
        read_summary(tmp_path / "summary.csv")


def test_a_run_directory_appears_only_when_committed(tmp_path):
    run = RunDirectory(tmp_path, "r1")
    run.open()
    run.write("summary.csv", "a,b\n")
    assert not run.final.exists() and run.partial.name.startswith(".")
    run.commit()
    assert (tmp_path / "r1" / "summary.csv").read_text() == "a,b\n"
    assert not run.partial.exists()


def test_the_newest_finished_run_is_found_and_unfinished_ones_never(tmp_path):
    import os

    for name, age in (("older", 200), ("newer", 100), (".cut.partial", 0), (".broke.failed", 0), ("empty", 0)):
        (tmp_path / name).mkdir()
        if name != "empty":
            (tmp_path / name / "summary.csv").write_text("backend\n")
            os.utime(tmp_path / name / "summary.csv", (1e9 - age, 1e9 - age))
    assert latest_run(tmp_path) == tmp_path / "newer"
    with pytest.raises(KeybenchError, match="no finished run under .*: name a run directory, or run `keybench run`"):
        latest_run(tmp_path / "nothing-here")


def test_report_with_no_finished_run_is_one_line(tmp_path):
    done = keybench("report", "--results-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no finished run under" in done.stderr


def test_discarded_run_leaves_nothing(tmp_path):
    run = RunDirectory(tmp_path, "r2")
    run.open()
    run.write("locust/x_stats.csv", "x\n")
    run.discard()
    assert list(tmp_path.iterdir()) == []


def test_results_directory_blocked_by_a_file_is_reported(tmp_path):
    (tmp_path / "results").write_text("not a directory")
    with pytest.raises(KeybenchError, match="not writable"):
        RunDirectory.check_writable(tmp_path / "results")


def test_a_stage_that_completed_nothing_or_whose_operation_always_failed_fails_the_run():
    from keybench.design import strategies
    from keybench.measure.summary import stage_problems

    salted = strategies.catalogue("bigtable")["salted"]
    idle = [summary_row(Series("bigtable", "salted", "", op), stats_with([]), 1.0, OK, True, SPREAD)
            for op in ("insert", "point_read")]
    assert f"{salted.label} completed no operation" in stage_problems(salted, idle, OK, None)
    failing = stats_with([100, 200, 300])
    failing.failures = 3
    rows = [summary_row(Series("bigtable", "salted", "", "insert"), failing, 1.0, OK, True, SPREAD),
            summary_row(Series("bigtable", "salted", "", "point_read"), stats_with([100]), 1.0, OK, True, SPREAD)]
    assert stage_problems(salted, rows, OK, None) == [f"{salted.label} insert failed every time (3 of 3)"]
    rows[0] = summary_row(Series("bigtable", "salted", "", "insert"), stats_with([100, 200]), 1.0, OK, True, SPREAD)
    assert stage_problems(salted, rows, OK, None) == []


def test_provenance_columns_say_documented_only_where_a_document_states_the_distribution():
    spanner, bigtable = catalogue("spanner"), catalogue("bigtable")
    cited = provenance_columns(spanner["timestamp_first"])
    assert cited["documented"] == cited["expected"] == "hotspot"
    assert cited["source"].startswith('Spanner: Schema design best practices, section "Choose a primary key')
    own = provenance_columns(spanner["uuid7"])
    assert own["documented"] == "" and own["expected"] == "hotspot"
    assert own["source"].startswith("not in the documents")
    advice_only = provenance_columns(bigtable["hashed"])
    assert advice_only["documented"] == "" and advice_only["source"].startswith("Bigtable: Schema design best "
                                                                                "practices")
    assert advice_only["advice"].startswith("avoid: hashing loses")
    assert list(VERDICTS_FILE_COLUMNS[-3:]) == ["note", "source", "advice"]


@pytest.mark.parametrize("samples, thin", [(5, "p50 p90 p99"), (20, "p90 p99"), (50, "p99"), (150, "")])
def test_a_row_names_the_percentiles_its_operations_are_too_few_for(samples, thin):
    row = summary_row(Series("spanner", "hash_shard", "googlesql", "point_read"), stats_with([100] * samples), 1.0,
                      OK, True, SPREAD)
    assert row["too_few_samples"] == thin


def test_a_design_s_verdict_and_source_are_written_once_in_verdicts_csv_and_read_back_with_every_row(tmp_path):
    """summary.csv holds each operation's figures; verdicts.csv each design's verdict, figures and
    source once; read_results joins them back, and reads a summary of schema 4 as it is."""
    from keybench.measure.summary import design_rows

    rows = []
    for name, verdict in (("timestamp_first", "hotspot"), ("hash_shard", "spread")):
        for op in ("insert", "time_window"):
            row = summary_row(Series("spanner", name, "googlesql", op), stats_with([100, 300]), 1.0, OK, True, SPREAD)
            rows.append(row | {"verdict": verdict, "verdict_reason": f"why {name}"})
    (tmp_path / "summary.csv").write_text(to_csv(rows))
    (tmp_path / "verdicts.csv").write_text(to_csv(design_rows(rows), VERDICTS_FILE_COLUMNS))
    header = (tmp_path / "summary.csv").read_text().splitlines()[0].split(",")
    assert "verdict" not in header and "source" not in header and header == list(SUMMARY_COLUMNS)
    assert len((tmp_path / "verdicts.csv").read_text().splitlines()) == 1 + 2
    joined = read_results(tmp_path / "summary.csv")
    assert [(r["strategy"], r["operation"], r["verdict"], r["verdict_reason"]) for r in joined] == [
        ("timestamp_first", "insert", "hotspot", "why timestamp_first"),
        ("timestamp_first", "time_window", "hotspot", "why timestamp_first"),
        ("hash_shard", "insert", "spread", "why hash_shard"), ("hash_shard", "time_window", "spread", "why hash_shard")]
    assert joined[0]["source"] == SPREAD["source"]
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.csv").write_text(to_csv(rows, ROW_COLUMNS))  # schema 4 and earlier: all in every row
    assert read_results(old / "summary.csv")[2]["verdict"] == "spread"
