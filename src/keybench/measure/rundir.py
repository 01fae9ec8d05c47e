"""A run's directory: built under a hidden `.<run-id>.partial` name, every file written by
temp-and-rename, and renamed to `<run-id>` only when complete, so `results/` never shows a
half-written run. A run that fails part-way (a full disk, a write error) is renamed
`.<run-id>.failed`, so nothing reads it as complete or as still running."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from keybench.atomic import write_atomically
from keybench.errors import KeybenchError

DEFAULT_RESULTS_DIR = Path("results")  # where `run` and `record` write their run directories, and `report` looks


def latest_run(root: Path) -> Path:
    """The newest finished run under `root` (by its summary.csv's time): what `report` and
    `analyze` read when no run is named. Hidden `.partial` and `.failed` runs are not
    finished, so never chosen."""
    root = Path(root)
    finished = [d for d in root.iterdir() if not d.name.startswith(".") and (d / "summary.csv").is_file()] \
        if root.is_dir() else []
    if not finished:
        raise KeybenchError(f"no finished run under {root}/: name a run directory, or run `keybench run` first")
    return max(finished, key=lambda d: ((d / "summary.csv").stat().st_mtime, d.name))


@dataclass
class RunDirectory:
    root: Path
    run_id: str

    @property
    def final(self) -> Path:
        return self.root / self.run_id

    @property
    def partial(self) -> Path:
        return self.root / f".{self.run_id}.partial"

    @property
    def failed(self) -> Path:
        return self.root / f".{self.run_id}.failed"

    @staticmethod
    def check_writable(root: Path) -> None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / f".keybench-probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise KeybenchError(f"results directory {root} is not writable: {exc.strerror or exc}") from None

    def open(self) -> None:
        if self.final.exists():
            raise KeybenchError(f"{self.final} already exists; choose another --run-id")
        try:
            self.partial.mkdir(parents=True)
        except FileExistsError:
            raise KeybenchError(
                f"{self.partial} exists: another run with this id is in progress, or one was cut off "
                f"(remove it, or choose another --run-id)"
            ) from None

    def write(self, name: str, text: str | bytes) -> Path:
        """One file of the run, whole or not at all."""
        return write_atomically(self.partial / name, text)

    def commit(self) -> Path:
        self.partial.replace(self.final)
        return self.final

    def mark_failed(self) -> Path:
        """Keep what a failed run wrote, under a name that says it failed."""
        shutil.rmtree(self.failed, ignore_errors=True)
        self.partial.replace(self.failed)
        return self.failed

    def discard(self) -> None:
        shutil.rmtree(self.partial, ignore_errors=True)
