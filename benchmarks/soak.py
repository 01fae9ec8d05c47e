"""A long run at high concurrency: does keybench's memory stay bounded, does the load hold, is
every acknowledged write still there at the end?

    .venv/bin/python benchmarks/soak.py [--backends spanner,bigtable] [--duration 10m] [--users 64] \
        [--spanner-strategy uuid4_string] [--bigtable-strategy salted] [--every 10]

For each backend it runs one `keybench run` stage of `--duration` at `--users` (Spanner in
GoogleSQL), with emulators keybench starts itself on free ports (fresh ones: the Spanner
emulator slows down with every commit it has served), and samples every `--every` seconds the
resident memory (RSS) of keybench and, apart, of the emulator processes it started. It prints:

- RSS over the run, per process: at the start of the load, at its end, the peak, and the
  growth per minute of load after the first minute;
- operations per minute of load, per operation, from the run's timeseries.csv (a minute that
  is not whole is left out), with their median and [min..max];
- the stage's integrity line from summary.csv (acknowledged, stored, lost).
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil
from _common import add_figures_option, figures_file, keybench, spread

from keybench.infra.emulators import free_port
from keybench.run.options import parse_duration

MIB = 1024 * 1024
STOP_WAIT_S = 180  # an interrupted keybench audits what it wrote before it exits


def rss_of(root: psutil.Process) -> tuple[int, int]:
    """(keybench's RSS, its emulators' RSS): the root process and its Locust workers against
    every other process below it."""
    own, emulators = 0, 0
    try:
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0
    for p in processes:
        try:
            rss, line = p.memory_info().rss, " ".join(p.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if p.pid == root.pid or "keybench" in line or "locust" in line:
            own += rss
        else:
            emulators += rss
    return own, emulators


def soak(backend: str, strategy: str, args, root: Path) -> None:
    run_id = f"soak-{backend}"
    command = [keybench(), "run", "--backend", backend, "--strategies", strategy, "--duration", args.duration,
               "--users", str(args.users), "--results-dir", str(root), "--run-id", run_id, "--no-report"]
    if backend == "spanner":
        command += ["--dialects", "googlesql"]
    env = {k: v for k, v in os.environ.items() if k not in ("SPANNER_EMULATOR_HOST", "BIGTABLE_EMULATOR_HOST")}
    env |= {"KEYBENCH_SPANNER_PORT": str(free_port()), "KEYBENCH_BIGTABLE_PORT": str(free_port()),
            "KEYBENCH_STATE_DIR": str(root / f"state-{backend}")}
    print(f"\n## {backend} {strategy}: {' '.join(command[1:])}", flush=True)
    log = open(root / f"{run_id}.log", "w")
    child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    samples: list[tuple[float, int, int]] = []  # (seconds since the load began, keybench RSS, emulators' RSS)
    load_began: float | None = None
    process = psutil.Process(child.pid)
    try:
        while child.poll() is None:
            if load_began is None and " load: " in (root / f"{run_id}.log").read_text():
                load_began = time.monotonic()  # keybench's progress line as its users start
            if load_began is not None:
                own, emulators = rss_of(process)
                samples.append((time.monotonic() - load_began, own, emulators))
            try:
                child.wait(timeout=args.every)
            except subprocess.TimeoutExpired:
                pass
    finally:
        if child.poll() is None:  # interrupted: keybench stops its users, audits, stops its emulators
            os.kill(child.pid, signal.SIGINT)
            try:
                child.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
        log.close()
    if child.returncode != 0:
        tail = (root / f"{run_id}.log").read_text().strip().splitlines()[-3:]
        raise SystemExit(f"keybench run exited {child.returncode}: {' / '.join(tail)}")
    report(root / run_id, samples, parse_duration(args.duration))


def report(run_dir: Path, samples: list[tuple[float, int, int]], load_s: float) -> None:
    with open(run_dir / "timeseries.csv", newline="") as f:
        series = list(csv.DictReader(f))
    per_minute: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for row in series:
        per_minute[row["operation"]][int(row["elapsed_s"]) // 60] += int(row["ops"])
    whole = int(load_s // 60)  # minutes of load that are whole
    print("operations per minute of load (minute 1 ..):")
    for operation, minutes in per_minute.items():
        counts = [minutes.get(m, 0) for m in range(whole)]
        if counts:
            print(f"  {operation:<14} {' '.join(f'{c:,}' for c in counts)}")
            print(f"  {'':<14} median {spread([float(c) for c in counts])}")
    during = [s for s in samples if s[0] <= load_s and s[1] > 0]
    print("resident memory (MiB) during the load: start, end, peak; growth per minute after the first minute:")
    for name, column in (("keybench", 1), ("emulator", 2)):
        values = [s[column] / MIB for s in during]
        later = [s for s in during if s[0] >= during[0][0] + 60]
        growth = ((later[-1][column] - later[0][column]) / MIB / ((later[-1][0] - later[0][0]) / 60)
                  if len(later) > 1 and later[-1][0] > later[0][0] else 0.0)
        print(f"  {name:<9} {values[0]:8.0f} {values[-1]:8.0f} {max(values):8.0f}   {growth:+.1f} MiB/min"
              f"   ({len(values)} samples)")
        by_minute = [max((s[column] for s in during if m * 60 <= s[0] < (m + 1) * 60), default=0) / MIB
                     for m in range(int(load_s // 60))]
        print(f"  {'':<9} the peak of each minute: {' '.join(f'{v:.0f}' for v in by_minute)}")
    with open(run_dir / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    insert = next((r for r in rows if r["operation"] == "insert"), rows[0])
    print(f"integrity: {insert['integrity']} ({insert['acknowledged']} acknowledged)")
    total = sum(int(r["requests"]) for r in rows)
    print(f"operations: {total:,} in all, {total / load_s:,.0f}/s")


def interrupt(signum, frame) -> None:
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the run in progress is stopped, by its PID


def main() -> None:
    signal.signal(signal.SIGTERM, interrupt)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="spanner,bigtable")
    parser.add_argument("--duration", default="10m")
    parser.add_argument("--users", type=int, default=64)
    parser.add_argument("--spanner-strategy", default="uuid4_string")
    parser.add_argument("--bigtable-strategy", default="salted")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between RSS samples")
    add_figures_option(parser, "soak")
    args = parser.parse_args()
    strategies = {"spanner": args.spanner_strategy, "bigtable": args.bigtable_strategy}
    with figures_file(args.figures), tempfile.TemporaryDirectory(prefix="kb-soak-") as tmp:
        for backend in args.backends.split(","):
            soak(backend, strategies[backend], args, Path(tmp))


if __name__ == "__main__":
    main()
