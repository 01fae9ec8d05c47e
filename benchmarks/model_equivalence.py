"""Does a change to the model leave every catalogue design's figures as they were?

Simulates every catalogue design (`keybench simulate`'s code, no emulator) with this checkout
and with an earlier commit (--base, HEAD by default: the uncommitted changes are what is
compared), each version from its own `src/` and `schemas/`, in two child processes side by
side, and prints per design the verdict of each and the figures that differ, exactly (a float
that moved in its last bit counts). A speed-up of the model is meant to change no figure; one
that changes a verdict exits 1. The volume is small (--rows), so that the whole catalogue is
compared in minutes: the model's windows are then small, its per-window code runs often.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _common import add_figures_option, figures_file

REPO = Path(__file__).resolve().parent.parent

# Run in each child: the catalogue of the keybench on its path, simulated, as JSON on stdout.
CHILD = """
import json, sys
from dataclasses import replace
from keybench.design.strategies import catalogue
from keybench.model.params import SplitParams
from keybench.model.simulate import simulate_verdicts
rows, nodes = int(sys.argv[1]), int(sys.argv[2])
chosen = [s for backend in ("spanner", "bigtable") for s in catalogue(backend).values()]
json.dump(simulate_verdicts(chosen, rows, params=replace(SplitParams(), nodes=nodes)), sys.stdout, default=str)
"""


def export(revision: str, into: Path) -> Path:
    """The commit's src/ and schemas/ under `into` (git archive: the checkout is not touched)."""
    archive = into / "base.tar"
    subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "-o", str(archive), revision, "src", "schemas"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def simulate(root: Path, rows: int, nodes: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "KEYBENCH_SCHEMAS": str(root / "schemas")}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(rows), str(nodes)], env=env, stdout=subprocess.PIPE,
                            text=True)


def differences(base: dict, now: dict) -> list[str]:
    return sorted(k for k in base.keys() | now.keys() if base.get(k) != now.get(k))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the commit to compare with (default: HEAD)")
    parser.add_argument("--rows", type=int, default=300_000, help="inserts simulated per design")
    parser.add_argument("--nodes", type=int, default=100)
    add_figures_option(parser, "model_equivalence")
    args = parser.parse_args()
    base_commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.base], check=True,
                                 capture_output=True, text=True).stdout.strip()
    with figures_file(args.figures), tempfile.TemporaryDirectory(prefix="keybench-base-") as scratch:
        children = {"base": simulate(export(args.base, Path(scratch)), args.rows, args.nodes),
                    "now": simulate(REPO, args.rows, args.nodes)}
        results = {}
        for name, child in children.items():
            out, _ = child.communicate()
            if child.returncode:
                print(f"the {name} version's simulation failed (exit {child.returncode})", file=sys.stderr)
                return 2
            results[name] = {(r["backend"], r["strategy"]): r for r in json.loads(out)}
        print(f"base {base_commit} against this checkout; rows={args.rows:,} nodes={args.nodes} "
              f"designs={len(results['now'])}")
        print("| backend | design | verdict, base | verdict, now | figures that differ |")
        print("| --- | --- | --- | --- | --- |")
        same = verdicts_moved = 0
        for key in sorted(results["base"].keys() | results["now"].keys()):
            base, now = results["base"].get(key, {}), results["now"].get(key, {})
            moved = differences(base, now)
            same += not moved
            verdicts_moved += base.get("verdict") != now.get("verdict")
            print(f"| {key[0]} | {key[1]} | {base.get('verdict', '-')} | {now.get('verdict', '-')} | "
                  f"{', '.join(moved) or 'none'} |")
        print(f"summary: {same} of {len(results['now'])} designs identical in every figure; "
              f"{verdicts_moved} verdict(s) differ")
    return 1 if verdicts_moved else 0


if __name__ == "__main__":
    sys.exit(main())
