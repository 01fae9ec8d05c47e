"""Faults during a run, against the real emulators: a killed emulator, a paused one, Ctrl-C.

Each test runs `keybench run` as a user would (a subprocess) on emulators it starts itself,
and finds their PIDs in its state directory, so that it can kill or pause exactly those.
"""

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from keybench.backends.base import DEFAULT_TIMEOUT_S
from keybench.infra import emulators
from keybench.measure.summary import read_summary
from tests.conftest import REPO

# A stalled database must not hold a stage past its end until the operations in flight time
# out by themselves (--op-timeout, 30 s by default): the users' stop timeout and the audit's
# probes end it in seconds. The bound leaves room for a loaded machine (a run beside three other
# test workers and two busy loops took 11 s), and is still well short of the 30 s a stage that
# waited would take.
ENDS_WITHIN_S = DEFAULT_TIMEOUT_S * 2 / 3


class Run:
    """A `keybench run` in the background, whose stderr a thread reads line by line, so that a
    wait for a line keeps its deadline even when the run prints nothing more."""

    def __init__(self, *args: str):
        self.started = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "keybench.cli", "run", *args], cwd=REPO,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        self.lines: list[tuple[float, str]] = []
        self._unread: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self._stdout: list[str] = []
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=lambda: self._stdout.extend(self.proc.stdout), daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self._unread.put((time.monotonic(), line))
        self._unread.put(None)

    def wait_for(self, text: str, timeout: float = 120) -> float:
        """When the first line holding `text` was printed (a line already seen is not seen again)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self._unread.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                self._unread.put(None)  # the end stays the end for the next wait
                break
            self.lines.append(item)
            if text in item[1]:
                return item[0]
        raise AssertionError(f"never saw {text!r}: {''.join(line for _, line in self.lines)[-2000:]}")

    def load_started(self, label: str, timeout: float = 120) -> float:
        """When the stage `label` (e.g. `[1/2] bigtable:salted`) started its load."""
        return self.wait_for(f"{label}  load: ", timeout)

    def finish(self, timeout: float = 240) -> tuple[int, str]:
        try:
            self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        for reader in self._readers:
            reader.join(timeout=10)
        while True:
            try:
                item = self._unread.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self.lines.append(item)
        return self.proc.returncode, "".join(self._stdout)

    @property
    def stderr(self) -> str:
        return "".join(line for _, line in self.lines)


def emulator_pid(backend: str) -> int:
    """The PID of the emulator the running keybench started (from its state records)."""
    for _ in range(100):
        for record in emulators.state_dir().glob(f"{backend}-*.json"):
            data = json.loads(record.read_text())
            if data.get("started_by") != "keybench emulators up":
                return data["pid"]
        time.sleep(0.1)
    raise AssertionError(f"no {backend} emulator record in {emulators.state_dir()}")


def pause(pid: int, seconds: float) -> None:
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


def resume(pid: int) -> None:
    """SIGCONT to a paused emulator, unless keybench has stopped it already."""
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


def gone(pid: int) -> bool:
    try:
        return not emulators._cmdline(pid)
    except Exception:
        return True


@pytest.fixture
def own_emulators(native_binaries, no_emulator_env, tmp_path, monkeypatch):
    """keybench starts (and must stop) its own emulators, recorded in a private state dir."""
    monkeypatch.setenv("KEYBENCH_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "results"


def test_an_emulator_killed_mid_stage_ends_that_stage_and_the_run_goes_on(own_emulators):
    run = Run("--strategies", "uuid4_string,salted", "--dialects", "googlesql", "--users", "4", "--duration", "10s",
              "--results-dir", str(own_emulators), "--run-id", "kill", "--no-report")
    run.load_started("[1/2] spanner:uuid4_string")
    time.sleep(4)
    os.kill(emulator_pid("spanner"), signal.SIGKILL)
    killed = time.monotonic()
    assert run.wait_for("[1/2] spanner:uuid4_string  done") - killed <= 10
    code, _ = run.finish()
    assert code == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("keybench: run failed: spanner:uuid4_string ended early: the emulator at "), last
    rows = read_summary(own_emulators / "kill" / "summary.csv")
    spanner = [r for r in rows if r["backend"] == "spanner"]
    assert sum(int(r["failures"]) + int(r["cut_off"]) for r in spanner) > 0  # what was in flight is counted
    assert {r["integrity"] for r in spanner} == {"unverified"}
    bigtable = [r for r in rows if r["backend"] == "bigtable"]
    insert = next(r for r in bigtable if r["operation"] == "insert")
    assert int(insert["requests"]) > 0 and insert["integrity"] == "ok"
    assert int(insert["acknowledged"]) == int(insert["stored"]) and insert["lost"] == "0"
    assert json.loads((own_emulators / "kill" / "run.json").read_text())["status"] == "complete"


def test_a_paused_emulator_stalls_the_stage_which_then_goes_on_without_double_counting(own_emulators):
    run = Run("--backend", "bigtable", "--strategies", "salted", "--users", "4", "--duration", "10s",
              "--results-dir", str(own_emulators), "--run-id", "pause", "--no-report")
    run.load_started("[1/1] bigtable:salted")
    time.sleep(3)
    pause(emulator_pid("bigtable"), 3)
    code, _ = run.finish()
    assert code == 0, run.stderr[-2000:]
    rows = read_summary(own_emulators / "pause" / "summary.csv")
    seconds = read_summary(own_emulators / "pause" / "timeseries.csv")
    for r in rows:
        assert int(r["requests"]) == sum(int(s["ops"]) for s in seconds if s["operation"] == r["operation"])
    insert = next(r for r in rows if r["operation"] == "insert")
    assert insert["integrity"] == "ok"
    assert int(insert["acknowledged"]) == int(insert["stored"]) == int(insert["requests"])
    # the stall: operations caught in it took the pause's length (at thousands of inserts a
    # second, the few caught in it are under 1 % of their second, so it shows in max, not p99)
    assert max(float(r["max_ms"]) for r in rows if r["max_ms"]) >= 2500
    per_second = {}
    for s in seconds:
        per_second[int(s["elapsed_s"])] = per_second.get(int(s["elapsed_s"]), 0) + int(s["ops"])
    busiest = max(per_second.values())
    assert min(per_second.get(t, 0) for t in range(1, 9)) < busiest / 4  # a gap while paused


def test_an_operation_cut_off_by_its_deadline_is_unknown_and_settled_by_reading_back(own_emulators):
    # --rate keeps the table small: the audit reads it back under the same 1 s deadline, which
    # three closed-loop writers' ~30,000 rows outgrow.
    # --readers 0: writers only. A loaded machine let one reader make a single point read, in
    # the pause, so the read "failed every time" and the run (rightly) exited 1.
    run = Run("--backend", "bigtable", "--strategies", "salted", "--users", "4", "--readers", "0", "--duration", "9s",
              "--rate", "300", "--op-timeout", "1s", "--results-dir", str(own_emulators), "--run-id", "unknown",
              "--no-report")
    run.load_started("[1/1] bigtable:salted")
    time.sleep(3)
    pause(emulator_pid("bigtable"), 2.5)
    code, _ = run.finish()
    assert code == 0, run.stderr[-2000:]
    insert = next(r for r in read_summary(own_emulators / "unknown" / "summary.csv") if r["operation"] == "insert")
    assert int(insert["failures"]) > 0 and int(insert["unknown_outcome"]) > 0, insert
    assert 0 <= int(insert["unknown_stored"]) <= int(insert["unknown_outcome"])
    # acknowledged writes are all there; stored = acknowledged + the unknown ones that landed
    assert insert["integrity"] == "ok" and insert["lost"] == "0" and insert["unexpected"] == "0", insert
    assert int(insert["stored"]) == int(insert["acknowledged"]) + int(insert["unknown_stored"])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1],
                         ids=lambda s: s.name)
def test_a_signal_stops_the_users_audits_what_they_wrote_and_exits_128_plus_its_number(own_emulators, signum):
    """Ctrl-C, CI cancellation and docker stop (SIGTERM), a closed terminal (SIGHUP), a signal
    with no meaning of its own (SIGUSR1): one interrupt."""
    report = () if signum == signal.SIGINT else ("--no-report",)  # the report's part is the same for every signal
    run = Run("--backend", "bigtable", "--strategies", "salted,timestamp_first", "--users", "4", "--duration", "30s",
              "--results-dir", str(own_emulators), "--run-id", "ctrlc", *report)
    run.load_started("[1/2] bigtable:salted")
    time.sleep(3)
    pid = emulator_pid("bigtable")
    run.proc.send_signal(signum)
    sent = time.monotonic()
    code, _ = run.finish()
    assert code == 128 + signum, run.stderr[-2000:]
    assert time.monotonic() - sent < 30
    assert f"interrupted by {signum.name}; the results cover 1 of 2 stages" in run.stderr
    run_dir = own_emulators / "ctrlc"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    rows = read_summary(run_dir / "summary.csv")
    assert {r["strategy"] for r in rows} == {"salted"}
    insert = next(r for r in rows if r["operation"] == "insert")
    assert int(insert["requests"]) > 0 and insert["integrity"] == "ok"
    assert int(insert["acknowledged"]) == int(insert["stored"]) and insert["lost"] == "0"
    assert (run_dir / "report.html").is_file() == (not report)
    if not report:
        assert "Incomplete run (interrupted)" in (run_dir / "report.html").read_text()
    assert gone(pid), "the emulator keybench started is still running"
    assert not list(own_emulators.glob(".*.partial"))


# Each phase after the load meets each signal, and both backends meet each phase.
PHASE_CASES = [
    ("end", "bigtable", signal.SIGINT), ("end", "spanner", signal.SIGTERM), ("end", "bigtable", signal.SIGHUP),
    ("restart", "spanner", signal.SIGINT), ("restart", "bigtable", signal.SIGTERM),
    ("restart", "spanner", signal.SIGHUP),
]
STRATEGY = {"bigtable": "salted", "spanner": "uuid4_string"}


@pytest.mark.parametrize("phase, backend, signum", PHASE_CASES, ids=lambda v: getattr(v, "name", v))
def test_a_signal_in_any_phase_after_the_load_ends_the_run_in_seconds_of_the_stage_end(
        own_emulators, phase, backend, signum):
    """`end`: the emulator is paused just before the stage's end, so keybench waits on a silent
    database (the users' stop, the audit), and the signal lands there. `restart`: the emulator is
    killed mid-stage, and the signal lands as that stage ends and keybench starts a new emulator
    for the next. Either way: exit 128 + the signal, status interrupted, 1 of 2 stages, an
    unverified stage, and nothing left running, in seconds of the stage's end (ENDS_WITHIN_S)."""
    strategy = STRATEGY[backend]
    run = Run("--backend", backend, "--strategies", f"{strategy},timestamp_first", "--dialects", "googlesql",
              "--users", "2", "--duration", "3s", "--results-dir", str(own_emulators), "--run-id", "phase",
              "--no-report")
    started = run.load_started(f"[1/2] {backend}:{strategy}")
    pid = emulator_pid(backend)
    stage_end = started + 3
    if phase == "end":
        time.sleep(max(0.0, stage_end - 0.3 - time.monotonic()))
        os.kill(pid, signal.SIGSTOP)
        time.sleep(max(0.0, stage_end + 1 - time.monotonic()))
        run.proc.send_signal(signum)
    else:
        time.sleep(1.5)
        os.kill(pid, signal.SIGKILL)
        stage_end = run.wait_for(f"[1/2] {backend}:{strategy}  done")
        run.proc.send_signal(signum)
    code, _ = run.finish(timeout=60)
    ended = time.monotonic()
    assert code == 128 + signum, run.stderr[-2000:]
    assert ended - stage_end < ENDS_WITHIN_S, run.stderr[-2000:]
    assert f"interrupted by {signum.name}; the results cover 1 of 2 stages" in run.stderr, run.stderr[-2000:]
    assert json.loads((own_emulators / "phase" / "run.json").read_text())["status"] == "interrupted"
    rows = read_summary(own_emulators / "phase" / "summary.csv")
    assert {r["strategy"] for r in rows} == {strategy} and {r["integrity"] for r in rows} == {"unverified"}
    assert gone(pid) and emulators.recorded() == []


@pytest.mark.parametrize("backend, strategy", [("spanner", "uuid4_string"), ("bigtable", "salted")])
def test_an_emulator_that_stalls_during_set_up_fails_that_stage_and_the_next_runs_on_a_fresh_one(
        own_emulators, backend, strategy):
    """SIGSTOP as the first stage begins, before its table exists: the set-up's calls would be
    retried for an hour. The watch gives the set-up up in seconds, the stage "could not start",
    and the next stage runs on a restarted emulator, on a new port."""
    run = Run("--backend", backend, "--strategies", f"{strategy},timestamp_first", "--dialects", "googlesql",
              "--users", "2", "--duration", "2s", "--results-dir", str(own_emulators), "--run-id", "setup",
              "--no-report")
    begun = run.wait_for(f"[1/2] {backend}:{strategy}:")
    pid = emulator_pid(backend)
    os.kill(pid, signal.SIGSTOP)
    try:
        failed = run.wait_for(f"{backend}:{strategy} could not start: the set-up: the database did not answer")
    finally:
        resume(pid)
    assert failed - begun < 30, run.stderr[-2000:]
    run.wait_for(f"[2/2] {backend}:timestamp_first  done")
    code, _ = run.finish()
    assert code == 1, run.stderr[-2000:]
    rows = read_summary(own_emulators / "setup" / "summary.csv")
    assert {r["strategy"] for r in rows} == {"timestamp_first"}
    assert {r["integrity"] for r in rows} == {"ok"}, run.stderr[-2000:]
    assert gone(pid) and emulators.recorded() == []


def test_a_signal_during_a_stalled_set_up_ends_the_run_at_once(own_emulators):
    """The first SIGTERM is honoured during the set-up too, not held until the set-up ends."""
    run = Run("--backend", "spanner", "--strategies", "uuid4_string,timestamp_first", "--dialects", "googlesql",
              "--users", "2", "--duration", "2s", "--results-dir", str(own_emulators), "--run-id", "setupsig",
              "--no-report")
    run.wait_for("[1/2] spanner:uuid4_string:")
    pid = emulator_pid("spanner")
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(0.5)
        signalled = time.monotonic()
        run.proc.send_signal(signal.SIGTERM)
        code, _ = run.finish(timeout=60)
    finally:
        resume(pid)
    assert code == 128 + signal.SIGTERM, run.stderr[-2000:]
    assert time.monotonic() - signalled < 15, run.stderr[-2000:]
    assert "interrupted by SIGTERM; the results cover 0 of 2 stages" in run.stderr, run.stderr[-2000:]
    assert "could not start" not in run.stderr, run.stderr[-2000:]
    assert gone(pid) and emulators.recorded() == []


def test_a_run_killed_outright_leaves_a_marked_partial_directory_of_whole_files(own_emulators):
    run = Run("--backend", "bigtable", "--strategies", "salted,timestamp_first", "--users", "2", "--duration", "6s",
              "--results-dir", str(own_emulators), "--run-id", "crash", "--no-report")
    run.load_started("[2/2] bigtable:timestamp_first")
    time.sleep(2)
    pid = emulator_pid("bigtable")
    run.proc.kill()
    run.finish()
    assert not (own_emulators / "crash").exists()
    partial = own_emulators / ".crash.partial"
    assert json.loads((partial / "run.json").read_text())["status"] == "running"
    rows = read_summary(partial / "summary.csv")  # whole rows of the finished stage
    assert {r["strategy"] for r in rows} == {"salted"} and all(r["integrity"] == "ok" for r in rows)
    text = (partial / "summary.csv").read_text()
    assert text.endswith("\n") and all(line.count(",") == text.splitlines()[0].count(",")
                                       for line in text.splitlines() if '"' not in line)
    for _ in range(50):  # the emulator dies with its parent (PR_SET_PDEATHSIG)
        if gone(pid):
            break
        time.sleep(0.1)
    assert gone(pid)


@pytest.mark.parametrize("attempt", range(2))
def test_two_runs_started_together_never_sabotage_each_other(own_emulators, attempt):
    """The same run id into one results directory: one run is refused before it starts
    anything; the other runs on emulators of its own and completes clean. Then two runs with
    their own ids at once: each owns its emulators, and both complete clean."""
    common = ("--backend", "bigtable", "--strategies", "salted,timestamp_first", "--users", "2", "--duration", "1s",
              "--results-dir", str(own_emulators), "--no-report")
    same = [Run(*common, "--run-id", "same") for _ in range(2)]
    outcomes = sorted(run.finish()[0] for run in same)
    assert outcomes == [0, 2], [run.stderr[-1500:] for run in same]
    refused = next(run for run in same if run.proc.returncode == 2)
    assert len(refused.stderr.strip().splitlines()) == 1 and "another run with this id" in refused.stderr
    assert "emulator" not in refused.stderr  # it started nothing
    rows = read_summary(own_emulators / "same" / "summary.csv")
    assert {r["strategy"] for r in rows} == {"salted", "timestamp_first"} and {r["integrity"] for r in rows} == {"ok"}
    both = [Run(*common, "--run-id", f"own-{i}") for i in range(2)]
    assert [run.finish()[0] for run in both] == [0, 0], [run.stderr[-1500:] for run in both]
    pids = [{s["emulator_pid"] for s in json.loads((own_emulators / f"own-{i}" / "run.json").read_text())["stages"]}
            for i in range(2)]
    assert not pids[0] & pids[1], "two runs shared an emulator one of them owned"
    assert not list(own_emulators.glob(".*.partial")) and emulators.recorded() == []


@pytest.mark.parametrize("backend, strategy", [("bigtable", "salted"), ("spanner", "uuid4_string")])
def test_a_database_that_stalls_at_the_end_of_the_load_is_unverified_not_waited_for(own_emulators, backend, strategy):
    """SIGSTOP just before the stage ends, with the default --op-timeout (30 s): the operations
    in flight are cut off by the stop timeout, the audit is abandoned after unanswered probes,
    and the stage ends unverified in seconds of its end (ENDS_WITHIN_S), while the emulator is still paused."""
    run = Run("--backend", backend, "--strategies", strategy, "--dialects", "googlesql", "--users", "2",
              "--duration", "4s", "--results-dir", str(own_emulators), "--run-id", "stall", "--no-report")
    started = run.load_started(f"[1/1] {backend}:{strategy}")
    pid = emulator_pid(backend)
    time.sleep(max(0.0, started + 3.5 - time.monotonic()))
    os.kill(pid, signal.SIGSTOP)
    try:
        ended = run.wait_for(f"[1/1] {backend}:{strategy}  done", timeout=60)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert ended - (started + 4) < ENDS_WITHIN_S, run.stderr[-2000:]
    code, _ = run.finish()
    assert code == 1
    assert "integrity UNVERIFIED" in run.stderr
    assert "did not answer" in run.stderr or "DeadlineExceeded" in run.stderr, run.stderr[-1500:]
    rows = read_summary(own_emulators / "stall" / "summary.csv")
    assert {r["integrity"] for r in rows} == {"unverified"}


def children(pid: int, marker: str) -> list[int]:
    """The PIDs of `pid`'s child processes whose command line holds `marker`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and marker in emulators._cmdline(int(stat.parent.name)):
            found.append(int(stat.parent.name))
    return sorted(found)


def test_a_worker_that_dies_is_named_and_its_share_unverified_without_stretching_the_stage(own_emulators):
    """kill -9 of one of `--workers 2`: the stage goes on with the other, ends on time, and is
    unverified for the dead worker's share with the cause "worker N died"; the survivor's
    writes are audited in full (no MISMATCH from the rows the dead worker's ledger took along)."""
    run = Run("--backend", "bigtable", "--strategies", "salted", "--users", "4", "--workers", "2", "--duration", "8s",
              "--results-dir", str(own_emulators), "--run-id", "lost", "--no-report")
    started = run.load_started("[1/1] bigtable:salted")
    time.sleep(3)
    workers = children(run.proc.pid, "keybench.drive.worker")
    assert len(workers) == 2, workers
    os.kill(workers[0], signal.SIGKILL)
    ended = run.wait_for("[1/1] bigtable:salted  done", timeout=60)
    assert ended - started < 8 + 10, run.stderr[-2000:]
    code, _ = run.finish()
    assert code == 1, run.stderr[-2000:]
    # Found by its exit (pid, signal), or, if Locust missed its heartbeats first, by those.
    assert re.search(r"worker \d died \((pid \d+, killed by SIGKILL|no heartbeat from )",
                     run.stderr), run.stderr[-2000:]
    assert "MISMATCH" not in run.stderr, run.stderr[-2000:]
    stage = json.loads((own_emulators / "lost" / "run.json").read_text())["stages"][0]
    integrity = stage["integrity"]
    assert not integrity["verified"] and re.match(r"worker \d died \(", integrity["cause"]), integrity
    assert integrity["set_aside"] >= 0 and integrity["lost"] == integrity["unexpected"] == 0, integrity
    assert integrity["stored"] > 0  # the surviving worker's rows, read back
    rows = read_summary(own_emulators / "lost" / "summary.csv")
    assert {r["integrity"] for r in rows} == {"unverified"}


@pytest.fixture
def tiny_disk(tmp_path):
    """A 48 KiB filesystem of its own (tmpfs, as root): room for a stage's files, not a run's."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_is_one_line_exit_1_and_a_directory_marked_failed(own_emulators, tiny_disk):
    run = Run("--backend", "bigtable", "--strategies", "salted,timestamp_first,reverse_timestamp", "--users", "2",
              "--duration", "1s", "--results-dir", str(tiny_disk), "--run-id", "full")
    code, _ = run.finish()
    assert code == 1, run.stderr[-2000:]
    last = run.stderr.strip().splitlines()[-1]
    assert "Traceback" not in run.stderr and "No space left on device" in last, run.stderr[-2000:]
    assert [p.name for p in tiny_disk.iterdir() if not p.name.endswith(".tmp")] == [".full.failed"]
    assert not list(tiny_disk.rglob("*.tmp")), "a temporary file was left behind"
    kept = tiny_disk / ".full.failed"
    assert (kept / "summary.csv").is_file(), "the disk filled before the first stage's results"
    for csv_file in kept.rglob("*.csv"):  # whatever was written is whole
        read_summary(csv_file)
    assert emulators.recorded() == []


def test_a_suspended_keybench_says_so_and_leaves_the_gap_out_of_the_load(own_emulators):
    """SIGSTOP of keybench itself for 8 s (Ctrl-Z, a paused VM): the database was not slow.
    The load runs its full duration of running time, its seconds (and so its rates) leave the
    gap out, and the log says what happened; nothing is counted as failed or lost."""
    run = Run("--backend", "bigtable", "--strategies", "salted", "--users", "2", "--duration", "6s",
              "--results-dir", str(own_emulators), "--run-id", "suspend", "--no-report")
    started = run.load_started("[1/1] bigtable:salted")
    time.sleep(max(0.0, started + 2 - time.monotonic()))
    run.proc.send_signal(signal.SIGSTOP)
    time.sleep(8)
    run.proc.send_signal(signal.SIGCONT)
    code, _ = run.finish()
    assert code == 0, run.stderr[-2000:]
    assert re.search(r"keybench did not run for (\d+) s \(suspended", run.stderr), run.stderr[-2000:]
    [stage] = json.loads((own_emulators / "suspend" / "run.json").read_text())["stages"]
    # 6 s of load and the users' stop (up to 5 s of operations in flight), but not the 8 s gap
    # (without it: 14 s or more)
    assert 6 <= stage["seconds"] < 6 + 7, stage["seconds"]
    rows = read_summary(own_emulators / "suspend" / "summary.csv")
    insert = next(r for r in rows if r["operation"] == "insert")
    assert insert["integrity"] == "ok" and insert["lost"] == "0" and insert["failures"] == "0", insert


def test_a_worker_that_stalls_past_locusts_three_missed_heartbeats_is_not_lost(own_emulators):
    """SIGSTOP of one of `--workers 2` for 5 s, as a machine loaded beyond its cores can stall
    it: Locust marks it missing after 3 s, it heals when it runs again, and the stage keeps it:
    every write of both workers is audited and the run exits 0."""
    run = Run("--backend", "bigtable", "--strategies", "salted", "--users", "4", "--workers", "2", "--duration", "12s",
              "--results-dir", str(own_emulators), "--run-id", "stalled", "--no-report")
    run.load_started("[1/1] bigtable:salted")
    time.sleep(2)
    workers = children(run.proc.pid, "keybench.drive.worker")
    assert len(workers) == 2, workers
    os.kill(workers[0], signal.SIGSTOP)
    try:
        time.sleep(5)
    finally:
        os.kill(workers[0], signal.SIGCONT)
    run.wait_for("[1/1] bigtable:salted  done", timeout=90)
    code, _ = run.finish()
    assert code == 0 and "died" not in run.stderr, run.stderr[-2000:]
    stage = json.loads((own_emulators / "stalled" / "run.json").read_text())["stages"][0]
    assert stage["integrity"]["verified"] and stage["integrity"]["lost"] == 0, stage["integrity"]
    assert sorted(stage["operations_per_worker"]) == ["0", "1"], stage["operations_per_worker"]
