"""Facts of the machine, the software and the endpoints, for run.json: looked up once per run."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from keybench import __version__
from keybench.infra import emulators


def machine() -> dict:
    memory_kb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    except OSError:
        pass
    return {"cores": os.cpu_count(), "memory_gib": round(memory_kb / 2**20, 1) if memory_kb else None,
            "platform": platform.platform()}


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {"keybench": __version__, "python": platform.python_version()}
    for name in ("locust", "google-cloud-spanner", "google-cloud-bigtable", "grpcio", "hdrhistogram", "gevent"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def endpoint_record(ep: emulators.Endpoint, sdk_version: str | None) -> dict:
    started_by_keybench = ep.target == "emulator" and ep.source not in ("environment", "already running")
    return {
        "address": ep.address, "source": ep.source, "target": ep.target,
        # Only for emulators keybench started: others may be any version (Docker images, ...).
        "emulator_version": f"google-cloud-cli {sdk_version}" if started_by_keybench else "unknown",
    }
