"""An emulator in a Docker container, started through testcontainers, which has no module
for either emulator: a generic container of the image docker-compose.yml runs, with the
same command, waited for until the emulator answers gRPC on its published port, and
removed by its container id.

The images are the official ones, or the stand-ins `python -m keybench.infra.images`
builds under the same names where no registry can be reached. testcontainers is an
optional dependency (keybench's test extra): without it, this says so in one line."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from keybench.errors import KeybenchError, one_line
from keybench.infra import emulators, images

IMAGES = {"spanner": images.SPANNER_IMAGE, "bigtable": images.CLI_IMAGE}
# The images' own commands, as docker-compose.yml gives them: the Spanner image starts its emulator itself.
COMMANDS = {"spanner": None, "bigtable": "gcloud beta emulators bigtable start --host-port=0.0.0.0:8086"}
DEFAULT_DOCKER_SOCKET = "unix:///var/run/docker.sock"
ANSWER_TIMEOUT_S = 60.0


@dataclass
class EmulatorContainer:
    """A running emulator container this process started."""

    backend: str
    address: str  # host:port on this machine
    container: Any  # testcontainers' DockerContainer (imported only when a container starts)

    @property
    def id(self) -> str:
        return self.container.get_wrapped_container().id

    def stop(self) -> None:
        """Remove the container (by its id), with its volumes."""
        self.container.stop()


def start(backend: str) -> EmulatorContainer:
    """Start the backend's emulator image and wait until it answers, or raise one line saying why not."""
    try:
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.docker_client import DockerClient
    except ImportError:
        raise KeybenchError("testcontainers is not installed (pip install testcontainers)") from None
    image = IMAGES[backend]
    try:
        client = DockerClient().client
        client.ping()
    except Exception as exc:
        raise KeybenchError(f"no Docker engine answers ({one_line(exc)})") from None
    try:
        client.images.get(image)
        local = True
    except Exception:
        local = False
    finally:
        client.close()
    port = emulators.DEFAULT_PORTS[backend]
    # A local engine (a unix socket) publishes on this machine: on loopback only, since an
    # emulator answers anyone without authentication. A remote engine's host must publish it
    # on an address this machine reaches.
    local_engine = os.environ.get("DOCKER_HOST", DEFAULT_DOCKER_SOCKET).startswith("unix://")
    container = (_loopback_container(DockerContainer, image, port) if local_engine
                 else DockerContainer(image).with_exposed_ports(port))
    command = COMMANDS[backend]
    if command:
        container = container.with_command(command)
    try:
        container.start()
    except Exception as exc:
        container.stop()
        pulled = "" if local else (f"; {image} is not on this machine and could not be pulled: "
                                   "`python -m keybench.infra.images` builds it from google-cloud-cli's emulators")
        raise KeybenchError(f"{image} did not start: {one_line(exc)}{pulled}") from None
    # On a local engine the emulator is reached on loopback; testcontainers would name the
    # bridge's gateway instead.
    host = emulators.HOST if local_engine else container.get_container_host_ip()
    running = EmulatorContainer(backend, f"{host}:{container.get_exposed_port(port)}", container)
    _wait_answering(running)
    return running


def _loopback_container(base: type, image: str, port: int) -> Any:
    """A container of `image` whose `port` is published on a free port of 127.0.0.1 only
    (testcontainers' own binding takes a port, not an address)."""

    class LoopbackContainer(base):
        def _configure(self) -> None:
            super()._configure()
            self.ports[f"{port}/tcp"] = (emulators.HOST, None)

    return LoopbackContainer(image)


def _wait_answering(running: EmulatorContainer) -> None:
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    wrapped = running.container.get_wrapped_container()
    while not (answered := emulators.answers(running.address, timeout=1.0))[0]:
        wrapped.reload()
        if wrapped.status == "exited" or time.monotonic() > deadline:
            tail = (wrapped.logs(tail=1).decode(errors="replace").strip() or "(no output)")[:200]
            running.stop()
            raise KeybenchError(f"the {emulators.TITLES[running.backend]} emulator container at {running.address} "
                                f"did not answer within {ANSWER_TIMEOUT_S:.0f} s ({answered[1]}; container "
                                f"{wrapped.status}, its last line: {tail})")
        time.sleep(0.2)
