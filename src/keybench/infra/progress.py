"""Progress lines of a long run, on stderr (stdout carries the results); on a terminal, below
them, a bar of the stages done with the time elapsed and an estimate of the time left."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from keybench.terminal import colour_wanted, underlying, visible

PROGRESS_EVERY_S = 5.0  # how often a long step (a stage's load, a large schema's check) says how far it got

_bar = None  # the run's bar while one is drawn (a terminal); the lines then print above it


def progress(msg: str) -> None:
    if _bar is None:
        print(msg, file=sys.stderr, flush=True)
        return
    _bar.console.print(visible(msg), markup=False, highlight=False, emoji=False, soft_wrap=True)
    _bar.refresh()


@contextmanager
def stage_bar(total: int) -> Iterator[Callable[[], None]]:
    """A bar of `total` stages below the progress lines, when stderr is a terminal; yields the
    call that counts a stage done. Elsewhere (a CI log, a pipe) nothing but the lines. The bar
    is redrawn when a line prints or a stage ends (no thread of its own: the load's greenlets
    keep the process), and leaves no trace when the run ends."""
    global _bar
    if not colour_wanted(sys.stderr) or total < 2:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(TextColumn("stages"), BarColumn(), MofNCompleteColumn(), TextColumn("elapsed"),
                   TimeElapsedColumn(), TextColumn("left about"), TimeRemainingColumn(),
                   console=Console(file=underlying(sys.stderr)), auto_refresh=False, transient=True,
                   redirect_stdout=False, redirect_stderr=False)
    task = bar.add_task("stages", total=total)
    bar.start()
    _bar = bar

    def done() -> None:
        bar.advance(task)
        bar.refresh()

    try:
        yield done
    finally:
        _bar = None
        bar.stop()
