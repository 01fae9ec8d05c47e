"""Shared fixtures. The emulators are real: found through the `*_EMULATOR_HOST`
variables, else started in Docker through testcontainers, else started from the native
google-cloud-cli binaries on free ports; only when none of these exists is a test that
needs them skipped, with the reason."""

from __future__ import annotations

import loadtests.runtime  # noqa: F401  (gevent and gRPC set-up before any client exists)

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loadtests import emulators

REPO = Path(__file__).resolve().parent.parent
IMAGES = {
    "spanner": ("gcr.io/cloud-spanner-emulator/emulator", None),
    "bigtable": (
        "gcr.io/google.com/cloudsdktool/google-cloud-cli:emulators",
        "gcloud beta emulators bigtable start --host-port=0.0.0.0:8086",
    ),
}


def _docker_emulator(backend: str):
    """An emulator container, or None when no Docker engine answers."""
    try:
        import docker
        from testcontainers.core.container import DockerContainer

        docker.from_env().ping()
    except Exception:  # noqa: BLE001 - no engine, no client: fall through to the native binaries
        return None
    image, command = IMAGES[backend]
    port = emulators.DEFAULT_PORTS[backend]
    container = DockerContainer(image).with_exposed_ports(port)
    if command:
        container = container.with_command(command)
    container.start()
    return container, f"{container.get_container_host_ip()}:{container.get_exposed_port(port)}"


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keybench-state")
    os.environ["KEYBENCH_STATE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def emulator_hosts(state_dir):
    """backend -> host:port of a running emulator, with the *_EMULATOR_HOST variables set."""
    hosts, cleanup = {}, []
    for backend in emulators.BACKENDS:
        env = emulators.ENV_VARS[backend]
        if os.environ.get(env):
            hosts[backend] = os.environ[env]
            continue
        found = _docker_emulator(backend)
        if found:
            container, hosts[backend] = found
            cleanup.append(container.stop)
        elif emulators.binary(backend):
            emulator = emulators.start(backend, emulators.free_port(), "pytest", detach=False)
            hosts[backend] = emulator.address
            cleanup.append(emulator.stop)
        else:
            pytest.skip(f"no {backend} emulator: {env} unset, no Docker engine, no native binary; "
                        f"{emulators.fix_hint(backend)}")
        os.environ[env] = hosts[backend]
    yield hosts
    for stop in cleanup:
        stop()


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
