"""What watching the KEYBENCH tab costs the load it watches.

    .venv/bin/python benchmarks/webui_cost.py [--rounds 3] [--seconds 30] [--users 16]

Plain Locust with its web UI (`locust -f loadtests/bigtable_locustfile.py --strategy
timestamp_first --autostart`), as a user runs it, on an emulator this benchmark starts. Each
round runs twice, in alternating order: unwatched, and watched by a client that polls
/stats/requests every 2 s as the open tab does (each poll returns the tab's rows, and starts
the model when its last answer is older than 5 s). Figures are Locust's own for the insert
series (its stats CSV: requests per second, p99, p99.9 and max in ms), as the median and
min-max of the rounds, and watched/unwatched as a ratio of the medians.

The target (issue 33): watching changes nothing beyond the noise. The tab's model and heatmap
run in a process of their own; the load process only copies its key stream out every 5 s.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from _common import add_figures_option, figures_file, spread

REPO = Path(__file__).resolve().parent.parent
POLL_EVERY_S = 2.0  # what Locust's page does
FIGURES = (("rps", "Requests/s", "inserts/s"), ("p99", "99%", "p99 ms"), ("p999", "99.9%", "p99.9 ms"),
           ("max", "Max Response Time", "max ms"))


def poll(url: str, stop: threading.Event, seen: list[str]) -> None:
    """GET /stats/requests every POLL_EVERY_S until `stop`; keeps the tab's verdict figures seen."""
    while not stop.wait(POLL_EVERY_S):
        try:
            with urllib.request.urlopen(url + "/stats/requests", timeout=10) as answer:
                body = json.loads(answer.read())
        except OSError:
            continue
        for table in body.get("extended_stats", []):
            seen.extend(row["figure"] for row in table["data"] if row.get("series") == "VERDICT")


def one_run(emulator: str, watched: bool, seconds: float, users: int, folder: Path) -> dict[str, float]:
    from keybench.infra import emulators

    port = emulators.free_port()
    prefix = folder / f"{'watched' if watched else 'unwatched'}-{time.monotonic_ns()}"
    command = [sys.executable, "-m", "locust", "-f", "loadtests/bigtable_locustfile.py", "--strategy",
               "timestamp_first", "--web-host", "127.0.0.1", "--web-port", str(port), "--autostart",
               "--autoquit", "0", "-u", str(users), "-r", str(users), "-t", f"{seconds:g}s", "--csv", str(prefix)]
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": emulator}
    log = open(prefix.with_suffix(".log"), "w")
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    stop, seen = threading.Event(), list[str]()
    poller = threading.Thread(target=poll, args=(f"http://127.0.0.1:{port}", stop, seen), daemon=True)
    if watched:
        poller.start()
    try:
        code = process.wait(seconds + 180)
    finally:
        stop.set()
        if process.poll() is None:
            process.terminate()
            process.wait(60)
        log.close()
    if code != 0:
        raise SystemExit(f"locust exited {code}; see {prefix.with_suffix('.log')}")
    if watched and not any(v not in ("modelling", "waiting") for v in seen):
        raise SystemExit("the watched run never showed a verdict: the tab was not exercised")
    with open(f"{prefix}_stats.csv", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["Name"] == "insert")
    return {key: float(row[column]) for key, column, _ in FIGURES}


def run_benchmark(args: argparse.Namespace) -> int:
    from keybench.infra import emulators

    emulator = emulators.start("bigtable", emulators.free_port(), "benchmarks/webui_cost.py", detach=False)
    results: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    try:
        with tempfile.TemporaryDirectory(prefix="keybench-webui-cost-") as folder:
            for number in range(1, args.rounds + 1):
                order = (False, True) if number % 2 else (True, False)
                for watched in order:
                    print(f"# round {number} of {args.rounds}: {'watched' if watched else 'unwatched'}",
                          file=sys.stderr, flush=True)
                    results[watched].append(one_run(emulator.address, watched, args.seconds, args.users,
                                                    Path(folder)))
    finally:
        emulator.stop()
    print(f"bigtable timestamp_first, {args.users} users, {args.seconds:g} s per run, {args.rounds} rounds "
          "(Locust's own insert figures; median [min..max])")
    print()
    print("| figure | unwatched | watched | watched / unwatched |")
    print("|---|---|---|---|")
    for key, _, label in FIGURES:
        plain, looked_at = ([r[key] for r in results[flag]] for flag in (False, True))
        ratio = statistics.median(looked_at) / statistics.median(plain) if statistics.median(plain) else float("nan")
        print(f"| {label} | {spread(plain, ',.1f')} | {spread(looked_at, ',.1f')} | {ratio:.2f} |")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds, each a watched and an unwatched run (default 3)")
    p.add_argument("--seconds", type=float, default=30.0, help="each run's length (default 30)")
    p.add_argument("--users", type=int, default=16, help="Locust users (default 16)")
    add_figures_option(p, "webui_cost")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
