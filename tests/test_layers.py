"""The package tree is the pipeline: the import-linter contracts in pyproject.toml hold, and
they are able to fail (an upward import planted in a copy of the package breaks them)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "src" / "keybench"
ORCHESTRATION = ("cli", "run")  # packages that only translate or sequence the others
ORCHESTRATION_MAX_LINES = 250


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """lint-imports on the package under `root`, with the contracts in `root`/pyproject.toml."""
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command;"
                           "sys.exit(lint_imports_command())", "--no-cache"],
                          cwd=root, env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def test_the_layers_contract_holds():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def planted(tmp_path: Path, module: str, line: str) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "src" / "keybench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    target = copy / "src" / "keybench" / module
    target.write_text(target.read_text() + f"\n{line}\n")
    return copy


def test_an_upward_import_breaks_the_layers_contract(tmp_path):
    copy = planted(tmp_path, "design/keys.py", "from keybench.run import options  # an upward import")
    result = lint_imports(copy)
    assert result.returncode != 0
    assert "each layer imports only the layers below it BROKEN" in result.stdout
    assert "keybench.design.keys -> keybench.run" in result.stdout


def test_a_database_client_in_the_model_breaks_the_purity_contract(tmp_path):
    copy = planted(tmp_path, "model/splitmodel.py", "import google.cloud.spanner  # a database client")
    result = lint_imports(copy)
    assert result.returncode != 0
    assert "never talk to a database or to Locust BROKEN" in result.stdout


def test_orchestration_modules_stay_short():
    package = PACKAGE
    paths = [p for name in ORCHESTRATION for p in sorted((package / name).glob("*.py"))]
    sizes = {str(p.relative_to(package)): len(p.read_text().splitlines()) for p in paths}
    long = {name: n for name, n in sizes.items() if n > ORCHESTRATION_MAX_LINES}
    assert paths and not long, f"over {ORCHESTRATION_MAX_LINES} lines: {long}"


MAX_MODULE_LINES = 450  # a module past this holds more than one concern: split it along them


def test_no_module_is_over_the_size_limit():
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines()) for p in sorted(PACKAGE.rglob("*.py"))}
    long = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert len(sizes) > 50 and not long, f"over {MAX_MODULE_LINES} lines: {long}"


def import_cycles(package: str, path: Path) -> list[list[str]]:
    """The import circles between the package's modules (strongly connected components of two
    or more modules, or a module importing itself), imports under TYPE_CHECKING left out."""
    code = ("import json, sys, grimp; g = grimp.build_graph(sys.argv[1], exclude_type_checking_imports=True, "
            "cache_dir=None); "
            "print(json.dumps({m: sorted(g.find_modules_directly_imported_by(m)) for m in g.modules}))")
    done = subprocess.run([sys.executable, "-c", code, package], env={"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300, check=True)
    edges: dict[str, list[str]] = json.loads(done.stdout)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in edges.get(module, []):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1 or module in edges.get(module, []):
                cycles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_through_others():
    assert import_cycles("keybench", REPO / "src") == []


def test_a_planted_circle_is_found(tmp_path):
    copy = planted(tmp_path, "design/hashing.py", "from keybench.design import events  # events imports hashing")
    assert ["keybench.design.events", "keybench.design.hashing"] in import_cycles("keybench", copy / "src")
