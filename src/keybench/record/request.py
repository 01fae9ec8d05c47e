"""What `keybench record` is asked, with its defaults: light to import (no proxy, no
database client), so the CLI reads its defaults from here."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from keybench.design.strategies import BACKENDS
from keybench.errors import KeybenchError
from keybench.measure.rundir import DEFAULT_RESULTS_DIR
from keybench.model.params import SplitParams
from keybench.model.verdict import check_verdicts
from keybench.terminal import visible


@dataclass(frozen=True)
class RecordRequest:
    command: tuple[str, ...] = ()  # empty with `listen`
    listen: bool = False
    backends: tuple[str, ...] = BACKENDS
    params: SplitParams = field(default_factory=SplitParams)
    results_dir: Path = DEFAULT_RESULTS_DIR
    run_id: str | None = None
    fail_on_verdict: tuple[str, ...] = ()
    host: str = "127.0.0.1"

    def validate(self) -> None:
        if self.listen == bool(self.command):
            raise KeybenchError("give a COMMAND after `--` (keybench record -- python app.py) or --listen, not both"
                                if self.listen else "no COMMAND: keybench record -- python app.py (or --listen)")
        if self.command and shutil.which(self.command[0]) is None:
            raise KeybenchError(f"COMMAND not found: {visible(self.command[0])}")
        check_verdicts(self.fail_on_verdict)
        self.params.validate()
