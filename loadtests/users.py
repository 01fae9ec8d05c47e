"""The abstract Locust user of every scenario: it asks its stage for the next operation.

The stage (schema, key generator, read plans, collector) hangs off the Locust
Environment as `environment.keybench_stage`; `keybench run` sets it for each stage, and
the `locust -f` scenario files set it in their init listener.
"""

from locust import User, constant, task


class KeybenchUser(User):
    abstract = True
    wait_time = constant(0)  # closed loop: each user issues its next operation at once

    def on_start(self) -> None:
        self.stage = self.environment.keybench_stage
        self.workload = self.stage.new_user()

    @task
    def operate(self) -> None:
        self.stage.step(self.workload)
