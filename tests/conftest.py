"""Shared fixtures. The emulators are real, and are keybench's pytest plugin's fixtures
(src/keybench/pytest_plugin.py): found through the `*_EMULATOR_HOST` variables, else started
in Docker through testcontainers (on the engine of tests/dockerd.py, which starts a private
dockerd where it can, for the tests that use `emulator_hosts`), else started from the
native google-cloud-cli binaries on free ports; only when none of these exists is a test
that needs them skipped, with the reason (pyproject.toml sets keybench_missing_emulator = "skip")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gevent
import pytest

import keybench.infra.runtime
from keybench.design import strategies
from keybench.infra import emulators, images
from keybench.pytest_plugin import end_session_on_sigterm
from tests import dockerd

REPO = Path(__file__).resolve().parent.parent

if os.environ.get("PYTEST_XDIST_WORKER"):
    # A pytest-xdist worker waits for its next test on an Event that execnet's I/O thread sets.
    # keybench.infra.runtime has made it gevent's: with nothing else scheduled, the hub would
    # see no way to wake and raise LoopExit. A sleeping greenlet keeps the hub waiting, and the
    # other thread's set() wakes it.
    gevent.spawn(gevent.sleep, 10**9)


# The markers (pyproject.toml) follow from what a test uses: the fixtures that start an
# emulator or a Docker engine, and the browser helper it calls. Tests that start keybench
# runs as subprocesses carry their marker themselves.
FIXTURE_MARKS = {
    "emulator_hosts": "emulator", "spanner_emulator": "emulator", "bigtable_emulator": "emulator",
    "keybench_check": "emulator", "native_binaries": "emulator", "no_emulator_env": "emulator",
    "docker_engine": "docker", "docker_engine_or_reason": "docker",
}
BROWSER_HELPERS = {"chromium", "_chromium"}
# Starting Python and importing keybench takes about a second: a test that runs the command
# line as a subprocess (the `keybench` helper below) is slow.
SUBPROCESS_HELPERS = {"keybench", "subprocess"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for mark in sorted({FIXTURE_MARKS[n] for n in names if n in FIXTURE_MARKS}):
            item.add_marker(mark)
        code = getattr(getattr(item, "function", None), "__code__", None)
        used = set(code.co_names) if code is not None else set()
        if BROWSER_HELPERS & used:
            item.add_marker("browser")
        if SUBPROCESS_HELPERS & used:
            item.add_marker("slow")
    items[:] = _longest_first(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def _longest_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The tests marked `minutes` first, so that a parallel run (`make test`) ends soon after
    the longest one, not minutes after the rest as when it starts last; and on `workers`
    pytest-xdist workers, spread over the runs of tests each worker is handed first.

    pytest-xdist (--dist load) hands each worker a run of consecutive tests to start with,
    a quarter of its share: with every long test at the front, the first worker got them all
    (931 s for a suite whose tests took 3,092 s, 773 s a worker on average). Each module's long
    tests stay together, as they share its fixtures (one wheel built, one venv made); the
    modules go, longest first, to the run whose long tests add up to the fewest minutes."""
    marked = [item for item in items if _minutes(item)]
    rest = [item for item in items if not _minutes(item)]
    modules: dict[str, list[pytest.Item]] = {}
    for item in sorted(marked, key=_minutes, reverse=True):
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    heads: list[list[pytest.Item]] = [[] for _ in range(max(workers, 1))]  # one: the long ones, then the rest
    minutes = [0.0] * len(heads)
    for module in modules.values():
        least = minutes.index(min(minutes))
        heads[least] += module
        minutes[least] += max(_minutes(item) for item in module)
    first_run = max(len(items) // len(heads) // 4, 2)  # pytest-xdist's first hand-out per worker
    ordered: list[pytest.Item] = []
    for head in heads:
        fill = max(first_run - len(head), 0)
        ordered += head + rest[:fill]
        rest = rest[fill:]
    return ordered + rest


def _minutes(item: pytest.Item) -> float:
    mark = item.get_closest_marker("minutes")
    return float(mark.args[0]) if mark else 0.0


def test_strategy_toml(body: str, claim: str = "spread") -> str:
    """A strategy.toml for a design a test makes up: `body` (top-level keys first) with the
    expected distribution and a provenance that says it is no document's."""
    return (f'claim = "{claim}"\nadvice = "a test design"\n{body}\n'
            '[source]\nnot_in_the_documents = "made up by a test"\n')


test_strategy_toml.__test__ = False  # a helper, not a test

# What "fails fast" bounds: a command or call that must not wait for an emulator ends before
# an emulator's start deadline would have passed. The wall time of a command includes starting
# Python, which took 18 s beside 3 other test workers and two busy loops on 2 cores.
FAILS_FAST_S = emulators.START_TIMEOUT_S


@pytest.fixture(scope="session")
def docker_engine_or_reason(tmp_path_factory):
    """The session's Docker engine (see tests/dockerd.py) with the emulator images built,
    or why there is none. While it runs, DOCKER_HOST and DOCKER_CONFIG point at it, and
    testcontainers starts no Ryuk container (its image cannot be pulled here; every
    container is stopped by the fixture that started it)."""
    engine = dockerd.start_engine(tmp_path_factory.mktemp("docker", numbered=True))
    if isinstance(engine, str):
        print(f"\nDocker tests skipped: {engine}")
        yield engine
        return
    if engine.process is not None:
        end_session_on_sigterm()  # a cancelled CI job's SIGTERM still stops the engine we started
    saved = {k: os.environ.get(k) for k in (*engine.env, "TESTCONTAINERS_RYUK_DISABLED")}
    os.environ.update(engine.env, TESTCONTAINERS_RYUK_DISABLED="true")
    try:
        for line in [*engine.notes, *images.build_all()]:
            print(f"\n{line}", end="")
        yield engine
    finally:
        engine.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def docker_engine(docker_engine_or_reason):
    if isinstance(docker_engine_or_reason, str):
        pytest.skip(f"no Docker engine: {docker_engine_or_reason}")
    return docker_engine_or_reason


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keybench-state")
    os.environ["KEYBENCH_STATE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def spanner_emulator(state_dir, spanner_emulator):
    """The plugin's, with a native emulator's record in the session's state folder."""
    return spanner_emulator


@pytest.fixture(scope="session")
def bigtable_emulator(state_dir, bigtable_emulator):
    return bigtable_emulator


@pytest.fixture(scope="session")
def emulator_hosts(docker_engine_or_reason, spanner_emulator, bigtable_emulator):
    """backend -> host:port of a running emulator, the plugin's fixtures', with the Docker
    engine up first so that they start containers on it; the *_EMULATOR_HOST variables name
    them for the session."""
    return {"spanner": spanner_emulator.host, "bigtable": bigtable_emulator.host}


@pytest.fixture
def native_binaries():
    missing = [b for b in strategies.BACKENDS if emulators.binary(b) is None]
    if missing:
        pytest.skip(f"needs the native {' and '.join(missing)} emulator binaries (google-cloud-cli components)")


@pytest.fixture
def no_emulator_env(monkeypatch, state_dir):
    """No *_EMULATOR_HOST and free default ports, so keybench must start emulators itself."""
    for backend in strategies.BACKENDS:
        monkeypatch.delenv(emulators.ENV_VARS[backend], raising=False)
        monkeypatch.setenv(emulators.PORT_OVERRIDES[backend], str(emulators.free_port()))


def keybench(*args: str, env: dict | None = None, timeout: float = 300,
             cwd: Path = REPO) -> subprocess.CompletedProcess:
    """The keybench command as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "keybench.cli", *args], cwd=cwd, capture_output=True, text=True,
        # Wide: a test of what a line says is no test of where it wraps (those set COLUMNS themselves).
        timeout=timeout, env={**os.environ, "COLUMNS": "1000", **(env or {})},
    )
