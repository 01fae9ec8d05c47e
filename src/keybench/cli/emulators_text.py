"""`keybench emulators up|down|status`: the lines the command prints, over infra.emulators' discovery
and processes."""

from __future__ import annotations

import os

from keybench.design.strategies import BACKENDS
from keybench.errors import KeybenchError
from keybench.infra.emulators import (
    ENV_VARS,
    HOST,
    PORT_OVERRIDES,
    TITLES,
    answers,
    default_port,
    free_port,
    port_holder,
    port_is_free,
    recorded,
    start,
)


def up(any_port: bool = False) -> list[str]:
    """Start each emulator that is not already running. A port held by a process that is not
    an emulator is an error naming that process, unless `any_port`: then a free port is
    used and printed. Every port is checked before anything starts, so an error starts nothing."""
    lines, plan, addresses = [], [], {}
    for backend in BACKENDS:
        title, env = TITLES[backend], ENV_VARS[backend]
        if os.environ.get(env):
            lines.append(f"{title}: {env}={os.environ[env]} is set; keybench uses it and starts nothing")
            addresses[backend] = os.environ[env]
            continue
        port = default_port(backend)
        mine = [e for e in recorded() if e.backend == backend and e.port == port]
        if mine:
            lines.append(f"{title}: already running at {mine[0].address} (pid {mine[0].pid}, started by keybench)")
            addresses[backend] = mine[0].address
            continue
        ok, why = answers(f"{HOST}:{port}")
        if ok:
            lines.append(f"{title}: something already answers at {HOST}:{port} (not started by keybench); left alone")
            addresses[backend] = f"{HOST}:{port}"
            continue
        if not port_is_free(port):
            holder = port_holder(port)
            if not any_port:
                raise KeybenchError(
                    f"cannot start the {title} emulator: port {port} is in use by {holder}, which is not an "
                    f"emulator ({why}); stop it, set {PORT_OVERRIDES[backend]} to another port, "
                    f"or run `keybench emulators up --any-port`"
                )
            busy, port = port, free_port()
            lines.append(f"{title}: port {busy} is in use by {holder}; using free port {port} instead")
        plan.append((backend, port))
    for backend, port in plan:
        emulator = start(backend, port, "keybench emulators up", detach=True)
        addresses[backend] = emulator.address
        lines.append(f"{TITLES[backend]}: started at {emulator.address} (pid {emulator.pid}, log {emulator.log})")
    lines.append(" ".join(["export"] + [f"{ENV_VARS[b]}={addresses[b]}" for b in BACKENDS]))
    return lines


def down() -> list[str]:
    lines = []
    for emulator in recorded():
        if emulator.started_by != "keybench emulators up":
            continue  # a running `keybench run` owns it and stops it itself
        emulator.stop()
        lines.append(f"{TITLES[emulator.backend]}: stopped pid {emulator.pid} at {emulator.address}")
    return lines or ["nothing started by `keybench emulators up` is running"]


def status() -> list[str]:
    lines = []
    running = recorded()
    for backend in BACKENDS:
        title, env = TITLES[backend], ENV_VARS[backend]
        configured = os.environ.get(env)
        address = configured or f"{HOST}:{default_port(backend)}"
        ok, why = answers(address, timeout=2.0)
        mine = [e for e in running if e.backend == backend and e.address == address]
        if configured:
            who = f"set by {env}"
        elif mine:
            who = f"started by {mine[0].started_by}, pid {mine[0].pid}"
        elif ok:
            who = "not started by keybench"
        else:
            who = "nothing running"
        lines.append(f"{title}: {address} {'answers' if ok else 'does not answer (' + why + ')'}; {who}")
        lines.extend(
            f"{title}: also {e.address} answers; started by {e.started_by}, pid {e.pid}"
            for e in running if e.backend == backend and e.address != address
        )
    return lines
