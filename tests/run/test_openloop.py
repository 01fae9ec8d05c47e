"""Open-loop load (`--rate`): latency from the intended start beside service time."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from keybench.drive.settings import WorkloadSettings
from keybench.infra import emulators
from keybench.measure.summary import read_summary
from keybench.run import RunOptions, run
from tests.conftest import REPO

INSERTS_ONLY = {"insert": 1}


def _insert_row(run_dir):
    return next(r for r in read_summary(run_dir / "summary.csv") if r["operation"] == "insert")


def test_closed_loop_leaves_the_intended_columns_empty(emulator_hosts, tmp_path):
    options = RunOptions(backends=("bigtable",), strategies=("salted",), users=2, duration_s=1.0,
                         results_dir=tmp_path, run_id="closed", report=False)
    assert run(options) == 0
    row = _insert_row(tmp_path / "closed")
    assert row["p50_ms"] != "" and (row["p50_intended_ms"], row["p99_intended_ms"]) == ("", "")
    [stage] = json.loads((tmp_path / "closed" / "run.json").read_text())["stages"]
    load = stage["load"]  # of two users, one writes and one reads, neither paced by a rate
    assert (load["writers"], load["readers"], load["insert_rate"], load["read_rate"]) == (1, 1, None, None), load
    assert load["inserts_per_s"] > 0 and load["reads_per_s"] > 0, load


def test_below_capacity_intended_and_service_latency_agree(emulator_hosts, tmp_path):
    # 20 inserts/s over 4 users: a user is due every 200 ms, a rate a starved machine still
    # keeps (at 100/s, one beside three other test workers and two busy loops fell behind, and
    # its intended latency grew to 160 ms, as an open loop's should past capacity).
    users, rate = 4, 20
    options = RunOptions(backends=("bigtable",), strategies=("salted",), users=users, duration_s=4.0, rate=rate,
                         settings=WorkloadSettings(mix=INSERTS_ONLY), results_dir=tmp_path, run_id="open",
                         report=False)
    assert run(options) == 0
    row = _insert_row(tmp_path / "open")
    assert 60 <= int(row["requests"]) <= 88, row["requests"]  # the rate, not as fast as possible
    [stage] = json.loads((tmp_path / "open" / "run.json").read_text())["stages"]
    load = stage["load"]  # an insert-only mix: every user writes, at the rate asked
    assert (load["writers"], load["readers"], load["insert_rate"], load["read_rate"]) == (4, 0, 20.0, None), load
    assert 15 <= load["inserts_per_s"] <= 22 and load["reads_per_s"] == 0, load
    service, intended = float(row["p50_ms"]), float(row["p50_intended_ms"])
    # Intended time adds the client's own scheduling delay, milliseconds on a loaded machine;
    # counted from the wrong origin (the user's previous operation, a whole interval of 200 ms
    # before, or the stage's start: seconds) it would be an interval more or worse.
    interval_ms = 1000 * users / rate
    assert service <= intended < service + interval_ms / 2, (service, intended)


@pytest.fixture
def pausable_bigtable(native_binaries, state_dir):
    emulator = emulators.start("bigtable", emulators.free_port(), "pytest", detach=False)
    try:
        yield emulator
    finally:
        os.kill(emulator.pid, signal.SIGCONT)
        emulator.stop()


def test_a_paused_emulator_shows_in_intended_latency_and_not_in_service_time(pausable_bigtable, tmp_path):
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": pausable_bigtable.address}
    proc = subprocess.Popen(
        [sys.executable, "-m", "keybench.cli", "run", "--backend", "bigtable", "--strategies", "salted",
         "--users", "2", "--rate", "60", "--duration", "8s", "--results-dir", str(tmp_path), "--run-id", "stall",
         "--no-report"], cwd=REPO, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        for line in proc.stderr:  # the load has begun once its line is printed (setup may take long on a busy machine)
            if line.startswith("  [1/1]") and " load: " in line:
                break
        else:
            pytest.fail(f"the run ended (exit {proc.wait()}) before its load began")
        time.sleep(2.0)
        os.kill(pausable_bigtable.pid, signal.SIGSTOP)
        # A stall of exactly 1 s delays the operation due at its start by 1 s, and those due
        # later by less; 1.5 s makes more than 1 % of them wait over a second. Only the two
        # operations in flight (one per user) see the stall in their service time.
        time.sleep(1.5)
        os.kill(pausable_bigtable.pid, signal.SIGCONT)
        rest = proc.communicate(timeout=120)[1]
    finally:
        os.kill(pausable_bigtable.pid, signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, rest[-2000:]
    rows = read_summary(tmp_path / "stall" / "summary.csv")
    inserts = next(r for r in rows if r["operation"] == "insert")
    assert float(inserts["p99_intended_ms"]) >= 1000, inserts
    assert float(inserts["p99_ms"]) < 500, inserts
    assert all(r["integrity"] == "ok" for r in rows)
