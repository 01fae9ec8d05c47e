"""Shared fixtures. The emulators are real: found through the `*_EMULATOR_HOST`
variables, else started in Docker through testcontainers, else started from the native
google-cloud-cli binaries on free ports; only when none of these exists is a test that
needs them skipped, with the reason."""

from __future__ import annotations

import loadtests.infra.runtime  # noqa: F401  (gevent and gRPC set-up before any client exists)

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loadtests.infra import emulators

REPO = Path(__file__).resolve().parent.parent


def test_strategy_toml(body: str, claim: str = "spread") -> str:
    """A strategy.toml for a design a test makes up: `body` (top-level keys first) with the
    expected distribution and a provenance that says it is no document's."""
    return f'claim = "{claim}"\nadvice = "a test design"\n{body}\n[source]\nnot_in_the_documents = "made up by a test"\n'


test_strategy_toml.__test__ = False  # a helper, not a test
IMAGES = {
    "spanner": ("gcr.io/cloud-spanner-emulator/emulator", None),
    "bigtable": (
        "gcr.io/google.com/cloudsdktool/google-cloud-cli:emulators",
        "gcloud beta emulators bigtable start --host-port=0.0.0.0:8086",
    ),
}


def _docker_emulator(backend: str):
    """An emulator container that answers, and its host:port."""
    from testcontainers.core.container import DockerContainer

    image, command = IMAGES[backend]
    port = emulators.DEFAULT_PORTS[backend]
    container = DockerContainer(image).with_exposed_ports(port)
    if command:
        container = container.with_command(command)
    container.start()
    address = f"{container.get_container_host_ip()}:{container.get_exposed_port(port)}"
    if not emulators.answers(address, timeout=60)[0]:
        container.stop()
        pytest.fail(f"the {backend} emulator container at {address} did not answer within 60 s")
    return container, address


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keybench-state")
    os.environ["KEYBENCH_STATE_DIR"] = str(path)
    return path


def _docker_engine() -> bool:
    try:
        import docker

        docker.from_env().ping()
        return True
    except Exception:  # noqa: BLE001 - no engine or no client: use the native binaries
        return False


@pytest.fixture(scope="session")
def emulator_hosts(state_dir):
    """backend -> host:port of a running emulator, with the *_EMULATOR_HOST variables set
    for the session and restored afterwards."""
    saved = {b: os.environ.get(emulators.ENV_VARS[b]) for b in emulators.BACKENDS}
    docker_ok = None
    for backend in emulators.BACKENDS:  # decide before starting anything, so a skip leaves nothing behind
        if saved[backend] or emulators.binary(backend):
            continue
        docker_ok = _docker_engine() if docker_ok is None else docker_ok
        if not docker_ok:
            pytest.skip(f"no {backend} emulator: {emulators.ENV_VARS[backend]} unset, no Docker engine, "
                        f"no native binary; {emulators.fix_hint(backend)}")
    hosts, cleanup = {}, []
    try:
        for backend in emulators.BACKENDS:
            if saved[backend]:
                hosts[backend] = saved[backend]
            elif emulators.binary(backend) is None:
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
