"""What `keybench check` answers on a corpus of real public schemas and row keys, and how fast.

Runs every input of tests/check/corpus/ (Spanner DDL files and migration folders, by default
and under --strict, and Bigtable row keys) as the corpus tests do, and prints per input and
mode: its key spaces, how many got a definite verdict (hotspot, hot_row or spread), how many
an inconclusive one, how many definite verdicts rest on a column guessed from its name, the
seconds it took, and every verdict that missed the one written before the first run. Spanner's
own foreign-key indexes are counted apart. Needs the Spanner emulator (keybench starts one).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import add_figures_option, figures_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the corpus lives in the test suite

from tests.check.corpus_cases import MODES, Outcome, bigtable_keys, run_bigtable, run_spanner, spanner_inputs

DEFINITE = ("hotspot", "hot_row", "spread")


def counts(outcome: Outcome) -> tuple[int, int, int, int]:
    """(spaces, definite, inconclusive, definite on a guess)."""
    definite = [s for s, v in outcome.verdicts.items() if v in DEFINITE]
    return (len(outcome.verdicts), len(definite), len(outcome.verdicts) - len(definite),
            sum(1 for s in definite if outcome.guessed.get(s)))


def run_benchmark(args: argparse.Namespace) -> int:
    rows = []
    print("| input | mode | key spaces | definite | inconclusive | assumed | FK indexes | seconds | missed |")
    print("|---|---|---|---|---|---|---|---|---|")
    jobs: list[tuple[Any, str, Callable[..., Outcome]]] = [(n, m, run_spanner) for n in spanner_inputs() for m in MODES]
    jobs += [(k, "default", run_bigtable) for k in bigtable_keys()]
    for subject, mode, runner in jobs:
        started = time.perf_counter()
        outcome = runner(subject, mode) if runner is run_spanner else runner(subject)  # --strict run in full here
        seconds = time.perf_counter() - started
        spaces, definite, inconclusive, assumed = counts(outcome)
        label = outcome.name if runner is run_spanner else f"bigtable {outcome.name}"
        shown = "refused (expected)" if outcome.error and not outcome.mismatches else str(spaces)
        print(f"| {label} | {mode} | {shown} | {definite} | {inconclusive} | {assumed} | {len(outcome.managed)} | "
              f"{seconds:.1f} | {'; '.join(outcome.mismatches) or '-'} |", flush=True)
        rows.append((runner is run_spanner, mode, outcome, seconds))
    print()
    for title, pick in (("Spanner, default", lambda r: r[0] and r[1] == "default"),
                        ("Spanner, --strict", lambda r: r[0] and r[1] == "strict"),
                        ("Bigtable", lambda r: not r[0])):
        chosen = [r for r in rows if pick(r)]
        totals = [sum(counts(r[2])[i] for r in chosen) for i in range(4)]
        missed = sum(len(r[2].mismatches) for r in chosen)
        times = [r[3] for r in chosen]
        print(f"{title}: {len(chosen)} inputs, {totals[0]} key spaces: {totals[1]} definite ({totals[3]} of them "
              f"on a guess from a name), {totals[2]} inconclusive; {missed} expectation(s) missed; seconds per input "
              f"median {statistics.median(times):.1f}, max {max(times):.1f}")
    return 1 if any(r[2].mismatches for r in rows) else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_figures_option(p, "check_corpus")
    args = p.parse_args()
    with figures_file(args.figures):
        return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
