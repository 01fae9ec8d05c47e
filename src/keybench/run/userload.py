"""`keybench check --load 30s`: the drafts the check judged, saved as strategy folders in a
temporary folder, then run as `keybench run --strategy-dir` runs them: the same stages, integrity
audit, latency table and results directory, with only those drafts and the given duration."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from keybench.design.folders import save_strategies
from keybench.errors import KeybenchError
from keybench.run.options import RunOptions
from keybench.run.pipeline import run
from keybench.terminal import wrapped


def load_options(folder: Path, backend: str, names: list[str], duration_s: float, results_dir: Path) -> RunOptions:
    """`keybench run --strategy-dir folder --strategies names` on one backend, with every setting
    `keybench run`'s default: a saved Spanner design holds the fixture of the dialect it was
    saved from only, and a user's design runs in the dialects its folder has fixtures for."""
    return RunOptions(backends=(backend,), strategies=tuple(names), strategy_dirs=(folder,), duration_s=duration_s,
                      results_dir=results_dir)


def load_strategies(drafts, duration_s: float, results_dir: Path = RunOptions.results_dir) -> int:
    """Save `drafts` and run them; the run's exit code."""
    if all(d.skipped for d in drafts):
        raise KeybenchError("--load: nothing to load: " + "; ".join(f"{d.what} {d.skipped}" for d in drafts))
    with tempfile.TemporaryDirectory(prefix="keybench-load-") as tmp:
        folder = Path(tmp) / "drafts"
        save_strategies(drafts, folder)  # a temporary folder: its lines name it, so they are not printed
        loaded = [d for d in drafts if not d.skipped]
        lines = ["", f"load: {', '.join(d.what for d in loaded)} under keybench run's load for {duration_s:g}s "
                     "on the emulator"]
        for draft in drafts:
            if draft.skipped:
                lines.append(f"  not loaded: {draft.what}: {draft.skipped}")
            lines += [f"  {draft.what}: {note}" for note in draft.notes]
        print("\n".join(wrapped(lines, shutil.get_terminal_size().columns)))
        return run(load_options(folder, loaded[0].backend, [d.name for d in loaded], duration_s, results_dir))
