"""The benchmarks' figures files (benchmarks/_common.py): what a benchmark prints lands in its
file under when, where and with what it was measured; an interrupted benchmark keeps the old
figures; and every benchmark has a file that the docs include, so no figure is copied by hand."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.conftest import REPO

BENCHMARKS = REPO / "benchmarks"
PROVENANCE = ("measured:", "command:", "machine:", "versions:", "source:")


def _common():
    spec = importlib.util.spec_from_file_location("benchmarks_common", BENCHMARKS / "_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_what_a_benchmark_prints_is_written_under_its_provenance(tmp_path, capsys):
    figures = tmp_path / "results" / "case.txt"
    with _common().figures_file(str(figures)):
        print("| case | ops/s |\n| a | 1,234 |")
    text = figures.read_text()
    head = text.split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in head] == list(PROVENANCE)
    assert re.match(r"measured: \d{4}-\d\d-\d\d \d\d:\d\d to \d\d:\d\d UTC$", head[0])
    assert "cores" in head[2] and "load average" in head[2] and "keybench " in head[3]
    assert text.endswith("| case | ops/s |\n| a | 1,234 |\n")
    assert "| a | 1,234 |" in capsys.readouterr().out, "the terminal still sees the figures as they come"


def test_an_interrupted_benchmark_keeps_the_figures_it_had(tmp_path):
    figures = tmp_path / "case.txt"
    figures.write_text("the previous figures\n")
    with pytest.raises(KeyboardInterrupt), _common().figures_file(str(figures)):
        print("half a table")
        raise KeyboardInterrupt
    assert figures.read_text() == "the previous figures\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.txt"], "nothing half-written is left"


def test_a_dash_prints_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with _common().figures_file("-"):
        print("figures")
    assert capsys.readouterr().out == "figures\n" and list(tmp_path.iterdir()) == []


def _writer(name: str, scripts: set[str]) -> str | None:
    """The benchmark a figures file NAME.txt belongs to: NAME, or SCRIPT_<variant> (harness_vs_bare_busy)."""
    owners = [s for s in scripts if name == s or name.startswith(s + "_")]
    return max(owners, key=len) if owners else None


def test_every_benchmark_writes_a_figures_file_that_the_docs_include():
    page = (REPO / "docs" / "development" / "benchmarks.md").read_text()
    included = set(re.findall(r'--8<-- "benchmarks/results/(\w+)\.txt"', page))
    scripts = {p.stem for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")}
    assert scripts <= included, "each benchmark's figures file is included in docs/development/benchmarks.md"
    written = {p.stem for p in (BENCHMARKS / "results").glob("*.txt")}
    assert written == included, "every figures file in results/ is included, and only those"
    for name in sorted(included):
        script = _writer(name, scripts)
        assert script is not None, f"{name}.txt: no benchmark of that name writes it"
        assert 'add_figures_option(' in (BENCHMARKS / f"{script}.py").read_text(), script
        head = (BENCHMARKS / "results" / f"{name}.txt").read_text().split("\n\n", 1)[0]
        assert [line.split()[0] for line in head.splitlines()] == list(PROVENANCE), name
        assert f"benchmarks/{script}.py" in head, f"{name}.txt was written by another benchmark"


def test_the_readmes_harness_tables_are_the_closing_tables_of_their_figures_files():
    """benchmarks/README.md shows keybench against the bare loop idle and busy: each table as
    its figures file ends, under that file's measured and source lines."""
    readme = (BENCHMARKS / "README.md").read_text()
    for name in ("harness_vs_bare", "harness_vs_bare_busy"):
        text = (BENCHMARKS / "results" / f"{name}.txt").read_text()
        table = [line for line in text.splitlines() if line.startswith("|")]
        assert table and "\n".join(table) in readme, f"{name}.txt's closing table is in benchmarks/README.md"
        for key in ("measured:", "source:"):
            line = next(line for line in text.splitlines() if line.startswith(key))
            assert line.split(None, 1)[1] in readme, f"benchmarks/README.md gives {name}.txt's {key}"


def test_the_benchmarks_readme_lists_each_benchmark_by_its_own_docstring_and_figures_file():
    import ast

    readme = (BENCHMARKS / "README.md").read_text()
    rows = re.findall(r"^\| \[`(\w+)\.py`\]\(\1\.py\) \| (.+) \| \[results/\1\.txt\]\(results/\1\.txt\) \|$", readme,
                      re.MULTILINE)
    expected = []
    for script in sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")):
        doc = ast.get_docstring(ast.parse(script.read_text())) or ""
        expected.append((script.stem, " ".join(doc.split("\n\n")[0].split())))
    assert rows == expected, "benchmarks/README.md: one row per benchmark, its docstring's first paragraph"


def test_simulate_scale_reads_what_keybench_simulate_prints_today():
    """simulate_scale runs `keybench simulate` and reads its output: a change of that output
    must not break the benchmark unseen (its text form once gained a verdict paragraph)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "simulate_scale.py", "--rows", "20000", "--compare-rows", "0",
                           "--rounds", "1", "--case", "spanner:uuid4_string", "--figures", "-"],
                          cwd=BENCHMARKS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "at 20,000: verdict=spread claimed=spread agrees=yes" in done.stdout
    assert "summary: 0 of 1 cases" in done.stdout
