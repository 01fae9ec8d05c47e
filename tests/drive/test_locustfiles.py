"""The scenarios run under plain Locust, without the keybench wrapper."""

import csv
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO


def locust(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "locust", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ),
    )


@pytest.mark.parametrize("backend, strategy", [("spanner", "hash_shard"), ("bigtable", "salted")])
def test_headless_locust_run_reports_per_strategy_and_audits(emulator_hosts, tmp_path, backend, strategy):
    result = locust("-f", f"loadtests/{backend}_locustfile.py", "--strategy", strategy,
                    "--headless", "-u", "3", "-r", "3", "-t", "3s", "--csv", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "integrity: ok" in result.stdout
    # Locust's CSV writer outlived its files and failed at the exit (a CRITICAL traceback)
    assert "Traceback" not in result.stderr and "CRITICAL" not in result.stderr, result.stderr[-2000:]
    stats = (tmp_path / "out_stats.csv").read_text()
    assert f"{backend}:{strategy},insert" in stats
    read_op = "time_window" if backend == "spanner" else "prefix_scan"
    assert f"{backend}:{strategy},{read_op}" in stats


def test_missing_strategy_is_a_one_line_error(emulator_hosts):
    result = locust("-f", "loadtests/spanner_locustfile.py", "--headless", "-t", "1s", timeout=60)
    assert result.returncode == 2
    assert "--strategy is required; valid: timestamp_first" in result.stderr


def test_rate_paces_the_writers_of_plain_locust_and_a_bad_rate_is_one_line(emulator_hosts, tmp_path):
    """--rate 20 over 3 s schedules about 60 inserts: an open loop never runs ahead of its
    schedule (the bound allows the users' start and stop), where a closed loop runs hundreds."""
    result = locust("-f", "loadtests/bigtable_locustfile.py", "--strategy", "salted", "--rate", "20",
                    "--headless", "-u", "2", "-r", "2", "-t", "3s", "--csv", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr[-2000:]
    with (tmp_path / "out_stats.csv").open() as f:
        inserts = next(int(r["Request Count"]) for r in csv.DictReader(f) if r["Type"] == "bigtable:salted"
                       and r["Name"] == "insert")
    assert 0 < inserts <= 20 * 6, inserts
    for bad, message in ((("--rate", "0"), "--rate must be positive, got 0"),
                         (("--rate", "10", "--read-rate", "-1"), "--read-rate")):
        refused = locust("-f", "loadtests/bigtable_locustfile.py", "--strategy", "salted", *bad,
                         "--headless", "-u", "2", "-t", "1s", timeout=60)
        assert refused.returncode == 2, refused.stderr[-1000:]
        assert refused.stderr.strip().splitlines()[-1].startswith(f"keybench: error: {message}"), refused.stderr


def test_plain_locust_finds_emulators_started_by_keybench_emulators_up(native_binaries, no_emulator_env, tmp_path):
    from tests.conftest import keybench

    assert keybench("emulators", "up", timeout=120).returncode == 0
    try:
        result = locust("-f", "loadtests/spanner_locustfile.py", "--strategy", "swapped_order",
                        "--headless", "-u", "2", "-r", "2", "-t", "2s")
        assert result.returncode == 0, result.stderr[-2000:]
        assert "integrity: ok" in result.stdout
    finally:
        assert keybench("emulators", "down", timeout=60).returncode == 0


def test_plain_locust_master_and_two_workers_audit_every_write_the_workers_made(emulator_hosts, tmp_path):
    """As across machines: `--master` on one host, `--worker --master-host` on the others."""
    from keybench.infra.emulators import free_port

    port = str(free_port())
    logs = [tmp_path / f"worker{n}.log" for n in range(2)]
    workers = [subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", "loadtests/bigtable_locustfile.py", "--worker",
         "--master-host", "127.0.0.1", "--master-port", port], cwd=REPO, env=dict(os.environ),
        stdout=subprocess.DEVNULL, stderr=log.open("w")) for log in logs]
    try:
        master = locust("-f", "loadtests/bigtable_locustfile.py", "--master", "--master-bind-host", "127.0.0.1",
                        "--master-bind-port", port, "--expect-workers", "2", "--strategy", "salted", "--headless",
                        # Locust's clock starts when the test does, and a worker builds its stage
                        # after that: on a loaded machine 3 s once passed with no user started.
                        "-u", "4", "-r", "4", "-t", "8s", "--csv", str(tmp_path / "out"))
    finally:
        for w in workers:
            try:
                w.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()
    assert master.returncode == 0, _distributed_story(master, logs)
    assert "Traceback" not in master.stderr, master.stderr[-2000:]
    line = next(x for x in master.stdout.splitlines() if x.startswith("integrity:"))
    acknowledged = int(line.split("(")[1].split()[0])
    with open(tmp_path / "out_stats.csv") as f:
        inserts = next(r for r in csv.DictReader(f) if r["Name"] == "insert")
    assert line.startswith("integrity: ok") and acknowledged == int(inserts["Request Count"]) > 0, line
    assert [w.returncode for w in workers] == [0, 0]


def _distributed_story(master: subprocess.CompletedProcess, worker_logs) -> str:
    """What a failed distributed run said: the master's lines without Locust's stats tables,
    then each worker's last lines."""
    def said(text: str) -> str:
        return "\n".join(x for x in text.splitlines() if x.strip() and not x.lstrip().startswith(("|", "-", "Type",
                                                                                                 "Aggregated")))
    parts = [f"master (exit {master.returncode}):\n{said(master.stdout)[-1500:]}\n{said(master.stderr)[-2500:]}"]
    parts += [f"{log.name}:\n{said(log.read_text())[-1500:]}" for log in worker_logs]
    return "\n\n".join(parts)


@pytest.mark.parametrize("args, web_host", [([], "127.0.0.1"), (["--web-host", "0.0.0.0"], "0.0.0.0")])
def test_the_web_ui_listens_on_loopback_unless_the_user_asks(args, web_host):
    """The web UI starts load against a database and has no authentication."""
    code = ("import runpy, sys; runpy.run_path('loadtests/spanner_locustfile.py'); "
            "from locust.argument_parser import get_parser; print(get_parser().parse_args(sys.argv[1:]).web_host)")
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == web_host


def test_a_worker_whose_master_dies_stops_its_users_says_so_and_exits_1(emulator_hosts, tmp_path):
    """Locust's own worker writes on for 60 s after its master is gone, unaudited, and exits 0."""
    import re
    import signal
    import time

    from keybench.infra.emulators import free_port

    port = str(free_port())
    master_log = tmp_path / "master.log"
    with open(master_log, "w") as log:
        master = subprocess.Popen(
            [sys.executable, "-m", "locust", "-f", "loadtests/bigtable_locustfile.py", "--master",
             "--master-bind-host", "127.0.0.1", "--master-bind-port", port, "--expect-workers", "1",
             "--strategy", "salted", "--headless", "-u", "2", "-r", "2", "-t", "300s"],
            cwd=REPO, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=log)
    worker = subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", "loadtests/bigtable_locustfile.py", "--worker",
         "--master-host", "127.0.0.1", "--master-port", port], cwd=REPO, env=dict(os.environ),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # The worker writes once the master's stats count an insert (a log line such as "All
        # users spawned" may never come on a loaded machine: it waits on every worker's report).
        deadline = time.monotonic() + 180
        while not re.search(r"salted\s+insert\s+[1-9]", master_log.read_text()):
            if time.monotonic() > deadline or master.poll() is not None:
                worker.kill()
                pytest.fail(f"no insert counted by the master:\n--- master:\n{master_log.read_text()[:3000]}\n"
                            f"--- worker:\n{worker.communicate(timeout=30)[1][-3000:]}")
            time.sleep(0.5)
        os.kill(master.pid, signal.SIGKILL)
        master.wait()
        _, said = worker.communicate(timeout=120)
    finally:
        for process in (master, worker):
            if process.poll() is None:
                process.kill()
                process.wait()
    assert worker.returncode == 1, said[-2000:]
    assert "no heartbeat from the master for 10 s" in said, said[-2000:]


LATE_WORKER = '''
import time

from locust import events
from locust.runners import WorkerRunner


@events.init.add_listener
def _late(environment, **_kw):  # runs before keybench's own init listener: it listens late
    if isinstance(environment.runner, WorkerRunner):
        time.sleep(3)  # gevent's: the worker's message loop runs meanwhile, and drops what nobody listens for


import runpy

BigtableUser = runpy.run_path("loadtests/bigtable_locustfile.py")["BigtableUser"]
'''


def test_a_worker_that_listens_after_the_test_started_still_gets_its_stage(emulator_hosts, tmp_path):
    """Locust's worker joins its master before its init listeners run: a master that starts at
    once (--expect-workers) sends the stage while nobody listens, and Locust drops it."""
    from keybench.infra.emulators import free_port

    locustfile = tmp_path / "late_locustfile.py"
    locustfile.write_text(LATE_WORKER)
    port = str(free_port())
    worker = subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", str(locustfile), "--worker", "--master-host", "127.0.0.1",
         "--master-port", port], cwd=REPO, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    try:
        # 20 s: well short of the 60 s a user waits for its stage before it gives up.
        master = locust("-f", str(locustfile), "--master", "--master-bind-host", "127.0.0.1", "--master-bind-port",
                        port, "--expect-workers", "1", "--strategy", "salted", "--headless", "-u", "2", "-r", "2",
                        "-t", "20s", "--csv", str(tmp_path / "out"), timeout=300)
        _, said = worker.communicate(timeout=120)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert master.returncode == 0, master.stderr[-3000:] + said[-3000:]
    assert "no keybench stage arrived" not in said, said[-3000:]
    with open(tmp_path / "out_stats.csv") as f:
        inserts = next(r for r in csv.DictReader(f) if r["Name"] == "insert")
    assert int(inserts["Request Count"]) > 0, said[-3000:]
