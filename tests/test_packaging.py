"""keybench as a user installs it: the wheel, built from this checkout, installed into a fresh
virtual environment outside the repository, and run from a folder that is not the repository.
It finds its catalogue, runs a smoke comparison and a check against the emulators, and its
pytest plugin serves a throwaway project that has a `loadtests/` package of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.emulator, pytest.mark.wheel, pytest.mark.minutes(1.5)]

INSTALL_TIMEOUT_S = 900  # the dependencies come from the package index (pip's cache makes it quick)


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return done


def tracked(*paths: str) -> list[str]:
    return subprocess.run(["git", "ls-files", *paths], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of the files git tracks, built as from a fresh clone (a checkout's own build/
    folder, left by an earlier build, would add files the repository no longer has)."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in tracked():
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
                           capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert built.returncode == 0, built.stdout + built.stderr
    (path,) = out.glob("keybench-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict[str, str]:
    """A fresh venv with only the wheel (and pytest, for the throwaway project) installed; the
    environment to run it in, with PATH leading to the venv and nothing pointing at this checkout."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS")}
    env["PATH"] = f"{home / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    done = run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel), "pytest"],
               cwd=home, env=env, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    return env


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A working folder that is not the repository (and holds nothing of it)."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def test_the_wheel_holds_every_file_of_the_package_and_the_catalogue(wheel):
    expected = {p.removeprefix("src/") if p.startswith("src/") else "keybench/" + p for p in tracked("src/keybench",
                                                                                                     "schemas")}
    with zipfile.ZipFile(wheel) as archive:
        names = {n for n in archive.namelist() if ".dist-info/" not in n}
        metadata = {n.split("/", 1)[1] for n in archive.namelist() if ".dist-info/" in n}
        entry_points = next(archive.read(n).decode() for n in archive.namelist() if n.endswith("entry_points.txt"))
    assert sorted(expected - names) == [], "files of the package or catalogue missing from the wheel"
    assert sorted(names - expected) == [], "files in the wheel that the repository does not track"
    assert "keybench/py.typed" in names and any(n.startswith("keybench/schemas/spanner/") for n in names)
    assert not any(n.startswith("loadtests/") for n in names), "the Locust scenarios are no installed package"
    assert "RECORD" in metadata and "keybench = keybench.cli:main" in entry_points
    assert "keybench = keybench.pytest_plugin" in entry_points


def test_the_installed_command_finds_its_catalogue_from_any_folder(installed, elsewhere):
    listed = run(["keybench", "strategies"], cwd=elsewhere, env=installed, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "timestamp_first" in listed.stdout and "salted" in listed.stdout
    imports = run(["python", "-c", "import keybench, keybench.cli; print(keybench.__file__)"], cwd=elsewhere,
                  env=installed)
    assert imports.returncode == 0 and "site-packages" in imports.stdout, imports.stderr
    clash = run(["python", "-c", "import loadtests"], cwd=elsewhere, env=installed)
    assert clash.returncode != 0 and "No module named 'loadtests'" in clash.stderr
    module = run(["python", "-m", "keybench", "--version"], cwd=elsewhere, env=installed)
    assert module.returncode == 0 and module.stdout.startswith("keybench "), module.stderr


def test_the_installed_command_runs_a_smoke_comparison_and_a_check(installed, elsewhere, emulator_hosts):
    env = {**installed, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"],
           "BIGTABLE_EMULATOR_HOST": emulator_hosts["bigtable"]}
    smoke = run(["keybench", "run", "--smoke", "--strategies", "uuid4_string,salted", "--dialects", "googlesql",
                 "--no-report", "--results-dir", "out", "--run-id", "wheel"], cwd=elsewhere, env=env, timeout=600)
    assert smoke.returncode == 0, smoke.stdout[-3000:] + smoke.stderr[-3000:]
    summary = (elsewhere / "out" / "wheel" / "summary.csv").read_text()
    assert "spanner,uuid4_string" in summary and "bigtable,salted" in summary
    (elsewhere / "schema.sql").write_text("CREATE TABLE Events (EventId STRING(36) NOT NULL DEFAULT "
                                          "(GENERATE_UUID()), CreatedAt TIMESTAMP) PRIMARY KEY (EventId)\n")
    check = run(["keybench", "check", "schema.sql"], cwd=elsewhere, env=env, timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Events" in check.stdout and "spread" in check.stdout


def test_a_project_with_its_own_loadtests_package_uses_the_plugin(installed, elsewhere, emulator_hosts):
    project = elsewhere / "project"
    (project / "loadtests").mkdir(parents=True)
    (project / "loadtests" / "__init__.py").write_text('"""The project\'s own Locust folder."""\n')
    (project / "loadtests" / "locustfile.py").write_text("from locust import HttpUser\n")
    (project / "schema.sql").write_text("CREATE TABLE Orders (OrderId INT64 NOT NULL, CreatedAt TIMESTAMP) "
                                        "PRIMARY KEY (CreatedAt, OrderId)\n")
    (project / "tests").mkdir()
    (project / "tests" / "test_keys.py").write_text(textwrap.dedent('''
        import loadtests
        import loadtests.locustfile  # Locust, and with it gevent's monkey patching, as in a real project


        def test_our_loadtests_package_is_ours():
            assert loadtests.__doc__ == "The project's own Locust folder."


        def test_the_orders_key_is_judged(keybench_check):
            result = keybench_check("schema.sql")
            assert result.table("Orders").verdict == "hotspot"
    '''))
    env = {**installed, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"]}
    session = run(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, env=env, timeout=600)
    assert session.returncode == 0, session.stdout[-3000:] + session.stderr[-3000:]
    assert "2 passed" in session.stdout
