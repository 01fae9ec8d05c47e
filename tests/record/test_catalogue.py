"""Every catalogue design, loaded by its plain Locust scenario (`locust -f loadtests/...`)
through `keybench record`, gets the verdict `keybench run` gives that design: the keys the
proxy saw in the API's requests are the keys keybench's own workload writes. Both verdicts
are printed in one table (the test's output: `pytest -s`, or the report of a failure).

Both sides load each design for the smoke profile's 3 s at the same paced insert rate (RATE:
enough writes for a verdict, and no more CPU than that takes on a shared machine); the two
backends' designs are recorded side by side, as their emulators are separate processes. A design the emulator writes
slowly (DML, a generated key) may then write too few keys for a verdict on a busy machine:
a side that comes back `inconclusive` is loaded again for longer, as the verdict's own
advice says, before the two are compared. So is a recording whose verdict differs from the
run's: a design that rewrites rows shows them only once the stream is long enough for rows
to come round again (a starved machine recorded 678 writes of single_row_counter in 3 s,
`spread`; 2,672 writes gave `hot_row`), so a recording is judged wrong only if it still
differs over the longer load."""

from __future__ import annotations

import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from keybench.design import strategies
from tests.conftest import keybench

pytestmark = pytest.mark.minutes(8)

# A design loads for SMOKE_S, then for each longer time in turn while its verdict is not settled
# (too few writes on a starved machine: an emulator-bound design wrote 178 rows in 15 s there).
SMOKE_S, LONGER_S = 3, (15, 60)
RATE = "500"  # inserts per second on both sides: --rate of `keybench run` and of the Locust scenario
INCONCLUSIVE = "inconclusive"


def _rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _run(results: Path, run_id: str, *args: str) -> dict[tuple[str, str], dict]:
    """`keybench run --smoke` in GoogleSQL: each design's row of verdicts.csv."""
    done = keybench("run", "--smoke", "--dialects", "googlesql", "--rate", RATE, "--results-dir", str(results),
                    "--run-id", run_id, "--no-report", *args, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {(r["backend"], r["strategy"]): r for r in _rows(results / run_id / "verdicts.csv")}


def _record(results: Path, backend: str, name: str, seconds: int) -> tuple[list[dict], str]:
    """The rows of record.csv when the design's Locust scenario runs `seconds` under `keybench
    record`, and what the command printed."""
    run_id = f"{backend}-{name}-{seconds}s"
    done = keybench("record", "--backend", backend, "--results-dir", str(results), "--run-id", run_id,
                    "--", sys.executable, "-m", "locust", "-f", f"loadtests/{backend}_locustfile.py",
                    "--strategy", name, *(("--dialect", "googlesql") if backend == "spanner" else ()), "--rate", RATE,
                    "--headless", "-u", "4", "-r", "4", "-t", f"{seconds}s", timeout=240)
    assert done.returncode == 0, f"{backend}:{name}: {done.stdout[-1500:]}{done.stderr[-1500:]}"
    return _rows(results / run_id / "record.csv"), done.stdout


def _judged(backend: str, strategy, space: str, rows: list[dict]) -> tuple[list[dict], list[dict], bool]:
    """The recorded rows of the space `keybench run` judges (the design's table, each of a
    table-per-tenant design's tables, or its index): those with a verdict, those too short
    for one (fewer writes than it needs, as a tenant's table of a shared load may be), and
    whether that settles it (a verdict, and no row inconclusive for another reason)."""
    if backend == "bigtable":
        space_rows = rows  # each design writes its own tables, named for its run
    elif space == "table":
        space_rows = [r for r in rows if r["table"] == strategy.table and not r["index"]]
    else:
        space_rows = [r for r in rows if r["index"] == space]
    short = [r for r in space_rows if r["verdict"] == INCONCLUSIVE and r["writes_needed"]
             and int(r["writes"]) < int(r["writes_needed"])]
    judged = [r for r in space_rows if r["verdict"] != INCONCLUSIVE]
    return judged, short, bool(judged) and len(judged) + len(short) == len(space_rows)


def _compare(results: Path, backend: str, name: str, run_row: dict) -> tuple[str, str]:
    """The design recorded (again for longer if that did not settle it): its line of the
    table, and why it disagrees with `keybench run`, if it does."""
    strategy = strategies.catalogue(backend)[name]
    space = run_row["model_space"]
    for seconds in (SMOKE_S, *LONGER_S):
        rows, stdout = _record(results, backend, name, seconds)
        judged, short, settled = _judged(backend, strategy, space, rows)
        if settled and {r["verdict"] for r in judged} == {run_row["verdict"]}:
            break
    recorded = {r["verdict"] for r in judged}
    line = (f"{backend:<9} {name:<22} {space:<29} {run_row['verdict']:<8} {', '.join(recorded) or '-':<9} "
            f"{sum(int(r['writes']) for r in judged + short):>6} writes in {len(judged + short)} "
            f"table(s), {seconds} s" + (f", {len(short)} too short to judge" if short else ""))
    if recorded == {run_row["verdict"]}:
        return line, ""
    return line, (f"{backend}:{name}: run {run_row['verdict']}, recorded "
                  f"{[(r['table'], r['index'], r['verdict'], r['writes']) for r in rows]}\n{stdout[-1200:]}")


def _compare_each(results: Path, backend: str, verdicts: dict) -> list[tuple[str, str]]:
    return [_compare(results, backend, name, row) for (each, name), row in verdicts.items() if each == backend]


def test_every_catalogue_design_recorded_from_plain_locust_gets_the_verdict_keybench_run_gives(
        emulator_hosts, tmp_path):
    results = tmp_path / "results"
    verdicts = _run(results, "run", "--backend", "all")
    for seconds in LONGER_S:
        for backend in strategies.BACKENDS:
            names = [n for (b, n), r in verdicts.items() if b == backend and r["verdict"] == INCONCLUSIVE]
            if names:
                verdicts |= _run(results, f"run-{backend}-{seconds}s", "--backend", backend, "--strategies",
                                 ",".join(names), "--duration", f"{seconds}s")
    # The backends' emulators are separate processes: their designs are recorded side by side.
    with ThreadPoolExecutor(max_workers=len(strategies.BACKENDS)) as pool:
        compared = [pool.submit(_compare_each, results, backend, verdicts) for backend in strategies.BACKENDS]
        outcomes = [outcome for each in compared for outcome in each.result()]
    table = [line for line, _ in outcomes]
    disagreements = [why for _, why in outcomes if why]
    report = "\n".join([f"{'backend':<9} {'design':<22} {'space':<29} {'run':<8} {'recorded':<9}", *table])
    print("\n" + report)
    assert not disagreements, report + "\n\n" + "\n\n".join(disagreements)
    assert len(table) == len(strategies.catalogue("spanner")) + len(strategies.catalogue("bigtable"))
