"""Bad input: one line on stderr, exit code 2, nothing written."""

import pytest

from tests.conftest import keybench


@pytest.mark.parametrize("args, complaint", [
    (["run", "--strategies", "timestamp_frist"], "unknown strategy 'timestamp_frist'"),
    (["run", "--backend", "dynamo"], "invalid choice: 'dynamo'"),
    (["run", "--duration", "soon"], "cannot parse duration 'soon'"),
    (["run", "--duration", "0s"], "duration must be positive"),
    (["run", "--users", "0"], "--users must be at least 1"),
    (["run", "--users", "-3"], "--users must be at least 1"),
    (["run", "--population", "0"], "--population must be at least 1"),
    (["run", "--buckets", "0"], "--buckets must be at least 1"),
    (["run", "--batch-size", "0"], "--batch-size must be at least 1"),
    (["run", "--backend", "spanner", "--strategies", "bit_reversed_sequence", "--batch-size", "10"],
     "keys the database generates"),
    (["run", "--dialects", "mysql"], "unknown Spanner dialect 'mysql'"),
    (["run", "--backend", "bigtable", "--payload-bytes", "20000000"], "Bigtable's rule is a cell under 10 MB"),
    (["emulators", "sideways"], "invalid choice: 'sideways'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, complaint):
    extra = ["--results-dir", str(tmp_path / "results")] if args[0] == "run" else []
    result = keybench(*args, *extra, timeout=60)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and complaint in lines[0], result.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())


def test_unknown_strategy_names_the_valid_ones():
    result = keybench("run", "--backend", "bigtable", "--strategies", "nope", timeout=60)
    assert "field_promoted" in result.stderr and "salted" in result.stderr


def test_unwritable_results_directory(tmp_path):
    blocked = tmp_path / "results"
    blocked.write_text("a file where the directory should be")
    result = keybench("run", "--results-dir", str(blocked), timeout=60)
    assert result.returncode == 2
    assert "not writable" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert blocked.read_text() == "a file where the directory should be"


def test_strategies_lists_each_design_with_its_read_plan():
    result = keybench("strategies", timeout=60)
    assert result.returncode == 0
    assert "time_window=multi_rangex16" in result.stdout
    assert result.stdout.count("documented") >= 6
