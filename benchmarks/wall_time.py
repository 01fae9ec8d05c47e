"""Where a run's wall time goes, and whether running the model, the emulator's boot and the
audit side by side changes any stage's figures.

    .venv/bin/python benchmarks/wall_time.py [--rounds 3] [--strategies a,b,c] [--dialects googlesql] \
        [--duration 10s] [--smoke] [--no-compare]

Each round runs `keybench run` twice, with the phases after each load side by side (the
default) and with `--no-overlap` (every unit modelled at the end, nothing beside anything),
the order alternating from round to round (A B, B A, ...) so drift lands on both. It prints:

- per mode, the wall time, the summed load time and their ratio (run.json's `wall_time`), and
  the seconds outside the load per phase, each as median [min..max] over the rounds;
- per design and operation, the p50 and p99 of each mode as [min..max] over the rounds, and
  whether the two ranges overlap. Ranges that overlap for every row: no systematic shift.

`--smoke` runs `keybench run --smoke` (3 s stages, 4 users) instead; `--no-compare` runs the
default mode only (e.g. to quote `keybench run --smoke` over the whole catalogue).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import add_figures_option, figures_file, keybench, spread

DEFAULT_STRATEGIES = "timestamp_first,uuid4_string,hash_shard,salted,reverse_timestamp"
MODES = {"overlap": [], "no-overlap": ["--no-overlap"]}


def one_run(args, mode: str, round_no: int, root: Path) -> tuple[dict, list[dict], float]:
    """(run.json's wall_time, summary rows, the command's own seconds) of one run."""
    run_id = f"{mode}-{round_no}"
    command = [keybench(), "run", "--results-dir", str(root), "--run-id", run_id, *MODES[mode]]
    if args.smoke:
        command.append("--smoke")
    if args.strategies:
        command += ["--strategies", args.strategies]
    for flag in ("dialects", "duration", "backend"):
        if getattr(args, flag):
            command += [f"--{flag}", getattr(args, flag)]
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    wall = json.loads((root / run_id / "run.json").read_text())["wall_time"]
    with open(root / run_id / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return wall, rows, seconds


def overlaps(a: list[float], b: list[float]) -> bool:
    return min(a) <= max(b) and min(b) <= max(a)


def run_benchmark(args: argparse.Namespace) -> int:
    modes = ["overlap"] if args.no_compare else list(MODES)
    walls: dict[str, list[dict]] = {m: [] for m in modes}
    latencies: dict[tuple[str, str, str], dict[str, dict[str, list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="kb-wall-") as tmp:
        for round_no in range(1, args.rounds + 1):
            order = modes if round_no % 2 else modes[::-1]
            for mode in order:
                wall, rows, seconds = one_run(args, mode, round_no, Path(tmp))
                walls[mode].append(wall)
                print(f"round {round_no} {mode}: wall {wall['wall_s']:.0f} s, load {wall['load_s']:.0f} s, "
                      f"wall/load {wall['wall_s'] / wall['load_s']:.3f} (command {seconds:.0f} s)", flush=True)
                for row in rows:
                    if not row.get("p50_ms") or row["operation"] == "tenant_drop":
                        continue
                    key = (row["backend"], row["strategy"] + (f"[{row['dialect']}]" if row.get("dialect") else ""),
                           row["operation"])
                    percentiles = latencies.setdefault(key, {}).setdefault(mode, {"p50": [], "p99": []})
                    percentiles["p50"].append(float(row["p50_ms"]))
                    percentiles["p99"].append(float(row["p99_ms"]))
    print()
    print("| mode | wall s | load s | wall / load | outside the load, s (median per phase) |")
    print("|---|---:|---:|---:|---|")
    for mode, records in walls.items():
        phases = {name: statistics.median(r["outside_load_s"][name] for r in records)
                  for name in records[0]["outside_load_s"]}
        print(f"| {mode} | {spread([r['wall_s'] for r in records])} | {spread([r['load_s'] for r in records])} | "
              f"{spread([r['wall_s'] / r['load_s'] for r in records], '.3f')} | "
              f"{', '.join(f'{k} {v:.1f}' for k, v in phases.items() if v >= 0.05)} |")
    if len(modes) < 2:
        return 0
    print()
    print("| backend | design | operation | p50 ms overlap | p50 ms no-overlap | p99 ms overlap | p99 ms no-overlap | "
          "ranges overlap |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    apart, one_sided = 0, []
    for (backend, design, op), cell in sorted(latencies.items()):
        if set(cell) != set(modes):  # no latency in any round of one mode: nothing to compare
            one_sided.append(f"{backend} {design} {op} (only {', '.join(cell)})")
            continue
        a, b = cell["overlap"], cell["no-overlap"]
        same = overlaps(a["p50"], b["p50"]) and overlaps(a["p99"], b["p99"])
        apart += not same
        ranges = [f"{statistics.median(v):.2f} [{min(v):.2f}..{max(v):.2f}]" for v in (a["p50"], b["p50"], a["p99"],
                                                                                       b["p99"])]
        print(f"| {backend} | {design} | {op} | {' | '.join(ranges)} | {'yes' if same else '**no**'} |")
    compared = len(latencies) - len(one_sided)
    print(f"\n{compared - apart} of {compared} rows: the p50 and p99 ranges of the two modes overlap")
    if one_sided:
        print(f"not compared, a latency in one mode only: {'; '.join(one_sided)}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--strategies", default=DEFAULT_STRATEGIES, help="'' for the whole catalogue")
    p.add_argument("--dialects", default="googlesql")
    p.add_argument("--backend")
    p.add_argument("--duration", help="per stage (default: keybench run's)")
    p.add_argument("--smoke", action="store_true", help="keybench run --smoke")
    p.add_argument("--no-compare", action="store_true", help="the default mode only")
    add_figures_option(p, "wall_time")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
