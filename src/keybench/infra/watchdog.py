"""Every wait outside the load has a way out: the set-up, and the waits after the load. A
stalled database (a paused emulator, a dead one whose client retries forever) would otherwise
hang the set-up, the audit or the drop with no end:
the work runs in its own greenlet, and while it has not finished, a cheap request with a
short deadline asks whether the database still answers. Two unanswered probes in a row
abandon the work. A slow but answering database (a large table on a real instance) is never
cut off: only silence is. A wait that may be given up on a signal (the set-up: nothing has been
written yet) is also abandoned as soon as its `stop` says so."""

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


class Cancelled(Exception):
    """The work was abandoned because its `stop` asked for it (a signal during the set-up)."""


class Watchdog:
    """One stage's watch on its database, across the waits after its load (the users' stop,
    the audit, the drop): unanswered probes add up from one wait to the next, so a database
    that fell silent during the stop is given up on early in the audit, and once the watch
    has found it silent, every later wait gives up at once."""

    def __init__(self, answers: Callable[[float], bool], probe_every_s: float = PROBE_EVERY_S,
                 probe_timeout_s: float = PROBE_TIMEOUT_S, misses: int = MISSES):
        self.answers = answers
        self.probe_every_s, self.probe_timeout_s, self.misses = probe_every_s, probe_timeout_s, misses
        self.missed = 0
        self.silence: str | None = None  # why the database is taken to be silent, once it is

    def run(self, work: Callable[[], T], what: str, stop: Callable[[], bool] | None = None) -> T:
        """work()'s result (or its exception); Unanswered if the database is, or falls, silent
        first; Cancelled if `stop()` turns true first (it is asked at every probe)."""
        if self.silence:
            raise Unanswered(f"{what}: {self.silence}")
        task = gevent.spawn(_outcome, work)
        while True:
            task.join(timeout=self.probe_every_s)
            if task.ready():
                result, error = task.get()
                if error is not None:
                    raise error  # here, with its traceback: a greenlet that died of it would print it to stderr
                return result
            if stop is not None and stop():
                task.kill(block=False)
                raise Cancelled(f"{what}: cancelled")
            if _answers_within(self.answers, self.probe_timeout_s):
                self.missed = 0
                continue
            self.missed += 1
            if self.missed >= self.misses:
                task.kill(block=False)  # its RPC may linger in gRPC until its own deadline; nothing waits on it
                self.silence = f"the database did not answer {self.missed} probes of {self.probe_timeout_s:g} s"
                raise Unanswered(f"{what}: {self.silence}")


def _outcome(work: Callable[[], T]) -> tuple[T | None, Exception | None]:
    """work()'s result, or the exception it raised, as a value: gevent prints the traceback of a
    greenlet that ends with an exception, and the caller handles it (a refused fixture is one line)."""
    try:
        return work(), None
    except Exception as exc:
        return None, exc


def watched(work: Callable[[], T], answers: Callable[[float], bool], what: str) -> T:
    """work()'s result under a watch of its own (see Watchdog)."""
    return Watchdog(answers).run(work, what)


def _answers_within(answers: Callable[[float], bool], timeout_s: float) -> bool:
    """A probe with a hard cap: a client that queues the probe behind a stuck call still returns."""
    with gevent.Timeout(timeout_s + 0.5, False):
        try:
            return bool(answers(timeout_s))
        except Exception:
            return False
    return False
