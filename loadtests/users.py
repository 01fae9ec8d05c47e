"""The abstract Locust user of every scenario: it asks its stage for the next operation.

The stage (schema, key generator, read plans, collector) hangs off the Locust
Environment as `environment.keybench_stage`; `keybench run` sets it for each stage, and
the `locust -f` scenario files set it in their init listener.
"""

from locust import User, constant, task

STAGE_WAIT_S = 60.0


class KeybenchUser(User):
    abstract = True
    # Closed loop: each user issues its next operation at once. Open loop (a rate): the
    # user's pacer sleeps until the next operation is due instead.
    wait_time = constant(0)

    def on_start(self) -> None:
        ready = getattr(self.environment, "keybench_stage_ready", None)
        if ready is not None:  # a distributed worker: the master's stage message may still be on its way
            ready.wait(STAGE_WAIT_S)
        self.stage = self.environment.keybench_stage
        self.workload = self.stage.new_user()
        self.pacer = self.workload.pacer()

    @task
    def operate(self) -> None:
        self.stage.step(self.workload, self.pacer.wait() if self.pacer else None)


class StageUser(KeybenchUser):
    """The concrete user `keybench run` and its workers drive."""
