"""When a user's operations happen: the process's strictly increasing clock, the open-loop
pacer of a user held to a rate, and the rests of a closed-loop reader held to a share of its time."""

from __future__ import annotations

import time
from collections.abc import Iterable

from gevent import monkey


class Clock:
    """Microseconds since the epoch, strictly increasing within the process, so two writes
    never share a time; and one entity's writes never share a millisecond, the granularity
    of Bigtable cell versions (a design that rewrites one row keeps each reading)."""

    def __init__(self) -> None:
        self._last = 0
        self._last_ms: dict[int, int] = {}
        # The OS's lock, not gevent's: every insert takes it, and nothing inside it can yield
        # to another greenlet, so gevent's (a Python-level lock, about a microsecond more) buys nothing.
        self._lock = monkey.get_original("_thread", "allocate_lock")()

    def now_us(self, entity: int | None = None) -> int:
        with self._lock:
            t = max(time.time_ns() // 1000, self._last + 1)
            if entity is not None:
                floor_ms = self._last_ms.get(entity, -1) + 1
                if t // 1000 < floor_ms:
                    t = floor_ms * 1000
                self._last_ms[entity] = t // 1000
            self._last = t
            return t


CLOCK = Clock()


class Pacer:
    """Open loop: a user's operations fall due every `interval_s`, whether or not the one
    before has returned. `wait()` sleeps until the next one is due and returns when that was,
    so the collector can measure from the schedule rather than from the late start."""

    def __init__(self, rate_per_s: float, phase: float):
        self.interval_s = 1.0 / rate_per_s
        self.due = time.perf_counter() + phase * self.interval_s  # users start out of step

    def wait(self) -> float:
        due = self.due
        self.due += self.interval_s
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)  # gevent-patched: other users run meanwhile
        return due


class ReadShare:
    """Closed loop with rests, for readers: after a read that took d seconds the reader rests
    d * (1 - share) / share, so its reads fill `share` of its time. A read that costs ten times
    more is sent ten times less often: each reader loads the database by about `share`,
    whatever a design's reads cost (a point read takes ~5 ms, a full scan 100-900 ms), where a
    fixed rate either starves cheap designs of reads or lets expensive ones crowd out the writes.

    A reader rests only once it has made each of its `reads` once. On a loaded machine a full
    scan can take 5 s and earn a 20 s rest: a short stage (a smoke run's 3 s, which waits at
    most 30 s more for an operation not yet run) would end before the reader's last reads
    had their turn, and its results would have no row for them."""

    def __init__(self, share: float, reads: Iterable[str]):
        self.rest_per_busy_s = (1.0 - share) / share
        self.rest_s = 0.0  # before the next read
        self.unmade = set(reads)

    def after(self, operation: str | None, seconds: float) -> None:
        """The reader made `operation` (None: none, it waited for the first row) in `seconds`."""
        if operation is not None:
            self.unmade.discard(operation)
        self.rest_s = 0.0 if self.unmade else seconds * self.rest_per_busy_s
