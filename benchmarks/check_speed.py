"""How long `keybench check` takes on real schemas: per schema and per object (table or
index), with the emulator already running (warm) and with none (cold: keybench starts one).

Each input is checked by the installed `keybench check` command, as a user or a pre-commit hook
runs it, --rounds times warm and --cold-rounds times cold, alternating inputs within a round
so drift lands on all of them; the figures are the median and min-max of the rounds. The
inputs: every Spanner schema of the check corpus (tests/check/corpus/spanner, real public
schemas) and the larger real schemas of benchmarks/schemas/ (20 to 76 tables and indexes;
each file's first line names its source). A schema the emulator refuses is listed as refused
and left out of the medians. Targets (issue 34): a schema of 20+ objects in at most 10 s warm
and 15 s cold on the project's 2-core machine; the corpus median at most 5 s.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import add_figures_option, figures_file, keybench, spread

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "check" / "corpus" / "spanner"
LARGE = HERE / "schemas"
# The first lines of the check's text, wrapped at the terminal's width (or 80 columns in a pipe).
HEADER = re.compile(r"(\d+)\s+table\(s\),\s+(\d+)\s+index\(es\)")


def inputs() -> list[tuple[str, Path]]:
    corpus = sorted(p for p in CORPUS.iterdir() if p.suffix == ".sql" or p.is_dir())
    return [("corpus", p) for p in corpus] + [("large", p) for p in sorted(LARGE.glob("*.sql"))]


def check_once(path: Path, env: dict[str, str]) -> tuple[float, int | None, str]:
    """(wall seconds, tables and indexes judged, why not): None and the check's last line of
    stderr when it refused the input or failed."""
    started = time.perf_counter()
    done = subprocess.run([keybench(), "check", str(path)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    found = HEADER.search(done.stdout) if done.returncode in (0, 1) else None
    if found is None:
        lines = done.stderr.strip().splitlines()
        return wall, None, f"exit {done.returncode}: {lines[-1] if lines else 'no message'}"
    return wall, int(found.group(1)) + int(found.group(2)), ""


def cold_env(base: dict[str, str]) -> dict[str, str]:
    """No emulator to find: none named, and the default port moved to a free one."""
    from keybench.infra import emulators

    env = {k: v for k, v in base.items() if k != "SPANNER_EMULATOR_HOST"}
    env["KEYBENCH_SPANNER_PORT"] = str(emulators.free_port())
    return env


def run_benchmark(args: argparse.Namespace) -> int:
    from keybench.infra import emulators

    chosen = [(kind, p) for kind, p in inputs() if not args.only or p.stem in args.only]
    emulator = emulators.start("spanner", emulators.free_port(), "benchmarks/check_speed.py", detach=False)
    warm_env = {**os.environ, "SPANNER_EMULATOR_HOST": emulator.address}
    warm: dict[Path, list[float]] = {p: [] for _, p in chosen}
    cold: dict[Path, list[float]] = {p: [] for _, p in chosen}
    objects: dict[Path, int | None] = {}
    failures: dict[Path, list[str]] = {p: [] for _, p in chosen}  # a round that gave no verdicts: its reason
    try:
        for label, env, rounds, times in (("warm", warm_env, args.rounds, warm),
                                          ("cold", None, args.cold_rounds, cold)):
            for number in range(1, rounds + 1):
                print(f"# {label} round {number} of {rounds}", file=sys.stderr, flush=True)
                for _, path in chosen:
                    wall, judged, why = check_once(path, env if env is not None else cold_env(dict(os.environ)))
                    if judged is None:
                        failures[path].append(f"{label} round {number}: {why}")
                        print(f"  {path.stem}: {failures[path][-1]}", file=sys.stderr, flush=True)
                        continue
                    objects[path] = judged
                    times[path].append(wall)
    finally:
        emulator.stop()
    print(f"Python {sys.version.split()[0]}; warm rounds={args.rounds}, cold rounds={args.cold_rounds}; "
          "seconds are wall time of the whole `keybench check` command, median [min..max]")
    print()
    print("| input | set | tables + indexes | warm s | cold s | warm s per object |")
    print("|---|---|---|---|---|---|")
    for kind, path in chosen:
        judged = objects.get(path)
        if judged is None:  # every round: the emulator refuses the schema
            reason = failures[path][0].rsplit(f"{path.name}: ", 1)[-1]  # what the emulator said, not where
            print(f"| {path.stem} | {kind} | refused ({reason[:100]}) | - | - | - |")
            continue
        w = warm[path]
        c = spread(cold[path], ".1f") if cold[path] else "-"
        per_object = f"{statistics.median(w) / judged:.2f}" if w else "-"
        print(f"| {path.stem} | {kind} | {judged} | {spread(w, '.1f') if w else '-'} | {c} | {per_object} |")
    print()
    failed = [(p, why) for p, whys in failures.items() if objects.get(p) is not None for why in whys]
    if failed:
        print("Rounds that gave no verdicts (left out of the figures):")
        for path, why in failed:
            print(f"- {path.stem}, {why}")
        print()
    checked = [p for _, p in chosen if objects.get(p) is not None and warm[p]]
    corpus = [statistics.median(warm[p]) for kind, p in chosen if kind == "corpus" and p in checked]
    if corpus:
        print(f"corpus, warm: {len(corpus)} schemas, median {statistics.median(corpus):.1f} s, "
              f"max {max(corpus):.1f} s")
    large = [p for p in checked if (objects.get(p) or 0) >= 20]
    for path in large:
        c = f", cold median {statistics.median(cold[path]):.1f} s" if cold[path] else ""
        print(f"{path.stem}: {objects[path]} tables and indexes, warm median {statistics.median(warm[path]):.1f} s{c}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="warm rounds (default 3)")
    p.add_argument("--cold-rounds", type=int, default=2, help="cold rounds (default 2)")
    p.add_argument("--only", nargs="*", default=[], metavar="NAME", help="only these inputs (file or folder stems)")
    add_figures_option(p, "check_speed")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
