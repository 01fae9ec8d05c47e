"""The documentation: the site builds strictly (a broken link fails it), its reference pages
follow the code they are generated from, and the README's console examples are what the
commands print."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from keybench import columns
from keybench.cli import arguments

REPO = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")


def _hook():
    spec = importlib.util.spec_from_file_location("reference_hook", REPO / "docs" / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(MKDOCS), "build", "--strict", "-f", str(root / "mkdocs.yml"), "-d", str(site)],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


@pytest.mark.slow
def test_the_site_builds_strictly_with_the_generated_reference(tmp_path):
    done = _build(REPO, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "keybench run" in cli and "--strategy-dir" in cli and "--fail-on-verdict" in cli
    catalogue = (tmp_path / "site" / "reference" / "catalogue" / "index.html").read_text()
    assert "timestamp_first" in catalogue and "salted" in catalogue


@pytest.mark.slow
def test_a_broken_link_fails_the_strict_build(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(REPO / "docs", root / "docs")
    for name in ("mkdocs.yml", "CONTRIBUTING.md", "CHANGELOG.md"):
        shutil.copy2(REPO / name, root / name)
    index = root / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [a page that does not exist](guides/nowhere.md).\n")
    done = _build(root, tmp_path / "site")
    assert done.returncode != 0
    assert "nowhere.md" in done.stderr


def test_the_cli_reference_holds_every_option_and_help_text_of_the_parser():
    hook = _hook()
    page = hook.cli_page()
    top = arguments.parser()
    [commands] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        assert f"## keybench {name}" in page
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}`" in page, (name, option)
            if action.help:
                assert hook._cell(action.help.replace("%%", "%")) in page, (name, action.dest)


def test_every_result_column_has_a_description_and_a_missing_one_fails_the_build(monkeypatch):
    hook = _hook()
    page = hook.columns_page()
    for name in (*columns.SUMMARY_COLUMNS, *columns.TIMESERIES_COLUMNS, *columns.ANALYSIS_COLUMNS):
        assert f"| `{name}` |" in page
    monkeypatch.delitem(columns.SUMMARY_DESCRIPTIONS, "verdict")
    with pytest.raises(ValueError, match="no description of verdict"):
        hook.columns_page()


def test_the_readme_is_short_and_starts_with_the_quick_start():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert any(line.startswith("## Quick start") for line in lines[:40])


# ---- the README's console examples: `<!-- example: COMMAND -->` before a ```text block.
# Numbers change from run to run; the lines and their words must not. `...` elides lines.
NUMBER = re.compile(r"\d[\d,]*(\.\d+)?")


def _normal(line: str) -> str:
    return " ".join(NUMBER.sub("N", line).split())


def readme_examples() -> tuple[dict[str, str], list[tuple[str, list[str]]]]:
    text = (REPO / "README.md").read_text()
    files = dict(re.findall(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S))
    examples = [(command, block.splitlines())
                for command, block in re.findall(r"<!-- example: (.+?) -->\n```text\n(.*?)```", text, re.S)]
    return files, examples


def test_the_readme_has_examples_to_check():
    files, examples = readme_examples()
    assert "schema.sql" in files
    assert [c.split()[1] for c, _ in examples] == ["run", "check"]


@pytest.mark.parametrize("index", range(2))
def test_each_readme_example_is_what_its_command_prints(index, emulator_hosts, tmp_path):
    files, examples = readme_examples()
    command, shown = examples[index]
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    env = {**os.environ, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"],
           "BIGTABLE_EMULATOR_HOST": emulator_hosts["bigtable"]}
    argv = command.split()
    assert argv[0] == "keybench"
    done = subprocess.run([sys.executable, "-m", "keybench", *argv[1:]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    printed = [_normal(line) for line in done.stdout.splitlines()]
    at = 0
    for line in shown:
        if line.strip() == "...":
            continue
        wanted = _normal(line)
        assert wanted in printed[at:], f"README line not printed (in order) by `{command}`:\n{line}"
        at = printed.index(wanted, at) + 1
