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

from _common import add_figures_option, figures_file, spread

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "check" / "corpus" / "spanner"
LARGE = HERE / "schemas"
HEADER = re.compile(r"(\d+) table\(s\), (\d+) index\(es\)")


def keybench() -> str:
    local = Path(sys.executable).with_name("keybench")
    return str(local) if local.exists() else "keybench"


def inputs() -> list[tuple[str, Path]]:
    corpus = sorted(p for p in CORPUS.iterdir() if p.suffix == ".sql" or p.is_dir())
    return [("corpus", p) for p in corpus] + [("large", p) for p in sorted(LARGE.glob("*.sql"))]


def check_once(path: Path, env: dict[str, str]) -> tuple[float, int | None]:
    """(wall seconds, tables and indexes judged; None if the check refused the input)."""
    started = time.perf_counter()
    done = subprocess.run([keybench(), "check", str(path)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        return wall, None
    found = HEADER.search(done.stdout)
    return wall, (int(found.group(1)) + int(found.group(2))) if found else None


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
    try:
        for label, env, rounds, times in (("warm", warm_env, args.rounds, warm),
                                          ("cold", None, args.cold_rounds, cold)):
            for number in range(1, rounds + 1):
                print(f"# {label} round {number} of {rounds}", file=sys.stderr, flush=True)
                for _, path in chosen:
                    wall, judged = check_once(path, env if env is not None else cold_env(dict(os.environ)))
                    objects.setdefault(path, judged)
                    times[path].append(wall)
    finally:
        emulator.stop()
    print(f"Python {sys.version.split()[0]}; warm rounds={args.rounds}, cold rounds={args.cold_rounds}; "
          "seconds are wall time of the whole `keybench check` command, median [min..max]")
    print()
    print("| input | set | tables + indexes | warm s | cold s | warm s per object |")
    print("|---|---|---|---|---|---|")
    for kind, path in chosen:
        judged = objects[path]
        if judged is None:
            print(f"| {path.stem} | {kind} | refused | - | - | - |")
            continue
        w = warm[path]
        c = spread(cold[path], ".1f") if cold[path] else "-"
        print(f"| {path.stem} | {kind} | {judged} | {spread(w, '.1f')} | {c} | {statistics.median(w) / judged:.2f} |")
    print()
    checked = [p for _, p in chosen if objects[p] is not None]
    corpus = [statistics.median(warm[p]) for kind, p in chosen if kind == "corpus" and objects[p] is not None]
    if corpus:
        print(f"corpus, warm: {len(corpus)} schemas, median {statistics.median(corpus):.1f} s, "
              f"max {max(corpus):.1f} s")
    large = [p for p in checked if (objects[p] or 0) >= 20]
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
