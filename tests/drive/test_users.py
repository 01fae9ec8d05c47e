"""Locust users: a user without rests runs many operations per Locust task (each task costs
Locust a trip through the hub), a reader that rests runs one, and a stop still comes within
a task's slice."""

import time

import gevent
from locust.env import Environment

from keybench.drive.settings import INSERT, READER, WRITER, WorkloadSettings
from keybench.drive.users import CurrentStage, user_class
from keybench.drive.workload import UserWorkload

CALL_S = 0.001  # what the stand-in's operation waits, as a call to the database would
STOP_TIMEOUT_S = 10.0
# A stop must come well before the stop timeout, which a user that ran past its slice would
# wait out; the margin over TASK_SLICE_S is for a loaded machine (a stop took 1.04 s beside
# three other test workers and two busy loops on 2 cores).
STOPS_WITHIN_S = STOP_TIMEOUT_S / 2


class Operations:
    """Stands in for a stage: each step waits like a call and is logged with its time.
    (The database plays no part in how Locust schedules the users.)"""

    def __init__(self, settings: WorkloadSettings, role: str):
        self.settings, self.role = settings, role
        self.steps: list[float] = []
        self.settled = 0
        self.collector = self  # on_stop settles the collector

    def new_user(self) -> UserWorkload:
        return UserWorkload(self.settings, "spanner", 1, len(self.steps), role=self.role)

    def step(self, user: UserWorkload, intended: float | None = None) -> str:
        gevent.sleep(CALL_S)
        self.steps.append(time.monotonic())
        return INSERT if self.role == WRITER else "point_read"

    def settle(self) -> None:
        self.settled += 1


def run_users(stage: Operations, users: int, seconds: float) -> tuple[int, float, float]:
    """Run `users` Locust users on `stage` for `seconds`, then stop them as a stage's end does.
    Returns the tasks Locust ran, the seconds the stop took, and how long after the stop
    began the last operation ended."""
    slot = CurrentStage()
    slot.put(stage)
    tasks = []
    base = user_class(slot)
    counted = type("CountedUser", (base,), {
        "wait_time": lambda self: (tasks.append(1), base.wait_time(self))[1],  # Locust asks after each task
    })
    env = Environment(user_classes=[counted], stop_timeout=STOP_TIMEOUT_S)
    runner = env.create_local_runner()
    runner.start(users, spawn_rate=users * 100)
    gevent.sleep(seconds)
    began = time.monotonic()
    runner.stop()
    stopped = time.monotonic()
    runner.quit()
    return len(tasks), stopped - began, stage.steps[-1] - began


def test_a_user_without_rests_runs_many_operations_per_task_and_still_stops_within_a_slice():
    stage = Operations(WorkloadSettings(users=2, readers=0), WRITER)
    tasks, stop_s, last_op_after_stop_s = run_users(stage, users=2, seconds=0.5)
    per_task = len(stage.steps) / tasks
    # Up to TASK_SLICE_S / CALL_S operations per task (fewer on a loaded machine); Locust's own
    # rhythm is exactly one.
    assert per_task >= 2, (len(stage.steps), tasks)
    assert stop_s < STOPS_WITHIN_S and last_op_after_stop_s < STOPS_WITHIN_S, (stop_s, last_op_after_stop_s)
    assert stage.settled == 2  # each user's on_stop settled the collector


def test_a_reader_that_rests_runs_one_operation_per_task():
    stage = Operations(WorkloadSettings(users=2, readers=2, read_share=0.5), READER)
    tasks, _, _ = run_users(stage, users=2, seconds=0.3)
    assert len(stage.steps) > 10
    # the rest (wait_time) comes between every two reads: at most the last task's read is unrested
    assert tasks >= len(stage.steps) - 2, (len(stage.steps), tasks)
