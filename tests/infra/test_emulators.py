"""The native emulator lifecycle and endpoint resolution, against the real binaries."""

import os
import socket
import time

import pytest

from keybench.errors import KeybenchError
from keybench.infra import emulators
from tests.conftest import FAILS_FAST_S, keybench


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return open(f"/proc/{pid}/stat").read().split()[2] != "Z"


def started_by_up():
    return [e for e in emulators.recorded() if e.started_by == "keybench emulators up"]


def test_up_status_down_leaves_nothing_behind(native_binaries, no_emulator_env):
    before = keybench("emulators", "status", timeout=60)
    assert before.returncode == 0
    assert before.stdout.count("nothing running") == 2, before.stdout

    up = keybench("emulators", "up", timeout=120)
    assert up.returncode == 0, up.stderr
    started = started_by_up()
    assert sorted(e.backend for e in started) == ["bigtable", "spanner"]
    assert all(pid_alive(e.pid) for e in started)

    status = keybench("emulators", "status", timeout=60)
    for e in started:
        assert f"{e.address} answers; started by keybench emulators up, pid {e.pid}" in status.stdout, status.stdout

    again = keybench("emulators", "up", timeout=60)
    assert again.stdout.count("already running") == 2 and started_by_up() == started

    down = keybench("emulators", "down", timeout=60)
    assert down.returncode == 0 and down.stdout.count("stopped pid") == 2
    deadline = time.monotonic() + 10
    while any(pid_alive(e.pid) for e in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(pid_alive(e.pid) for e in started)
    after = keybench("emulators", "status", timeout=60)
    assert after.stdout.count("nothing running") == 2, after.stdout
    assert started_by_up() == []


def test_a_set_variable_is_used_and_nothing_is_started(emulator_hosts, no_emulator_env, monkeypatch):
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", emulator_hosts["spanner"])
    endpoint = emulators.resolve("spanner")
    assert (endpoint.address, endpoint.source, endpoint.restartable) == (emulator_hosts["spanner"], "environment",
                                                                         False)
    assert emulators.recorded() == [] or all(e.started_by.startswith("pytest") for e in emulators.recorded())


def test_an_endpoint_that_does_not_answer_fails_fast_naming_the_fixes(monkeypatch):
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", "127.0.0.1:1")
    started = time.monotonic()
    with pytest.raises(KeybenchError) as err:
        emulators.resolve("spanner")
    assert time.monotonic() - started < FAILS_FAST_S
    message = str(err.value)
    assert "127.0.0.1:1" in message and "does not answer" in message
    assert "SPANNER_EMULATOR_HOST" in message and "docker compose" in message and "keybench emulators up" in message


@pytest.mark.slow
def test_a_listener_that_is_not_grpc_does_not_count_as_an_emulator(monkeypatch):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", f"127.0.0.1:{silent.getsockname()[1]}")
        started = time.monotonic()
        with pytest.raises(KeybenchError, match="no gRPC answer"):
            emulators.resolve("bigtable")
        assert time.monotonic() - started < FAILS_FAST_S


def test_nothing_reachable_and_nothing_installed(no_emulator_env, monkeypatch, tmp_path):
    monkeypatch.setenv("KEYBENCH_GCLOUD_SDK_ROOT", str(tmp_path / "no-sdk"))
    started = time.monotonic()
    result = keybench("run", "--backend", "spanner", "--results-dir", str(tmp_path / "results"), timeout=60)
    assert time.monotonic() - started < FAILS_FAST_S
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "none is installed" in lines[0]
    assert all(fix in lines[0] for fix in ("SPANNER_EMULATOR_HOST", "docker compose up", "keybench emulators up"))
    assert not (tmp_path / "results").exists() or list((tmp_path / "results").iterdir()) == []


def test_a_busy_port_is_named_with_the_process_holding_it(native_binaries, no_emulator_env):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        with pytest.raises(KeybenchError) as err:
            emulators.start("bigtable", port, "pytest", detach=False)
    assert f"port {port} is in use by pid {os.getpid()}" in str(err.value)


@pytest.fixture
def squatter():
    """The port of a plain TCP listener in this process: busy, but no emulator."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_up_on_a_port_another_process_holds_names_it_and_starts_nothing(squatter, no_emulator_env, monkeypatch):
    port = squatter
    monkeypatch.setenv("KEYBENCH_SPANNER_PORT", str(port))
    started = time.monotonic()
    result = keybench("emulators", "up", timeout=60)
    assert time.monotonic() - started < FAILS_FAST_S
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"port {port} is in use by pid {os.getpid()} (" in lines[0] and "python" in lines[0], lines[0]
    assert "keybench emulators up --any-port" in lines[0]
    assert started_by_up() == []  # the Bigtable port was free, but an error starts nothing


def test_up_any_port_starts_on_a_free_port_and_says_which(squatter, native_binaries, no_emulator_env, monkeypatch):
    port = squatter
    monkeypatch.setenv("KEYBENCH_SPANNER_PORT", str(port))
    try:
        result = keybench("emulators", "up", "--any-port", timeout=120)
        assert result.returncode == 0, result.stderr
        spanner = [e for e in started_by_up() if e.backend == "spanner"]
        assert len(spanner) == 1 and spanner[0].port != port
        assert (f"Spanner: port {port} is in use by pid {os.getpid()}" in result.stdout
                and f"using free port {spanner[0].port} instead" in result.stdout), result.stdout
        assert f"SPANNER_EMULATOR_HOST={spanner[0].address}" in result.stdout.splitlines()[-1]
        assert emulators.answers(spanner[0].address)[0]
    finally:
        down = keybench("emulators", "down", timeout=60)
    assert down.stdout.count("stopped pid") == 2, down.stdout
    assert started_by_up() == []


def test_run_with_a_non_emulator_on_the_default_port_is_one_line(squatter, no_emulator_env, monkeypatch, tmp_path):
    port = squatter
    monkeypatch.setenv("KEYBENCH_BIGTABLE_PORT", str(port))
    started = time.monotonic()
    result = keybench("run", "--backend", "bigtable", "--strategies", "salted",
                      "--results-dir", str(tmp_path / "results"), timeout=60)
    assert time.monotonic() - started < FAILS_FAST_S
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"127.0.0.1:{port} is held by pid {os.getpid()}" in lines[0] and "no gRPC answer" in lines[0], lines[0]
    assert emulators.recorded() == [] or all(e.started_by.startswith("pytest") for e in emulators.recorded())


def test_a_prepared_restart_switches_to_the_emulator_started_beside_the_stage(native_binaries):
    """prepare_restart boots the next emulator on a port of its own while the old one still
    serves; restart stops the old one and switches; stop stops both, even one never used."""
    first = emulators.start("bigtable", emulators.free_port(), "pytest", detach=False)
    ep = emulators.Endpoint("bigtable", first.address, "started by this run", first)
    try:
        ep.prepare_restart()
        successor = ep.successor.emulator
        assert successor.port != first.port and pid_alive(successor.pid) and pid_alive(first.pid)
        assert emulators.answers(first.address)[0]  # the stage before it is still audited there
        ep.restart()
        assert (ep.emulator.pid, ep.address) == (successor.pid, successor.address)
        assert not pid_alive(first.pid) and emulators.answers(ep.address)[0]
        ep.restart()  # nothing prepared: a new one, on a new port (gRPC's backoff on the old address)
        assert ep.emulator.port != successor.port and ep.emulator.pid != successor.pid
        assert not pid_alive(successor.pid) and emulators.answers(ep.address)[0]
        ep.prepare_restart()
        unused = ep.successor.emulator
    finally:
        ep.stop()
    deadline = time.monotonic() + 10
    while (pid_alive(unused.pid) or pid_alive(successor.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not pid_alive(unused.pid) and not pid_alive(successor.pid)
    assert ep.emulator is None and ep.successor is None
