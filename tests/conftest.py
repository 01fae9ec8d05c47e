"""Shared fixtures. The emulators are real: found through the `*_EMULATOR_HOST`
variables, else started in Docker through testcontainers (on the engine of
tests/dockerd.py, which starts a private dockerd where it can), else started from the
native google-cloud-cli binaries on free ports; only when none of these exists is a test
that needs them skipped, with the reason."""

from __future__ import annotations

import loadtests.infra.runtime  # noqa: F401  (gevent and gRPC set-up before any client exists)

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loadtests.infra import emulators, images
from tests import dockerd

REPO = Path(__file__).resolve().parent.parent
# The images' own commands: the Spanner image starts its emulator itself.
COMMANDS = {"spanner": None, "bigtable": "gcloud beta emulators bigtable start --host-port=0.0.0.0:8086"}
IMAGES = {"spanner": images.SPANNER_IMAGE, "bigtable": images.CLI_IMAGE}


def test_strategy_toml(body: str, claim: str = "spread") -> str:
    """A strategy.toml for a design a test makes up: `body` (top-level keys first) with the
    expected distribution and a provenance that says it is no document's."""
    return f'claim = "{claim}"\nadvice = "a test design"\n{body}\n[source]\nnot_in_the_documents = "made up by a test"\n'


test_strategy_toml.__test__ = False  # a helper, not a test


def _docker_emulator(backend: str):
    """An emulator container, started through testcontainers, that answers, and its host:port."""
    from testcontainers.core.container import DockerContainer

    port = emulators.DEFAULT_PORTS[backend]
    container = DockerContainer(IMAGES[backend]).with_exposed_ports(port)
    if COMMANDS[backend]:
        container = container.with_command(COMMANDS[backend])
    container.start()
    # A local engine (a unix socket, as tests/dockerd.py's) publishes on this machine, so the
    # tests reach it on loopback; testcontainers would name the bridge's gateway instead.
    local = os.environ.get("DOCKER_HOST", dockerd.DEFAULT_SOCKET).startswith("unix://")
    address = f"{emulators.HOST if local else container.get_container_host_ip()}:{container.get_exposed_port(port)}"
    if not emulators.answers(address, timeout=60)[0]:
        container.stop()
        pytest.fail(f"the {backend} emulator container at {address} did not answer within 60 s")
    return container, address


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
def emulator_hosts(state_dir, docker_engine_or_reason):
    """backend -> host:port of a running emulator: the one *_EMULATOR_HOST names, else a
    container started through testcontainers when a Docker engine answers, else a native
    emulator; with the *_EMULATOR_HOST variables set for the session and restored afterwards."""
    saved = {b: os.environ.get(emulators.ENV_VARS[b]) for b in emulators.BACKENDS}
    docker_ok = not isinstance(docker_engine_or_reason, str)
    for backend in emulators.BACKENDS:  # decide before starting anything, so a skip leaves nothing behind
        if not (saved[backend] or docker_ok or emulators.binary(backend)):
            pytest.skip(f"no {backend} emulator: {emulators.ENV_VARS[backend]} unset, no Docker engine "
                        f"({docker_engine_or_reason}), no native binary; {emulators.fix_hint(backend)}")
    hosts, cleanup = {}, []
    try:
        for backend in emulators.BACKENDS:
            if saved[backend]:
                hosts[backend] = saved[backend]
            elif docker_ok:
                container, hosts[backend] = _docker_emulator(backend)
                cleanup.append(container.stop)
            else:
                emulator = emulators.start(backend, emulators.free_port(), "pytest", detach=False)
                hosts[backend] = emulator.address
                cleanup.append(emulator.stop)
            os.environ[emulators.ENV_VARS[backend]] = hosts[backend]
        yield hosts
    finally:
        for stop in cleanup:
            stop()
        for backend, value in saved.items():
            if value is None:
                os.environ.pop(emulators.ENV_VARS[backend], None)
            else:
                os.environ[emulators.ENV_VARS[backend]] = value


@pytest.fixture
def native_binaries():
    missing = [b for b in emulators.BACKENDS if emulators.binary(b) is None]
    if missing:
        pytest.skip(f"needs the native {' and '.join(missing)} emulator binaries (google-cloud-cli components)")


@pytest.fixture
def no_emulator_env(monkeypatch, state_dir):
    """No *_EMULATOR_HOST and free default ports, so keybench must start emulators itself."""
    for backend in emulators.BACKENDS:
        monkeypatch.delenv(emulators.ENV_VARS[backend], raising=False)
        monkeypatch.setenv(emulators.PORT_OVERRIDES[backend], str(emulators.free_port()))


def keybench(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The keybench command as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "loadtests.cli", *args], cwd=REPO, capture_output=True, text=True,
        timeout=timeout, env={**os.environ, **(env or {})},
    )
