"""The Locust users of every scenario: each asks its stage for the next operation.

A user finds its stage in a `CurrentStage`, which whoever builds the stage fills: `keybench
run` for each stage, the `locust -f` scenario files once their options are parsed, and a
distributed worker when the master's stage message arrives.
"""

from __future__ import annotations

import time

import gevent.event
from locust import User, task

from keybench.drive.settings import INSERT

STAGE_WAIT_S = 60.0
# After every task Locust sleeps, even for no time: gevent.sleep(0), a trip through the hub
# that cost 5-8% of a Bigtable point read's client CPU (benchmarks/README.md). Each operation
# waits inside its call anyway, which lets the other users run, so a user without rests runs
# operations for up to this long per task. A stop (Locust's stop_timeout) waits at most that
# long more, plus the operation in flight.
TASK_SLICE_S = 0.02


class CurrentStage:
    """The stage the users of one Locust environment drive."""

    def __init__(self) -> None:
        self._stage = None
        self._ready = gevent.event.Event()

    def put(self, stage) -> None:
        self._stage = stage
        self._ready.set()

    def take(self, timeout: float = STAGE_WAIT_S):
        """The stage; a distributed worker's may still be on its way from the master."""
        if not self._ready.wait(timeout):
            raise RuntimeError(f"no keybench stage arrived within {timeout:.0f} s")
        return self._stage

    def peek(self):
        """The stage now in the slot, or None; never waits."""
        return self._stage

    def clear(self):
        """Empty the slot and hand back what it held (None if nothing)."""
        stage, self._stage = self._stage, None
        self._ready.clear()
        return stage


class KeybenchUser(User):
    abstract = True
    slot: CurrentStage  # set by `user_class`
    stage = None  # the slot's stage, once on_start has it

    def on_start(self) -> None:
        self.stage = self.slot.take()
        self.workload = self.stage.new_user()
        self.pacer = self.workload.pacer()
        self.read_share = self.workload.read_share()

    def on_stop(self) -> None:
        # Locust's own statistics must hold every operation this user finished. A user stopped
        # while it still waited for its stage (on_start) has none.
        if self.stage is not None:
            self.stage.collector.settle()

    def wait_time(self) -> float:
        """Closed loop: the next operation at once, or after a reader's rest (--read-share).
        Resting here rather than inside the task lets a stage's end cut a rest short. Open
        loop (a rate): the pacer sleeps inside the task until the next operation is due."""
        return self.read_share.rest_s if self.read_share else 0.0

    @task
    def operate(self) -> None:
        if self.read_share:
            self._operate_then_rest()
            return
        stage, workload, pacer = self.stage, self.workload, self.pacer
        assert stage is not None  # on_start took it
        slice_ends = time.perf_counter() + TASK_SLICE_S
        while True:
            stage.step(workload, pacer.wait() if pacer else None)
            if time.perf_counter() >= slice_ends:
                return

    def _operate_then_rest(self) -> None:
        """One operation; the rest after it (`wait_time`) holds a reader to its share."""
        intended = self.pacer.wait() if self.pacer else None
        started = time.perf_counter()
        assert self.stage is not None  # on_start took it
        operation = self.stage.step(self.workload, intended)
        # Only reads earn a rest: not the wait for the first row, nor the one insert of a
        # reader without writers beside it (seconds, where the database generates keys).
        read = operation is not None and operation != INSERT
        self.read_share.after(operation, time.perf_counter() - started if read else 0.0)


STAGE_USER = "StageUser"  # the class name `keybench run` and its workers share (Locust matches users by name)


def user_class(slot: CurrentStage, name: str = STAGE_USER, host: str | None = None) -> type[KeybenchUser]:
    """A concrete user class bound to one slot. `host` only fills the web UI's Host field:
    the stage, not Locust, decides where the operations go."""
    return type(name, (KeybenchUser,), {"slot": slot, "host": host, "__module__": __name__})
