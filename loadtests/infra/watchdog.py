"""Every wait after the load has a way out. A stalled database (a paused emulator, a dead
one whose client retries forever) would otherwise hang the audit or the drop with no end:
the work runs in its own greenlet, and while it has not finished, a cheap request with a
short deadline asks whether the database still answers. Two unanswered probes in a row
abandon the work. A slow but answering database (a large table on a real instance) is never
cut off: only silence is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import gevent

T = TypeVar("T")

PROBE_EVERY_S = 1.0  # how long the work runs between probes
PROBE_TIMEOUT_S = 1.5  # how long one probe waits for an answer
MISSES = 2  # unanswered probes in a row that abandon the work


class Unanswered(Exception):
    """The database stopped answering while the work waited on it."""


def watched(work: Callable[[], T], answers: Callable[[float], bool], what: str,
            probe_every_s: float = PROBE_EVERY_S, probe_timeout_s: float = PROBE_TIMEOUT_S,
            misses: int = MISSES) -> T:
    """work()'s result (or its exception); Unanswered if the database fell silent first."""
    task = gevent.spawn(work)
    missed = 0
    while True:
        task.join(timeout=probe_every_s)
        if task.ready():
            return task.get()
        if _answers_within(answers, probe_timeout_s):
            missed = 0
            continue
        missed += 1
        if missed >= misses:
            task.kill(block=False)  # its RPC may linger in gRPC until its own deadline; nothing waits on it
            raise Unanswered(f"{what}: the database did not answer {missed} probes of {probe_timeout_s:g} s")


def _answers_within(answers: Callable[[float], bool], timeout_s: float) -> bool:
    """A probe with a hard cap: a client that queues the probe behind a stuck call still returns."""
    with gevent.Timeout(timeout_s + 0.5, False):
        try:
            return bool(answers(timeout_s))
        except Exception:  # noqa: BLE001 - any error from the probe means no answer
            return False
    return False
