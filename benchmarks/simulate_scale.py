"""How long `keybench simulate` takes, and how much memory, at 10M keys over 100 nodes.

Runs one `keybench simulate` child per case and prints, one line each, its wall time and
its peak resident memory (the child's own rusage, from os.wait4), with the headline figures.
The target: under 60 s and under 2 GB on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

CASES = (("spanner", "timestamp_first"), ("spanner", "uuid4_string"), ("bigtable", "timestamp_first"))


def keybench() -> str:
    local = Path(sys.executable).with_name("keybench")
    return str(local) if local.exists() else "keybench"


def measure(backend: str, strategy: str, rows: int, nodes: int) -> tuple[float, float, dict[str, str]]:
    """(wall seconds, peak RSS in MB, metrics) of one simulate run."""
    command = [keybench(), "simulate", "--backend", backend, "--strategy", strategy,
               "--rows", str(rows), "--nodes", str(nodes)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    metrics = dict(line.split(": ", 1) for line in out.strip().splitlines())
    return wall, usage.ru_maxrss / 1024, metrics  # ru_maxrss is in KB on Linux


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--nodes", type=int, default=100)
    args = p.parse_args()
    for backend, strategy in CASES:
        wall, rss_mb, m = measure(backend, strategy, args.rows, args.nodes)
        print(f"{backend}:{strategy} rows={args.rows:,} nodes={args.nodes} wall_s={wall:.1f} peak_rss_mb={rss_mb:.0f} "
              f"hot_node_share={float(m['hot_node_share']):.3f} effective_nodes={float(m['effective_nodes']):.1f} "
              f"mean_key_bytes={m['mean_key_bytes']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
