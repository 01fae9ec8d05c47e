"""The documentation: the site builds strictly (a broken link fails it), its reference pages
follow the code they are generated from, and the README's console examples are what the
commands print."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
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
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": _pythonpath()})


def _pythonpath() -> str:
    """This tree's src/ first, so that the hook and the examples use this tree's keybench."""
    return os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))


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
    for name in (*columns.SUMMARY_COLUMNS, *columns.VERDICTS_FILE_COLUMNS, *columns.TIMESERIES_COLUMNS,
                 *columns.REPETITION_COLUMNS, *columns.ANALYSIS_COLUMNS):
        assert f"| `{name}` |" in page
    monkeypatch.delitem(columns.SUMMARY_DESCRIPTIONS, "verdict")
    with pytest.raises(ValueError, match="no description of verdict"):
        hook.columns_page()


def test_the_readme_is_short_and_starts_with_the_quick_start():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert any(line.startswith("## Quick start") for line in lines[:40])


# ---- the console examples of the README and of every hand-written page of docs/.
# An example is a ```console block: `$ COMMAND` lines, each followed by lines its output must
# hold, in order. Numbers change from run to run (they are compared as N, and so is a `-`
# that stands for a missing figure, as `point/-`), the lines and
# their words must not; a line `...` skips lines, and `...` within a line skips words.
# `$ echo $?` followed by a code checks the previous command's exit code (0 otherwise).
# A block after `<!-- file: NAME -->` is written to NAME in the directory the page's
# commands run in. Output that is not a checked example cannot be a ```text block.
NUMBER = re.compile(r"\d[\d,]*(\.\d+)?")
FENCE = re.compile(r"(?:<!-- file: (\S+) -->\n)?```(\w*)\n(.*?)```", re.S)


NO_FIGURE = re.compile(r"(?<![^\s/=])-(?=\s|$)")  # `-` where a figure may be missing: a number too


def _normal(line: str) -> str:
    return " ".join(NO_FIGURE.sub("N", re.sub(r"={3,}", "==", NUMBER.sub("N", line))).split())


def _matches(wanted: str, printed: str) -> bool:
    parts = [re.escape(p.strip()) for p in wanted.split("...")]
    return re.fullmatch(r"\s*.*?\s*".join(parts), printed) is not None


def doc_pages() -> list[Path]:
    return [REPO / "README.md", *sorted(p for p in (REPO / "docs").rglob("*.md") if "hooks" not in p.parts)]


def page_examples(page: Path) -> tuple[dict[str, str], list[list[tuple[str, list[str]]]]]:
    """The files a page names, and its console blocks as [(command, expected lines), ...]."""
    files: dict[str, str] = {}
    blocks = []
    for name, language, body in FENCE.findall(page.read_text()):
        if name:
            files[name] = body
        if language != "console":
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:].split("  #")[0].strip(), []))
            else:
                assert steps, f"{page.name}: a console block must start with a `$ ` command"
                steps[-1][1].append(line)
        blocks.append(steps)
    return files, blocks


EXAMPLES = [(page, n) for page in doc_pages() for n in range(len(page_examples(page)[1]))]


def test_the_docs_have_checked_examples_and_no_unchecked_output():
    assert {p.name for p, _ in EXAMPLES} >= {"README.md", "check.md", "ci.md"}
    readme_files, readme = page_examples(REPO / "README.md")
    assert "schema.sql" in readme_files
    assert [steps[0][0].split()[:2] for steps in readme] == [["keybench", "run"], ["keybench", "check"]]
    for page in doc_pages():
        # A benchmark's figures file, included whole, is output the benchmark itself wrote.
        text = re.sub(r'```text\n--8<-- "benchmarks/results/\w+\.txt"\n```', "", page.read_text())
        assert "```text" not in text and "```shell-session" not in text, \
            f"{page}: show a command's output as a checked ```console example"


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    program = {"keybench": [sys.executable, "-m", "keybench"], "pytest": [sys.executable, "-m", "pytest"]}
    assert argv[0] in program, f"an example runs keybench or pytest, not {argv[0]}"
    return subprocess.run([*program[argv[0]], *argv[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


def check_output(command: str, shown: list[str], printed_text: str, errors: str = "") -> None:
    printed = [_normal(line) for line in printed_text.splitlines()]
    at = 0
    for line in shown:
        if line.strip() == "...":
            continue
        wanted = _normal(line)
        found = next((i for i in range(at, len(printed)) if _matches(wanted, printed[i])), None)
        assert found is not None, (f"not printed (in order) by `{command}`:\n{line}\n"
                                   f"--- printed:\n{printed_text[-6000:]}\n--- stderr:\n{errors[-3000:]}")
        at = found + 1


def test_the_output_check_normalises_numbers_and_elides():
    printed = ("a header\nrows 1,204 in 3.5s\n  ok   x  ok\n==== 1 failed, 3 passed in 6.70s ====\n"
               "salted  -  point_read=point/- number_range=full_scan/32.00\n")
    check_output("c", ["...", "rows 22 in 0.1s", "ok ... ok", "== 2 failed, 1 passed in 1.00s ==",
                       "salted 0.5 point_read=point/1.00 number_range=full_scan/-"], printed)
    with pytest.raises(AssertionError):
        check_output("c", ["rows 22 in 0.1s", "a header"], printed)  # out of order
    with pytest.raises(AssertionError):
        check_output("c", ["rows in 0.1s"], printed)  # a word missing


@pytest.mark.parametrize(("page", "index"), EXAMPLES,
                         ids=[f"{p.relative_to(REPO)}#{n}" for p, n in EXAMPLES])
def test_each_console_example_is_what_its_command_prints(page, index, emulator_hosts, tmp_path):
    files, blocks = page_examples(page)
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)  # a migration folder's file
        (tmp_path / name).write_text(content)
    # Not this session's PYTEST_ADDOPTS: an example's pytest given CI's --basetemp would empty
    # this session's temporary folder, the example's own project among it.
    outer = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env = {**outer, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"],
           "BIGTABLE_EMULATOR_HOST": emulator_hosts["bigtable"], "COLUMNS": "80",
           "PYTHONPATH": _pythonpath(),
           # as in a virtual environment with keybench installed: `python` is the one keybench runs on
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), outer.get("PATH", "")])}
    done: subprocess.CompletedProcess | None = None
    for command, shown in blocks[index]:
        if command == "echo $?":
            assert done is not None, "`echo $?` must follow a command"
            assert [str(done.returncode)] == [s.strip() for s in shown], (command, done.returncode, done.stderr[-2000:])
            continue
        if done is not None:
            assert done.returncode == 0, done.stderr[-2000:]
        done = _run(command, tmp_path, env)
        check_output(command, shown, done.stdout, done.stderr)
    assert done is not None
    if blocks[index][-1][0] != "echo $?":
        assert done.returncode == 0, done.stderr[-2000:]
