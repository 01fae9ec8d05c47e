"""What every benchmark prints its figures with, and the figures file it leaves behind.

A benchmark's figures live in the file it writes (benchmarks/results/NAME.txt), under a
header that says when, on what machine and with which versions they were measured; the
documentation includes those files as they are, so no figure is copied by hand."""

from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

RESULTS = Path(__file__).resolve().parent / "results"


def keybench() -> str:
    """The keybench command of this Python's environment, else the one on PATH."""
    local = Path(sys.executable).with_name("keybench")
    return str(local) if local.exists() else "keybench"


def cpu_seconds() -> float:
    """CPU time of this process, all threads: per operation it is far less noisy than
    throughput on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def spread(values: list[float], fmt: str = ",.0f") -> str:
    """median [min..max] of a benchmark's rounds."""
    return f"{statistics.median(values):{fmt}}  [{min(values):{fmt}}..{max(values):{fmt}}]"


def add_figures_option(parser: argparse.ArgumentParser, name: str) -> None:
    """--figures PATH: where the figures file goes (benchmarks/results/NAME.txt by default, which
    the docs include); '-' prints only."""
    parser.add_argument("--figures", default=str(RESULTS / f"{name}.txt"), metavar="PATH",
                        help="the figures file, with when, where and with what they were measured "
                             "(default: %(default)s, which the docs include); '-' to print only")


class _Tee(io.TextIOBase):
    def __init__(self, *streams: TextIO):
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _source_revision() -> str:
    """The checkout's commit, and whether files it tracks were changed: what code was measured."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (commit + (" with uncommitted changes" if dirty else "")) if commit else "unknown"


def provenance(started: datetime, load_at_start: float) -> list[str]:
    """When, where and with what: the lines that head every figures file."""
    from keybench.infra import emulators
    from keybench.run import facts

    machine, versions = facts.machine(), facts.versions()
    sdk = emulators.sdk_version()
    ended = datetime.now(UTC)
    return [
        f"measured: {started:%Y-%m-%d %H:%M} to {ended:%H:%M} UTC",
        f"command:  {shlex.join(['benchmarks/' + Path(sys.argv[0]).name, *sys.argv[1:]])}",
        f"machine:  {machine['cores']} cores ({_cpu_model()}), {machine['memory_gib']} GiB, {machine['platform']}; "
        f"load average {load_at_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end",
        "versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v)
        + (f", emulators of google-cloud-cli {sdk}" if sdk else ", emulators: version unknown"),
        f"source:   {_source_revision()}",
    ]


@contextmanager
def figures_file(path: str) -> Iterator[None]:
    """Everything the benchmark prints goes to the terminal as it comes and, when the benchmark
    ends without an error, into `path` under its provenance. The file is replaced whole, so an
    interrupted benchmark leaves the figures it had before."""
    if path == "-":
        yield
        return
    started, load = datetime.now(UTC), os.getloadavg()[0]
    captured = io.StringIO()
    with redirect_stdout(_Tee(sys.stdout, captured)):
        yield
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_text("\n".join(provenance(started, load)) + "\n\n" + captured.getvalue().rstrip() + "\n")
    partial.replace(target)
    print(f"figures: {target}")
