"""How long `keybench simulate` takes, and how much memory, at 100M keys over 100 nodes.

Runs one `keybench simulate` child per case and round, one at a time, and prints per case
the wall time, the keys modelled per second and the child's peak resident memory (its own
rusage, from os.wait4) as the median and min-max over --rounds, then each case's verdict
and headline figures at --rows and at --compare-rows (10M by default): the streaming model
must give the same verdicts whatever the volume. The target: 100M keys in at most 1 GB of
peak RSS, at 5M keys/s or more, on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import add_figures_option, figures_file, spread

CASES = (("spanner", "timestamp_first"), ("spanner", "uuid4_string"), ("spanner", "hash_shard"),
         ("bigtable", "timestamp_first"))


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


def headline(m: dict[str, str]) -> str:
    return (f"verdict={m['verdict']} hot_node_share={float(m['hot_node_share']):.4f} "
            f"effective_nodes={float(m['effective_nodes']):.1f} hot_row_share={float(m['hot_unit_share']):.4f} "
            f"rewrite_share={float(m['rewrite_share']):.3f} max_row_writes={m['max_row_writes']} "
            f"mean_key_bytes={m['mean_key_bytes']}")


def run_benchmark(args: argparse.Namespace) -> int:
    cases = [tuple(c.split(":", 1)) for c in args.case] if args.case else CASES
    import numpy

    print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__}; rows={args.rows:,} nodes={args.nodes} "
          f"rounds={args.rounds}", flush=True)
    for backend, strategy in cases:
        runs = [measure(backend, strategy, args.rows, args.nodes) for _ in range(args.rounds)]
        walls, peaks = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{backend}:{strategy} wall_s={spread(walls, '.1f')} "
              f"keys_per_s={spread([args.rows / w / 1e6 for w in walls], '.2f')}M "
              f"peak_rss_mb={spread(peaks, '.0f')}", flush=True)
        print(f"  at {args.rows:,}: {headline(runs[0][2])}", flush=True)
        if args.compare_rows:
            _, _, compared = measure(backend, strategy, args.compare_rows, args.nodes)
            same = "same verdict" if compared["verdict"] == runs[0][2]["verdict"] else "VERDICT DIFFERS"
            print(f"  at {args.compare_rows:,}: {headline(compared)} ({same})", flush=True)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3, help="runs per case (default 3)")
    p.add_argument("--compare-rows", type=int, default=10_000_000,
                   help="the volume whose verdicts --rows must repeat (default 10M; 0: no comparison)")
    p.add_argument("--case", action="append", metavar="BACKEND:STRATEGY",
                   help="a case to run instead of the default four (repeatable)")
    add_figures_option(p, "simulate_scale")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
