"""Locust's distributed mode for keybench: one master, N workers, one stage.

The master creates the stage's database or table and runs no users. When the test
starts it sends every connected worker a `keybench_stage` message: what to load (the
strategy and where its table is) and the worker's partition (index of count), so workers
write disjoint keys. Each worker builds its own Stage against that table, seconds on a
loaded machine: `keybench run` starts the load's clock only once every worker has built it
(its `keybench_joined`), so each loads as long; a plain `locust --master -t` cannot wait (Locust
starts its clock at the handout), and a worker that built its stage late is named in the log.

Workers ship their collector's whole state in every `report_to_master` (histograms
encoded), and the master keeps the latest one per worker in `worker_report`; at the end
it asks for one more report after the users have stopped, then merges them all. A
snapshot replaces the one before it, so a late or repeated report never counts an
operation twice.

A worker that dies (its process exits, or Locust stops hearing its heartbeat) is lost: the
stage goes on with the others, the final gather does not wait for it, and the audit leaves
its writes out (its ledger died with it) and says the stage is unverified for its share,
with the cause "worker N died". A master that dies takes its workers' load with it: a
worker that hears no heartbeat from it for MASTER_SILENCE_S stops its users, says so and
exits 1 (Locust's own worker waits 60 s, writing what nobody will audit, then exits 0).

`keybench run --workers N` starts the worker processes itself (`python -m
keybench.drive.worker`); across machines, `locust -f loadtests/<backend>_locustfile.py
--worker --master-host HOST` joins a `--master` started with the same locustfile.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
from collections.abc import Callable

import gevent

from keybench.drive import heap
from keybench.drive.partition import Partition
from keybench.drive.stage import Stage, StageDefinition
from keybench.drive.users import CurrentStage

STAGE_MESSAGE, FLUSH_MESSAGE, JOINED_MESSAGE = "keybench_stage", "keybench_flush", "keybench_joined"
# A worker's request for its stage message, sent once it listens for it: a plain Locust
# worker joins its master before it runs its init listeners, so a test that starts at once
# (--expect-workers) can send the stage while nobody listens, and Locust drops it.
STAGE_WANTED = "keybench_stage_wanted"
FINAL_REPORT_TIMEOUT_S = 30.0
# A master silent this long is gone: it heartbeats every second, so this is a stall of ten
# heartbeats, which even a loaded machine does not make.
MASTER_SILENCE_S = 10.0
# A worker is lost once Locust has marked it missing this long, the same stall of ten
# heartbeats: Locust marks it after three, which a machine loaded beyond its cores makes,
# and the worker heals on its next heartbeat.
WORKER_SILENCE_S = MASTER_SILENCE_S
# A worker that builds its stage this long after the load's clock started is named: a plain
# `locust --master -t` starts Locust's clock at the handout, before any worker has its clients.
LATE_JOIN_S = 1.0
log = logging.getLogger("keybench")


class MasterSide:
    """The master's half: hand out the stage, gather the workers' snapshots, merge them."""

    def __init__(self, environment, stage: Stage, spec: StageDefinition,
                 exited: Callable[[], dict[int, str]] | None = None):
        """`exited`, when this process started the workers: pid -> how it exited, for those
        that did; workers elsewhere are lost when Locust misses their heartbeats."""
        self.environment = environment
        self.stage = stage
        self.spec = spec
        self.exited = exited or dict
        self.latest: dict[str, dict] = {}  # client id -> its newest report
        self.index_of: dict[str, int] = {}  # client id -> its partition index
        self.pid_of: dict[int, int] = {}  # partition index -> the worker's pid, once it joined the stage
        self.lost: dict[int, str] = {}  # partition index -> why it is lost
        self.missing_since: dict[int, float] = {}  # partition index -> since when Locust has had it missing
        self.flushed_at = float("inf")
        self.handouts = 0  # one per test start: a worker builds each handout's stage once
        self.sent: dict[str, dict] = {}  # client id -> the stage message it was sent
        self.joined_at: dict[int, float] = {}  # partition index -> when it built the latest handout's stage
        self.load_from = 0.0  # when the load's clock started: the handout, or once every worker joined
        environment.events.test_start.add_listener(self._hand_out)
        environment.events.worker_report.add_listener(self._keep)
        environment.runner.register_message(JOINED_MESSAGE, self._joined)
        environment.runner.register_message(STAGE_WANTED, self._send_again)

    def _hand_out(self, environment, **_kw) -> None:
        runner = environment.runner
        workers = runner.clients.ready + runner.clients.running + runner.clients.spawning
        self.handouts += 1
        self.joined_at, self.load_from = {}, time.monotonic()
        for index, client in enumerate(sorted(workers, key=lambda c: c.id)):
            self.index_of[client.id] = index
            self.sent[client.id] = {"spec": dataclasses.asdict(self.spec), "partition": [index, len(workers)],
                                    "handout": self.handouts}
            runner.send_message(STAGE_MESSAGE, self.sent[client.id], client_id=client.id)

    def _send_again(self, environment, msg, **_kw) -> None:
        """A worker that listens now: its stage again, if the test has started (else test_start sends it)."""
        sent = self.sent.get(msg.node_id)
        if sent is not None:
            environment.runner.send_message(STAGE_MESSAGE, sent, client_id=msg.node_id)

    def _joined(self, environment, msg, **_kw) -> None:
        self.pid_of[msg.data["index"]] = msg.data["pid"]
        self.joined_at[msg.data["index"]] = time.monotonic()

    def wait_joined(self, count: int, timeout_s: float) -> list[int]:
        """After the test started: wait until each of `count` workers has built its stage (or
        has exited, or `timeout_s` has passed); the indexes of those that have not, in order.
        A worker builds its clients after the handout, seconds on a loaded machine: a load
        timed from the handout would give it that much less time than the others."""
        deadline = time.monotonic() + timeout_s
        while True:
            exited = self.exited()
            waiting = [i for i in range(count) if i not in self.joined_at]
            if not waiting or time.monotonic() >= deadline or any(p in exited for p in self.pid_of.values()):
                self.load_from = time.monotonic()
                return waiting
            gevent.sleep(0.05)

    def newly_lost(self) -> list[str]:
        """Workers lost since the last call, each as its cause: its process exited, or
        Locust has had it missing (no heartbeat) for WORKER_SILENCE_S."""
        found: dict[int, str] = {}
        exited = self.exited()
        for index, pid in self.pid_of.items():
            if pid in exited:
                found[index] = f"worker {index} died (pid {pid}, {exited[pid]})"
        now = time.monotonic()
        missing = {self.index_of[c.id]: c.id for c in self.environment.runner.clients.missing if c.id in self.index_of}
        self.missing_since = {i: self.missing_since.get(i, now) for i in missing}  # a healed worker starts over
        for silent, client_id in missing.items():
            if silent not in found and now - self.missing_since[silent] >= WORKER_SILENCE_S:
                found[silent] = f"worker {silent} died (no heartbeat from {client_id} for {WORKER_SILENCE_S:.0f} s)"
        fresh = {i: why for i, why in found.items() if i not in self.lost}
        self.lost.update(fresh)
        return [fresh[i] for i in sorted(fresh)]

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
        for index, at in sorted(self.joined_at.items()):
            if at - self.load_from > LATE_JOIN_S:
                log.warning(f"keybench: worker {index} built its stage {at - self.load_from:.1f} s after the load "
                            "started: it loaded that much less than the others")
        deadline = self.flushed_at + FINAL_REPORT_TIMEOUT_S
        while time.monotonic() < deadline and self._not_final():
            gevent.sleep(0.1)
            for cause in self.newly_lost():
                log.warning(f"keybench: {cause}: merging its last report; its writes are not audited")
        silent = self._not_final()
        if silent:
            # Its writes, if it made any, are in no report: the audit must not call them unexpected.
            for index in silent:
                self.lost.setdefault(index, f"worker {index} sent no final report in {FINAL_REPORT_TIMEOUT_S:.0f} s")
            log.warning(f"keybench: worker(s) {', '.join(map(str, silent))} sent no final report; "
                        "merging the latest ones")
        reports = list(self.latest.values())
        self.stage.collector.absorb_all([r["snapshot"] for r in reports])
        counts = dict.fromkeys(self._handed_out(), 0)  # a worker that never reported ran nothing we know of
        counts |= {r["index"]: sum(s[4]["requests"] for s in r["snapshot"]["stats"]) for r in reports}
        return dict(sorted(counts.items()))

    def _handed_out(self) -> list[int]:
        """The partition indexes the latest test start handed the stage to."""
        return sorted(self.index_of[c] for c, sent in self.sent.items() if sent["handout"] == self.handouts)

    def _not_final(self) -> list[int]:
        """The workers handed the stage, not lost, with no report since the flush with their
        users stopped: one that never reported at all is waited for too."""
        final = {r["index"] for r in self.latest.values() if r["final"] and r["received"] >= self.flushed_at}
        return [i for i in self._handed_out() if i not in self.lost and i not in final]


def attach_worker(environment, slot: CurrentStage) -> None:
    """The worker's half, once its runner exists: build the stage on request into the users'
    slot, and report its collector's state to the master."""
    state: dict = {}

    def on_stage(environment, msg, **_kw) -> None:
        if msg.data.get("handout") == state.get("handout"):
            return  # sent again on this worker's request, and already built
        index, count = msg.data["partition"]
        old = slot.clear()
        if old is not None:
            old.teardown(drop=False)
        stage = StageDefinition(**msg.data["spec"]).build(Partition(index, count), environment.events)
        state.update(stage=stage, index=index, handout=msg.data.get("handout"))
        slot.put(stage)
        heap.freeze()  # what exists now outlives the load (drive.heap); a worker exits after its stage
        environment.runner.send_message(JOINED_MESSAGE, {"index": index, "pid": os.getpid()})

    def on_flush(environment, **_kw) -> None:
        # A plain `locust --master` that hits its run time stops its own users but not the
        # workers' before the test_stop event: stop them here, so the report is final.
        if environment.runner.user_count:
            environment.runner.stop()
        stage: Stage | None = state.get("stage")
        if stage is not None:
            stage.collector.settle()  # a backstop before the final report: each user's on_stop settles too
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
        }

    def on_quit(**_kw) -> None:
        state.pop("stage", None)
        stage = slot.clear()
        if stage is not None:
            stage.teardown(drop=False)  # the master owns the table

    def watch_master() -> None:
        runner = environment.runner
        while True:
            gevent.sleep(1)
            last = runner.last_heartbeat_timestamp  # Locust's: when the master last heartbeat
            if last is not None and time.time() - last > MASTER_SILENCE_S:
                break
        print(f"keybench: worker: no heartbeat from the master for {MASTER_SILENCE_S:.0f} s; it is gone, so this "
              "worker stops its users (their writes can no longer be audited) and exits 1", file=sys.stderr,
              flush=True)
        environment.process_exit_code = 1
        runner.quit()

    environment.runner.greenlet.spawn(watch_master)
    environment.runner.register_message(STAGE_MESSAGE, on_stage)
    environment.runner.register_message(FLUSH_MESSAGE, on_flush, concurrent=True)
    environment.runner.send_message(STAGE_WANTED)  # a stage sent before this listened was dropped
    environment.events.report_to_master.add_listener(on_report)
    environment.events.quitting.add_listener(on_quit)
