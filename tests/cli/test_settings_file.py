"""Settings kept with the code: [tool.keybench] in pyproject.toml or a keybench.toml, found from
where keybench runs up to the project's root; the command line wins; a bad file is one line."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from keybench.cli import settings_file
from keybench.cli.arguments import parser
from keybench.errors import KeybenchError
from tests.conftest import keybench

PYPROJECT = """
    [project]
    name = "shop"

    [tool.keybench]
    nodes = 16
    results-dir = "ci-results"

    [tool.keybench.check]
    fail-on-verdict = ["hotspot", "hot_row"]
    strict = true
    """


def project(tmp_path: Path, text: str = PYPROJECT, name: str = "pyproject.toml") -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "db" / "migrations").mkdir(parents=True)
    return tmp_path


def args_in(folder: Path, *argv: str):
    return parser(settings_file.chosen(list(argv), folder)).parse_args(list(argv))


def test_the_file_is_found_from_a_subfolder_and_its_tables_become_the_defaults(tmp_path):
    root = project(tmp_path)
    check = args_in(root / "db" / "migrations", "check", "schema.sql")
    assert (check.nodes, check.fail_on_verdict, check.strict) == (16, "hotspot,hot_row", True)
    assert check.results_dir == str(root / "ci-results")  # from the file's folder, not from where keybench runs
    assert check.settings_file == str(root / "pyproject.toml")
    run = args_in(root, "run")
    assert run.nodes == 16 and not run.fail_on_verdict  # the check's table is the check's alone


def test_the_command_line_wins(tmp_path):
    args = args_in(project(tmp_path), "check", "schema.sql", "--nodes", "4", "--fail-on-verdict", "hot_row")
    assert (args.nodes, args.fail_on_verdict) == (4, "hot_row")


def test_keybench_toml_config_and_no_config(tmp_path):
    root = project(tmp_path, "[check]\nnodes = 32\n", "keybench.toml")
    assert args_in(root, "check", "x.sql").nodes == 32
    assert args_in(root, "--no-config", "check", "x.sql").nodes == 8
    other = tmp_path / "elsewhere.toml"
    other.write_text("[tool.keybench]\nnodes = 12\n")
    assert args_in(root, "--config", str(other), "check", "x.sql").nodes == 12


def test_a_pyproject_without_keybench_settings_ends_the_search(tmp_path):
    project(tmp_path)
    inner = tmp_path / "services" / "orders"
    inner.mkdir(parents=True)
    (inner / "pyproject.toml").write_text("[project]\nname = 'orders'\n")
    assert settings_file.find(inner) is None


@pytest.mark.parametrize("text, complaint", [
    ("[tool.keybench.chek]\nnodes = 4\n", "no command 'chek'"),
    ("[tool.keybench.check]\nfail-on = 'hotspot'\n", "keybench check has no option 'fail-on'"),
    ("[tool.keybench]\nnodez = 4\n", "no command has an option 'nodez'"),
    ("[tool.keybench.check]\nstrict = 'yes'\n", "check.strict: true or false"),
    ("[tool.keybench.run]\nbackend = 'dynamo'\n", "'dynamo' is not one of"),
    ("[tool.keybench.check]\nnodes = { n = 4 }\n", "check.nodes: a text, a number or a list"),
    ("[tool.keybench\nnodes = 4\n", "not valid TOML"),
    ("[tool.keybench.check]\nnodes = 'x'\n", "check.nodes: 'x': not a whole number"),  # not "argument --nodes"
])
def test_a_bad_settings_file_is_one_line_naming_the_file_and_exit_2(tmp_path, text, complaint):
    root = project(tmp_path, text)
    with pytest.raises(KeybenchError, match=complaint):
        args_in(root, "check", "x.sql")
    done = keybench("check", "--bigtable", "{ts}#{device}", cwd=root)
    assert done.returncode == 2 and complaint in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_gate_kept_in_pyproject_gates_the_check_and_the_run_records_its_file(tmp_path, emulator_hosts):
    root = project(tmp_path, """
        [tool.keybench.check]
        fail-on-verdict = ["hotspot"]
        [tool.keybench.run]
        backend = "bigtable"
        strategies = ["salted"]
        duration = "1s"
        no-report = true
        run-id = "kept"
        """)
    checked = keybench("check", "--bigtable", "{ts}#{device}", cwd=root)
    assert checked.returncode == 1 and "FAIL row key {ts}#{device}: hotspot" in checked.stdout
    assert f"keybench: defaults from {root / 'pyproject.toml'}" in checked.stderr
    ran = keybench("run", cwd=root, timeout=240)
    assert ran.returncode == 0, ran.stderr[-2000:]
    meta = json.loads((root / "results" / "kept" / "run.json").read_text())
    assert meta["settings"]["settings_file"] == str(root / "pyproject.toml")
    assert meta["settings"]["strategies"] == ["salted"] and meta["settings"]["duration_s"] == 1.0


def test_record_names_the_settings_file_that_set_its_defaults_as_every_command_does(tmp_path):
    root = project(tmp_path, """
        [tool.keybench.record]
        nodes = 16
        """)
    assert args_in(root, "record", "--", "python", "app.py").nodes == 16
    done = keybench("record", cwd=root)  # no COMMAND: refused before any emulator is found
    assert done.returncode == 2 and "no COMMAND" in done.stderr, done.stderr
    assert f"keybench: defaults from {root / 'pyproject.toml'}" in done.stderr
