"""How long `keybench simulate` takes, and how much memory, at 100M keys over 100 nodes.

Runs one `keybench simulate` child per case and round, one at a time (every catalogue
design by default), and prints per case the wall time, the keys modelled per second and the
peak memory of the child with its helper process (their PSS summed, where memory both map
counts once, sampled every second; their RSS summed, every 0.1 s, and the child's own
rusage peak beside it), as the median and min-max over --rounds; then each case's
verdict, whether it is the one the documents claim, and headline figures at --rows and at
--compare-rows (10M by default): the streaming model must give the same verdicts whatever
the volume. The target: 100M keys in at most 1 GB, at 5M keys/s or more,
on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _common import add_figures_option, figures_file, keybench, spread

TARGET_KEYS_PER_S = 5e6
TARGET_PEAK_MB = 1024


def catalogue_cases() -> list[tuple[str, str]]:
    from keybench.design.strategies import catalogue

    return [(backend, name) for backend in ("spanner", "bigtable") for name in catalogue(backend)]


def tree_memory_mb(pid: int, pss: bool) -> tuple[float, float]:
    """The memory of a process and its descendants (0 once they have gone): their resident
    memory (RSS) summed, where memory two of them map counts once for each, and, if `pss`,
    their proportional share of it (PSS) summed, where it counts once. PSS is read from
    smaps_rollup, which walks the process's page tables: about 2.4 ms for a process of 700 MB,
    against 14 us for the RSS in status."""
    totals = {"VmRSS:": 0, "Pss:": 0}
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for name in ("status", "smaps_rollup") if pss else ("status",):
                for line in Path(f"/proc/{current}/{name}").read_text().splitlines():
                    field = line.split(maxsplit=1)[0] if line else ""
                    if field in totals:
                        totals[field] += int(line.split()[1])
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return totals["VmRSS:"] / 1024, totals["Pss:"] / 1024


def measure(backend: str, strategy: str, rows: int, nodes: int) -> tuple[float, float, float, float, dict[str, Any]]:
    """(wall seconds, peak PSS and peak summed RSS of the process tree in MB, the child's own
    peak RSS, metrics) of one simulate run."""
    command = [keybench(), "simulate", "--backend", backend, "--strategy", strategy,
               "--rows", str(rows), "--nodes", str(nodes), "--format", "json"]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    peak = [0.0, 0.0]  # PSS, RSS
    done = threading.Event()

    def sample() -> None:
        # RSS every 0.1 s, PSS every second: read every 0.1 s, PSS took a few per cent of a
        # core from the run it measured
        for tick in itertools.count():
            if done.wait(0.1):
                return
            rss, pss = tree_memory_mb(child.pid, pss=tick % 10 == 9)
            peak[:] = max(peak[0], pss), max(peak[1], rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert child.stdout is not None
    out = child.stdout.read()
    done.set()
    sampler.join()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    metrics = json.loads(out)["rows"][0]
    own = usage.ru_maxrss / 1024  # ru_maxrss is in KB on Linux
    return wall, peak[0], max(peak[1], own), own, metrics


def headline(m: dict[str, Any]) -> str:
    return (f"verdict={m['verdict']} claimed={m['expected']} agrees={m['agrees']} "
            f"hot_node_share={float(m['hot_node_share']):.4f} "
            f"effective_nodes={float(m['effective_nodes']):.1f} hot_row_share={float(m['hot_unit_share']):.4f} "
            f"rewrite_share={float(m['rewrite_share']):.3f} max_row_writes={m['max_row_writes']} "
            f"mean_key_bytes={m['mean_key_bytes']}")


def run_benchmark(args: argparse.Namespace) -> int:
    cases = [tuple(c.split(":", 1)) for c in args.case] if args.case else catalogue_cases()
    import numpy

    print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__}; rows={args.rows:,} nodes={args.nodes} "
          f"rounds={args.rounds} cases={len(cases)}", flush=True)
    rates, peaks_all, differ = {}, [], []
    for backend, strategy in cases:
        runs = [measure(backend, strategy, args.rows, args.nodes) for _ in range(args.rounds)]
        walls, peaks, summed, owns = ([r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs],
                                      [r[3] for r in runs])
        rates[f"{backend}:{strategy}"] = statistics.median(args.rows / w for w in walls)
        peaks_all.append(max(peaks))
        print(f"{backend}:{strategy} wall_s={spread(walls, '.1f')} "
              f"keys_per_s={spread([args.rows / w / 1e6 for w in walls], '.2f')}M "
              f"peak_pss_mb={spread(peaks, '.0f')} (RSS summed {spread(summed, '.0f')}, "
              f"keybench alone {spread(owns, '.0f')})", flush=True)
        print(f"  at {args.rows:,}: {headline(runs[0][4])}", flush=True)
        if args.compare_rows:
            compared = measure(backend, strategy, args.compare_rows, args.nodes)[4]
            same = compared["verdict"] == runs[0][4]["verdict"]
            if not same:
                differ.append(f"{backend}:{strategy}")
            print(f"  at {args.compare_rows:,}: {headline(compared)} "
                  f"({'same verdict' if same else 'VERDICT DIFFERS'})", flush=True)
    met = sorted(name for name, rate in rates.items() if rate >= TARGET_KEYS_PER_S)
    print(f"\nsummary: {len(met)} of {len(rates)} cases at {TARGET_KEYS_PER_S / 1e6:g}M keys/s or more (median); "
          f"slowest {min(rates.values()) / 1e6:.2f}M keys/s ({min(rates, key=rates.__getitem__)}); "
          f"largest peak {max(peaks_all):.0f} MB PSS (target {TARGET_PEAK_MB} MB); "
          f"verdicts that differ between volumes: {', '.join(differ) or 'none'}", flush=True)
    below = sorted((rate, name) for name, rate in rates.items() if rate < TARGET_KEYS_PER_S)
    if below:
        print("below the target: " + ", ".join(f"{name} {rate / 1e6:.2f}M" for rate, name in below), flush=True)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3, help="runs per case (default 3)")
    p.add_argument("--compare-rows", type=int, default=10_000_000,
                   help="the volume whose verdicts --rows must repeat (default 10M; 0: no comparison)")
    p.add_argument("--case", action="append", metavar="BACKEND:STRATEGY",
                   help="a case to run instead of every catalogue design (repeatable)")
    add_figures_option(p, "simulate_scale")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
