"""Locust users against one stage for the stage's duration: in this process, or spread over
worker processes under a master. The stage ends early if its emulator goes away, and on
Ctrl-C; either way the users stop and the collector keeps what they did."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import time
from dataclasses import dataclass, field

import gevent
from locust.env import Environment
from locust.runners import Runner
from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

from keybench.children import die_with_parent, how_it_ended
from keybench.drive import heap
from keybench.drive.distributed import MasterSide
from keybench.drive.stage import Stage, StageDefinition
from keybench.drive.users import CurrentStage, user_class
from keybench.errors import KeybenchError
from keybench.infra import emulators
from keybench.infra.interrupt import INTERRUPT
from keybench.infra.progress import PROGRESS_EVERY_S, progress
from keybench.infra.watchdog import Unanswered, Watchdog

STALL_S = 5.0  # a 1 s sleep that took this much longer: keybench was suspended, not waiting on the database
COVER_WAIT_S = 30.0  # how long a smoke stage may outlast its duration for an operation that has not yet run
# Users finish the operation in flight before a stage ends, for at most this long: then it is
# cut off (counted in cut_off; an insert's outcome is unknown and the audit settles it). Short
# enough that a stalled database, whose operations wait out --op-timeout, still ends the stage
# (with the audit's own watchdog) within 10 s of its end; long enough for a Spanner abort's
# retry backoff, which rarely passes a few seconds.
STOP_TIMEOUT_S = 5.0
FORCED_STOP_S = 3.0  # ... unless the stage was cut short: then operations still in flight are cut off


@dataclass(frozen=True)
class StageLoad:
    """How hard and how long one stage is driven."""

    users: int
    spawn_rate: float  # users started per second; 0: all at once
    duration_s: float
    workers: int = 0  # Locust worker processes; 0 runs the users in this process
    # Operations that must each have run once before the load may end (a smoke run's mix): the
    # load goes on past its duration for up to COVER_WAIT_S until they have.
    cover: tuple[str, ...] = ()

    def uncovered(self, ran: set[str]) -> list[str]:
        """The operations of `cover` not in `ran`."""
        return [op for op in self.cover if op not in ran]


@dataclass
class Driven:
    seconds: float  # from the users' start until the last of them stopped
    per_worker: dict[int, int]
    locust_csvs: dict[str, str]  # "stats" / "failures" -> Locust's own CSV text
    ended_early: str | None = None  # why the stage stopped before its time: its emulator went away
    interrupted: bool = False  # Ctrl-C
    stopping_s: float = 0.0  # of `seconds`, the time the users took to stop (operations in flight)
    lost_workers: dict[int, str] = field(default_factory=dict)  # worker index -> why it is lost


class Lifeline:
    """Notices an emulator that has gone away: its port refuses connections. A paused
    emulator still accepts them (the kernel does), so a stall never ends a stage."""

    REFUSALS = 2  # in a row, a second apart

    def __init__(self, ep: emulators.Endpoint):
        self.address = ep.address if ep.target == "emulator" else None
        self.refusals = 0

    def gone(self) -> str | None:
        if self.address is None:
            return None
        error = emulators.connect_error(self.address, timeout=1.0)
        if error is None:
            self.refusals = 0
        elif isinstance(error, ConnectionRefusedError):
            self.refusals += 1
        else:
            return None  # slow or unroutable: not proof that it is gone
        if self.refusals >= self.REFUSALS:
            return f"the emulator at {self.address} stopped accepting connections"
        return None


class StageEnvironment:
    """One stage's Locust environment: the stage is built into it, so the collector reports
    to Locust's events from the start."""

    def __init__(self, spec: StageDefinition):
        self.spec = spec
        self.slot = CurrentStage()
        self.env = Environment(user_classes=[user_class(self.slot)], stop_timeout=STOP_TIMEOUT_S)
        self.stage: Stage = spec.build(events=self.env.events)
        self.slot.put(self.stage)
        self.watch = Watchdog(self.stage.backend.answers)  # the waits after the load: stop, audit, drop
        self._cover_said = False

    def drive(self, plan: StageLoad, label: str, ep: emulators.Endpoint) -> Driven:
        env, stage = self.env, self.stage
        stage.collector.settle()  # what was recorded before the load (a caller's own fill) is not Locust's
        workers = None
        runner: Runner
        if plan.workers:
            port = emulators.free_port()
            runner = env.create_master_runner("127.0.0.1", port)
            workers = WorkerProcesses(plan.workers, port)
            master = MasterSide(env, stage, self.spec, workers.exited)
            workers.wait_connected(runner, label)
        else:
            runner = env.create_local_runner()
        lifeline, ended_early, interrupted = Lifeline(ep), None, False
        try:
            heap.freeze()  # the libraries, the stage, the prefill: none of it is walked during the load
            runner.start(plan.users, spawn_rate=plan.spawn_rate or plan.users)
            if workers:
                # The load's clock starts once every worker has its stage: each loads as long.
                late = master.wait_joined(plan.workers, WorkerProcesses.CONNECT_TIMEOUT_S)
                if late:
                    progress(f"  {label}  worker(s) {', '.join(map(str, late))} had not built the stage after "
                             f"{WorkerProcesses.CONNECT_TIMEOUT_S:.0f} s: the load starts without waiting longer")
            started = time.monotonic()
            progress(f"  {label}  load: {plan.users} user(s) for {plan.duration_s:g}s"
                     + (f" on {plan.workers} worker(s)" if plan.workers else ""))
            next_report = started + PROGRESS_EVERY_S
            due = started  # when the loop meant to look at the clock again
            try:
                while True:
                    now = time.monotonic()
                    # Measured from one look to the next, the checks below included: a suspension
                    # may come during them too (the lifeline's connect yields to the users). They
                    # take a second at most (the connect's timeout), well under STALL_S.
                    stalled = now - due
                    if stalled > STALL_S and not workers:  # worker processes went on writing meanwhile
                        # keybench itself did not run (Ctrl-Z, SIGSTOP, a paused VM): the database was
                        # not slow, so the gap is no part of the load's time, which runs that much longer.
                        started += stalled
                        next_report += stalled
                        progress(f"  {label}  keybench did not run for {stalled:.0f} s (suspended: Ctrl-Z, SIGSTOP "
                                 "or a paused VM): the load runs that much longer, and its rates leave the gap out")
                    if now >= next_report:
                        ops, failures = runner.stats.total.num_requests, runner.stats.total.num_failures
                        progress(f"  {label}  {now - started:4.0f}s/{plan.duration_s:.0f}s  ops {ops:,}  "
                                 f"failures {failures}  ({ops / (now - started):,.0f} ops/s)")
                        next_report += PROGRESS_EVERY_S
                    if now >= started + plan.duration_s and not self._waits_for_cover(
                            plan, runner, now - started, label):
                        break
                    left = started + plan.duration_s - now  # past the duration (a smoke stage's cover wait): <= 0
                    nap = max(0.05, min(1.0, next_report - now, left if left > 0 else 1.0))
                    due = now + nap
                    gevent.sleep(nap)
                    if INTERRUPT.requested:
                        raise KeyboardInterrupt
                    ended_early = lifeline.gone()
                    if workers:
                        for cause in master.newly_lost():
                            progress(f"  {label}  {cause}: the stage goes on without it; its writes are not audited")
                        if len(master.lost) == plan.workers:
                            ended_early = "every worker died"
                    if ended_early:
                        progress(f"  {label}  {ended_early}: ending the stage")
                        break
            except KeyboardInterrupt:
                interrupted = True
                progress(f"  {label}  interrupted: stopping the users, then auditing what they wrote")
            stop_began = time.monotonic()
            if ended_early or interrupted:
                env.stop_timeout = FORCED_STOP_S  # operations stuck on a dead emulator would wait for minutes
            if workers:
                # Stops the workers' users and takes their final reports. Locust's own stop would
                # also make each worker sleep for its stop timeout before it heeds the quit.
                per_worker = master.gather()
            else:
                stop_cut_off = self._stop(runner)
                ended_early = ended_early or stop_cut_off  # an emulator gone is the cause of a silent stop
                per_worker = {}
            elapsed = time.monotonic() - started
            stage.collector.settle()  # a backstop: each user's on_stop settles, even when it is killed
            runner.quit()
        finally:
            heap.thaw()
            if workers:
                workers.close()
        return Driven(elapsed, per_worker, locust_csvs(env), ended_early, interrupted,
                      stopping_s=elapsed - (stop_began - started), lost_workers=dict(master.lost) if workers else {})


    def _waits_for_cover(self, plan: StageLoad, runner, elapsed: float, label: str) -> bool:
        """Past the stage's duration: whether the load goes on, for an operation of `plan.cover`
        that has not run yet (COVER_WAIT_S at most)."""
        ran = {entry.name for entry in runner.stats.entries.values() if entry.num_requests}
        missing = plan.uncovered(ran)
        if not missing or elapsed >= plan.duration_s + COVER_WAIT_S:
            return False
        if not self._cover_said:
            progress(f"  {label}  {', '.join(missing)} not run yet: the load goes on until each has run once "
                     f"(up to {COVER_WAIT_S:g} s more)")
            self._cover_said = True
        return True

    def _stop(self, runner) -> str | None:
        """Stop the users, letting each finish its operation in flight (STOP_TIMEOUT_S at most)
        while the database answers; one that has fallen silent (a paused emulator) ends the
        wait at once: the users are cut off, and the reason is returned (None: a clean stop)."""
        try:
            self.watch.run(runner.stop, "the end of the load")
        except Unanswered as exc:
            runner.user_greenlets.kill(block=True, timeout=FORCED_STOP_S)
            return str(exc)
        return None


def locust_csvs(env: Environment) -> dict[str, str]:
    """Locust's own stats and failures CSVs of the stage, as text."""
    stats = StatsCSV(env, PERCENTILES_TO_REPORT)
    out = {}
    for kind, write in (("stats", stats.requests_csv), ("failures", stats.failures_csv)):
        buffer = io.StringIO()
        write(csv.writer(buffer, lineterminator="\n"))
        out[kind] = buffer.getvalue()
    return out


class WorkerProcesses:
    """`python -m keybench.drive.worker` processes of one stage, started and stopped by PID."""

    CONNECT_TIMEOUT_S = 60.0

    def __init__(self, count: int, port: int):
        cmd = [sys.executable, "-m", "keybench.drive.worker", "--master-port", str(port)]
        # Own session (Ctrl-C is for keybench, which stops them in order), but gone with keybench.
        self.procs = [subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=die_with_parent) for _ in range(count)]

    def wait_connected(self, runner, label: str) -> None:
        deadline = time.monotonic() + self.CONNECT_TIMEOUT_S
        while runner.worker_count < len(self.procs):
            dead = self.exited()
            if dead:
                pid, how = next(iter(dead.items()))
                raise KeybenchError(f"{label}: worker pid {pid} exited ({how}) before joining the master")
            if time.monotonic() > deadline:
                raise KeybenchError(f"{label}: only {runner.worker_count} of {len(self.procs)} workers joined the "
                                    f"master within {self.CONNECT_TIMEOUT_S:.0f} s")
            gevent.sleep(0.2)

    def exited(self) -> dict[int, str]:
        """pid -> how it ended, for the workers that have exited."""
        return {p.pid: how_it_ended(p.returncode) for p in self.procs if p.poll() is not None}

    def close(self) -> None:
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
