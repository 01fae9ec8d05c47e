"""Locust's distributed mode for keybench: one master, N workers, one stage.

The master creates the stage's database or table and runs no users. When the test
starts it sends every connected worker a `keybench_stage` message: what to load (the
strategy and where its table is) and the worker's partition (index of count), so workers
write disjoint keys. Each worker builds its own Stage against that table.

Workers ship their collector's whole state in every `report_to_master` (histograms
encoded), and the master keeps the latest one per worker in `worker_report`; at the end
it asks for one more report after the users have stopped, then merges them all. A
snapshot replaces the one before it, so a late or repeated report never counts an
operation twice.

`keybench run --workers N` starts the worker processes itself (`python -m
loadtests.worker`); across machines, `locust -f loadtests/<backend>_locustfile.py
--worker --master-host HOST` joins a `--master` started with the same locustfile.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass

import gevent
import gevent.event

from loadtests import strategies
from loadtests.collector import Collector
from loadtests.stage import Stage, make_backend
from loadtests.workload import Partition, WorkloadSettings

STAGE_MESSAGE, FLUSH_MESSAGE = "keybench_stage", "keybench_flush"
FINAL_REPORT_TIMEOUT_S = 30.0
log = logging.getLogger("keybench")


@dataclass(frozen=True)
class StageSpec:
    """What a worker needs to load the master's stage; plain types, sent as a message."""

    backend: str
    strategy: str
    dialect: str
    buckets: int | None
    location: str
    project: str
    instance: str
    settings: dict  # WorkloadSettings: payload size and deadline included
    seed: int
    tag: str

    @classmethod
    def of(cls, stage: Stage, buckets: int | None) -> StageSpec:
        s, b = stage.strategy, stage.backend
        return cls(s.backend, s.name, s.dialect, buckets, b.location, b.project, b.instance_id, dataclasses.asdict(stage.settings), stage.seed,
                   stage.tag)

    def build(self, partition: Partition, events) -> Stage:
        strategy = strategies.catalogue(self.backend, self.dialect or None, buckets=self.buckets)[self.strategy]
        settings = WorkloadSettings(**self.settings)
        backend = make_backend(strategy, self.location, self.project, self.instance, settings.payload_bytes,
                               settings.timeout_s)
        return Stage(strategy, backend, settings, self.seed, events=events, tag=self.tag, partition=partition)


class MasterSide:
    """The master's half: hand out the stage, gather the workers' snapshots, merge them."""

    def __init__(self, environment, stage: Stage, buckets: int | None):
        self.environment = environment
        self.stage = stage
        self.spec = StageSpec.of(stage, buckets)
        self.latest: dict[str, dict] = {}  # client id -> its newest report
        self.flushed_at = float("inf")
        environment.events.test_start.add_listener(self._hand_out)
        environment.events.worker_report.add_listener(self._keep)

    def _hand_out(self, environment, **_kw) -> None:
        runner = environment.runner
        workers = runner.clients.ready + runner.clients.running + runner.clients.spawning
        for index, client in enumerate(sorted(workers, key=lambda c: c.id)):
            runner.send_message(STAGE_MESSAGE, {"spec": dataclasses.asdict(self.spec),
                                                "partition": [index, len(workers)]}, client_id=client.id)

    def _keep(self, client_id: str, data: dict, **_kw) -> None:
        report = data.get("keybench")
        if report is not None:
            report["received"] = time.monotonic()
            self.latest[client_id] = report

    def gather(self) -> dict[int, int]:
        """After the users stopped: ask every worker for a final report, wait for it, and
        merge all into the master's stage, replacing what an earlier gather merged (a web-UI
        test may stop and gather more than once). Returns each worker's operation count."""
        self.flushed_at = time.monotonic()
        self.environment.runner.send_message(FLUSH_MESSAGE)
        deadline = self.flushed_at + FINAL_REPORT_TIMEOUT_S
        while time.monotonic() < deadline and not self._all_final():
            gevent.sleep(0.1)
        if not self._all_final():
            log.warning("keybench: not every worker sent its final report; merging the latest ones")
        old = self.stage.collector
        merged = Collector(old.events)
        for series, stats in old.stats.items():  # keep the stage's operation order
            merged.register(series, stats.access)
        self.stage.collector = merged
        self.stage.backend.absorbed_aborts = 0
        counts = {}
        for report in self.latest.values():
            merged.absorb(report["snapshot"])
            self.stage.backend.absorbed_aborts += report["aborted_commits"] or 0
            counts[report["index"]] = sum(s[4]["requests"] for s in report["snapshot"]["stats"])
        return dict(sorted(counts.items()))

    def _all_final(self) -> bool:
        return bool(self.latest) and all(r["final"] and r["received"] >= self.flushed_at for r in self.latest.values())


def attach_worker(environment) -> None:
    """The worker's half, once its runner exists: build the stage on request, and report
    its collector's state to the master."""
    state: dict = {}
    environment.keybench_stage_ready = gevent.event.Event()

    def on_stage(environment, msg, **_kw) -> None:
        index, count = msg.data["partition"]
        old = state.get("stage")
        if old is not None:
            old.teardown(drop=False)
        stage = StageSpec(**msg.data["spec"]).build(Partition(index, count), environment.events)
        state.update(stage=stage, index=index)
        environment.keybench_stage = stage
        environment.keybench_stage_ready.set()

    def on_flush(environment, **_kw) -> None:
        # A plain `locust --master` that hits its run time stops its own users but not the
        # workers' before the test_stop event: stop them here, so the report is final.
        if environment.runner.user_count:
            environment.runner.stop()
        environment.runner._send_stats()  # the report_to_master path, now rather than in up to 3 s

    def on_report(client_id: str, data: dict, **_kw) -> None:
        stage: Stage | None = state.get("stage")
        if stage is None:
            return
        final = environment.runner.user_count == 0
        data["keybench"] = {
            "index": state["index"],
            "final": final,
            "snapshot": stage.collector.snapshot(with_keys=final),  # the key stream only once it is whole
            "aborted_commits": getattr(stage.backend, "aborted_commits", 0),
        }

    def on_quit(**_kw) -> None:
        stage = state.pop("stage", None)
        if stage is not None:
            stage.teardown(drop=False)  # the master owns the table

    environment.runner.register_message(STAGE_MESSAGE, on_stage)
    environment.runner.register_message(FLUSH_MESSAGE, on_flush, concurrent=True)
    environment.events.report_to_master.add_listener(on_report)
    environment.events.quitting.add_listener(on_quit)
