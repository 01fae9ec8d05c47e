"""An emulator in a container through testcontainers, on the session's Docker engine: it
answers on its published port, and stopping it removes the container by its id; with no
engine, one line says so."""

import pytest

from keybench.errors import KeybenchError
from keybench.infra import containers, emulators
from tests.dockerd import docker


def test_a_bigtable_container_answers_and_is_removed_by_its_id(docker_engine):
    running = containers.start("bigtable")
    try:
        assert emulators.answers(running.address)[0]
        assert docker(docker_engine, "ps", "-q", "--no-trunc").stdout.split().count(running.id) == 1
        # An emulator answers anyone: published on loopback only, never on 0.0.0.0 or [::]
        published = docker(docker_engine, "port", running.id).stdout.split("\n")
        assert [line for line in published if line] == [f"8086/tcp -> {running.address}"], published
        assert running.address.startswith("127.0.0.1:")
    finally:
        running.stop()
    assert running.id not in docker(docker_engine, "ps", "-a", "-q", "--no-trunc").stdout


def test_no_engine_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/none.sock")
    with pytest.raises(KeybenchError, match=r"^no Docker engine answers \(.*\)$"):
        containers.start("spanner")
