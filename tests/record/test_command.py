"""`keybench record -- COMMAND` as a user runs it, on a small application written for the test
that writes through Google's Bigtable client into a real emulator."""

from __future__ import annotations

import csv
import ctypes
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO, keybench

# Two tables: one keyed by the time first, one by the device first. `ROWS` rows each, in
# batches; with `--reads`, a range read of each table after every batch.
APP = '''
import os, random, sys, time, uuid, warnings
warnings.simplefilter("ignore", RuntimeWarning)
from google.cloud import bigtable
from google.cloud.bigtable import column_family

rows, batch = int(os.environ["ROWS"]), int(os.environ.get("BATCH", "50"))
distinct = int(os.environ.get("DISTINCT", "0"))  # so many rows, rewritten over and over; 0: a row per write
client = bigtable.Client(project="p", admin=True)
tables, instance = {}, client.instance(uuid.uuid4().hex[:12])  # tables of its own on a shared emulator
for name in ("by_time", "by_device"):
    tables[name] = instance.table(name)
    tables[name].create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
rng = random.Random(1)
for first in range(0, rows, batch):
    pending = {name: [] for name in tables}
    for n in range(first, min(rows, first + batch)):
        ts, device = 1_790_000_000_000_000 + n * 1000, f"{rng.randrange(1000):04x}"
        if distinct:
            ts, device = 1_790_000_000_000_000 + n % distinct, f"{n % distinct:04x}"
        for name, key in (("by_time", f"{ts}#{device}"), ("by_device", f"{device}#{ts}")):
            row = tables[name].direct_row(key.encode())
            row.set_cell("cf", b"v", b"x")
            pending[name].append(row)
    for name, batch_rows in pending.items():
        assert all(s.code == 0 for s in tables[name].mutate_rows(batch_rows))
    if "--reads" in sys.argv:
        for table in tables.values():
            list(table.read_rows(start_key=b"0", end_key=b"2", limit=10))
    if os.environ.get("PAUSE_AFTER_FIRST_BATCH"):
        print("app: first batch written", flush=True)
        time.sleep(60)
print(f"app: wrote {rows} rows to each table", flush=True)
sys.exit(int(os.environ.get("EXIT", "0")))
'''


# The application: two Spanner tables, one keyed by the commit timestamp, one by a
# UUID v4, written with mutations; and the Bigtable tables of APP.
SPANNER_APP = '''
import os, sys, uuid
from google.auth.credentials import AnonymousCredentials
from google.cloud import spanner
from google.cloud.spanner_admin_instance_v1.types import Instance

client = spanner.Client(project="p", credentials=AnonymousCredentials())
instance = client.instance("record-app", configuration_name="projects/p/instanceConfigs/emulator-config", node_count=1)
try:
    instance.create().result(60)
except Exception as exc:  # another test's instance
    if "already exists" not in str(exc).lower():
        raise
database = instance.database("app" + uuid.uuid4().hex[:12], ddl_statements=[
    "CREATE TABLE Events (CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true), "
    "Seq INT64 NOT NULL) PRIMARY KEY (CreatedAt, Seq)",
    "CREATE TABLE Orders (OrderId STRING(36) NOT NULL, Amount INT64) PRIMARY KEY (OrderId)",
])
database.create().result(120)
rows = int(os.environ["ROWS"])
for first in range(0, rows, 100):
    with database.batch() as batch:
        batch.insert("Events", ("CreatedAt", "Seq"), [(spanner.COMMIT_TIMESTAMP, n) for n in range(first, first + 100)])
        batch.insert("Orders", ("OrderId", "Amount"), [(str(uuid.uuid4()), n) for n in range(first, first + 100)])
database.drop()
print(f"spanner app: wrote {rows} rows to each table", flush=True)
'''


# An instance per tenant, each with a table "events": one tenant's keyed by the time first,
# the other's by the device first. Two key spaces that only share a name.
TENANTS_APP = '''
import os, random, warnings
warnings.simplefilter("ignore", RuntimeWarning)
from google.cloud import bigtable
from google.cloud.bigtable import column_family

client = bigtable.Client(project="p", admin=True)
rng = random.Random(1)
for tenant, key_of in (("by-time", "{ts}#{device}"), ("by-device", "{device}#{ts}")):
    table = client.instance(os.environ["TAG"] + tenant).table("events")
    table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
    for first in range(0, 1500, 50):
        rows = []
        for n in range(first, first + 50):
            row = table.direct_row(key_of.format(ts=1_790_000_000_000_000 + n * 1000,
                                                 device=f"{rng.randrange(1000):04x}").encode())
            row.set_cell("cf", b"v", b"x")
            rows.append(row)
        assert all(s.code == 0 for s in table.mutate_rows(rows))
'''


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text(APP)
    return path


def _verdicts(run_dir: Path) -> dict[str, dict]:
    with (run_dir / "record.csv").open() as f:
        return {row["table"]: row for row in csv.DictReader(f)}


def _first_line(stream, timeout_s: float = 300) -> str:
    """The next line of a child's pipe, or "" when none comes in `timeout_s`: a test that
    waits for a child never hangs the suite."""
    got: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: got.put(stream.readline()), daemon=True).start()
    try:
        return got.get(timeout=timeout_s)
    except queue.Empty:
        return ""


@contextmanager
def _recording(*args: str, env: dict | None = None):
    """`keybench record ARGS` as a child with piped output, killed if it still runs at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "keybench.cli", "record", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _run_dir(results: Path) -> Path:
    (run_dir,) = [d for d in results.iterdir() if not d.name.startswith(".")]
    return run_dir


def test_spanner_and_bigtable_tables_keyed_by_time_hotspot_and_by_uuid_or_device_spread(
        spanner_emulator, bigtable_emulator, app, tmp_path):
    both = tmp_path / "both.py"
    both.write_text(SPANNER_APP + APP)
    results = tmp_path / "results"
    done = keybench("record", "--results-dir", str(results), "--fail-on-verdict", "hotspot",
                    "--", sys.executable, str(both), env={"ROWS": "1500"})
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = [line.split()[:2] for line in done.stdout.splitlines()[-4:]]
    assert verdicts == [["bigtable:by_device", "spread"], ["bigtable:by_time", "hotspot"],
                        ["spanner:Events", "hotspot"], ["spanner:Orders", "spread"]], done.stdout + done.stderr
    assert "--fail-on-verdict: bigtable:by_time (hotspot), spanner:Events (hotspot)" in done.stderr


def test_the_verdicts_of_the_keys_an_application_wrote(bigtable_emulator, app, tmp_path):
    results = tmp_path / "results"
    done = keybench("record", "--backend", "bigtable", "--results-dir", str(results), "--fail-on-verdict", "hotspot",
                    "--", sys.executable, str(app), "--reads", env={"ROWS": "1500"})
    assert done.returncode == 1, done.stderr  # by_time hotspots
    assert "app: wrote 1500 rows to each table" in done.stdout  # COMMAND's output comes through
    lines = done.stdout.splitlines()
    assert lines[-2].split()[:2] == ["bigtable:by_device", "spread"], done.stdout
    assert lines[-1].split()[:2] == ["bigtable:by_time", "hotspot"], done.stdout
    assert "--fail-on-verdict: bigtable:by_time (hotspot)" in done.stderr
    rows = _verdicts(_run_dir(results))
    assert {t: (r["verdict"], r["writes"]) for t, r in rows.items()} == {
        "by_device": ("spread", "1500"), "by_time": ("hotspot", "1500")}
    assert rows["by_time"]["reads"] == "30" and float(rows["by_time"]["rows_per_read"]) > 0
    assert len(list(_run_dir(results).glob("keystream/*.npz"))) == 2
    # the key streams are a run's: `keybench analyze` models them again (here at 3 nodes)
    analyzed = keybench("analyze", str(_run_dir(results)), "--nodes", "3")
    assert analyzed.returncode == 0, analyzed.stderr
    assert re.search(r"bigtable-by_time\b.*\bhotspot\b", analyzed.stdout), analyzed.stdout


def test_tables_of_one_name_in_two_instances_are_judged_apart_and_named_by_their_instance(bigtable_emulator,
                                                                                          tmp_path):
    app, tag = tmp_path / "tenants.py", "t" + uuid.uuid4().hex[:8]
    app.write_text(TENANTS_APP)
    results = tmp_path / "results"
    done = keybench("record", "--backend", "bigtable", "--results-dir", str(results), "--fail-on-verdict", "hotspot",
                    "--", sys.executable, str(app), env={"TAG": tag})
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = [line.split()[:2] for line in done.stdout.splitlines()[-2:]]
    assert verdicts == [[f"bigtable:{tag}by-device/events", "spread"], [f"bigtable:{tag}by-time/events", "hotspot"]], \
        done.stdout
    assert f"--fail-on-verdict: bigtable:{tag}by-time/events (hotspot)" in done.stderr
    with (_run_dir(results) / "record.csv").open() as f:
        rows = [(r["database"], r["table"], r["verdict"], r["writes"]) for r in csv.DictReader(f)]
    assert rows == [(f"projects/p/instances/{tag}by-device", "events", "spread", "1500"),
                    (f"projects/p/instances/{tag}by-time", "events", "hotspot", "1500")]


@pytest.mark.parametrize("distinct", ["0", "3"])  # (3: twenty writes, one a call, to three rows: no hot row yet)
def test_a_short_recording_is_inconclusive_and_says_how_many_writes_would_settle_it(bigtable_emulator, app, tmp_path,
                                                                                     distinct):
    done = keybench("record", "--backend", "bigtable", "--results-dir", str(tmp_path / "r"), "--nodes", "32",
                    "--fail-on-verdict", "hotspot,hot_row", "--", sys.executable, str(app),
                    env={"ROWS": "20", "DISTINCT": distinct, "BATCH": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    rows = _verdicts(_run_dir(tmp_path / "r"))
    for row in rows.values():
        assert row["verdict"] == "inconclusive", row
        assert int(row["writes_needed"]) > 20 and "would settle a verdict at 32 nodes" in row["verdict_reason"]
        assert row["hot_node_share"] == row["effective_nodes"] == "", "no figures from unmeasured writes"
    assert "effective nodes" not in done.stdout


def test_a_failing_command_fails_the_record_and_a_missing_one_is_one_line(bigtable_emulator, app, tmp_path):
    done = keybench("record", "--backend", "bigtable", "--results-dir", str(tmp_path / "r"),
                    "--", sys.executable, str(app), env={"ROWS": "50", "EXIT": "3"})
    assert done.returncode == 1 and "COMMAND exited with 3" in done.stderr, done.stderr
    assert set(_verdicts(_run_dir(tmp_path / "r"))) == {"by_time", "by_device"}  # modelled all the same
    unbindable = keybench("record", "--backend", "bigtable", "--host", "192.0.2.1", "--results-dir",
                          str(tmp_path / "h"), "--", sys.executable, str(app))
    assert unbindable.returncode == 2 and "Traceback" not in unbindable.stderr, unbindable.stderr
    assert unbindable.stderr.strip().splitlines()[-1].startswith("keybench: error: --host 192.0.2.1: cannot listen")
    missing = keybench("record", "--results-dir", str(tmp_path / "m"), "--", "no-such-command-kb")
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == ["keybench: error: COMMAND not found: no-such-command-kb"]
    assert not (tmp_path / "m").exists() or not any((tmp_path / "m").iterdir())


def _to_another_thread(pid: int, signum: int) -> None:
    """The signal to one of the process's threads other than its main one (the proxy's, gRPC's),
    as the kernel may choose to hand a signal sent to the process (tgkill)."""
    tgkill = {"x86_64": 234, "aarch64": 131}[os.uname().machine]
    thread = next(int(t) for t in sorted(os.listdir(f"/proc/{pid}/task")) if int(t) != pid)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.syscall(tgkill, pid, thread, signum) == 0, os.strerror(ctypes.get_errno())


@pytest.mark.parametrize("taken_by", ["the process", "another thread"])
def test_sigterm_reaches_the_command_first_then_what_was_recorded_is_modelled(bigtable_emulator, app, tmp_path,
                                                                             taken_by):
    results = tmp_path / "results"
    with _recording("--backend", "bigtable", "--results-dir", str(results), "--", sys.executable, str(app),
                    env={"ROWS": "500", "PAUSE_AFTER_FIRST_BATCH": "1"}) as proc:
        assert proc.stdout is not None
        assert _first_line(proc.stdout).strip() == "app: first batch written"
        if taken_by == "the process":
            proc.send_signal(signal.SIGTERM)
        else:
            _to_another_thread(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "ended by SIGTERM" in err
    assert "app: wrote" not in out  # the app got the signal and ended
    assert {r["writes"] for r in _verdicts(_run_dir(results)).values()} == {"50"}


def test_an_emulator_that_dies_ends_the_recording_which_models_what_it_saw(no_emulator_env, app, tmp_path):
    from keybench.infra import emulators

    emulator = emulators.start("bigtable", emulators.free_port(), "test", detach=False)
    results = tmp_path / "results"
    try:
        with _recording("--backend", "bigtable", "--results-dir", str(results), "--", sys.executable, str(app),
                        env={"ROWS": "500", "PAUSE_AFTER_FIRST_BATCH": "1",
                             "BIGTABLE_EMULATOR_HOST": emulator.address}) as proc:
            assert proc.stdout is not None
            assert _first_line(proc.stdout).strip() == "app: first batch written"
            emulator.stop()
            out, err = proc.communicate(timeout=300)
    finally:
        emulator.stop()
    assert proc.returncode == 1, err
    assert "stopped answering" in err
    assert {r["writes"] for r in _verdicts(_run_dir(results)).values()} == {"50"}


def test_listen_serves_an_application_started_elsewhere_until_sigint(bigtable_emulator, app, tmp_path):
    results = tmp_path / "results"
    with _recording("--listen", "--backend", "bigtable", "--results-dir", str(results)) as proc:
        assert proc.stderr is not None
        address = None
        while address is None and (line := _first_line(proc.stderr)):
            if "listening" in line:
                address = line.split("BIGTABLE_EMULATOR_HOST=", 1)[1].split(")", 1)[0]
        assert address and address.startswith("127.0.0.1:")
        written = subprocess.run([sys.executable, str(app)], env={**os.environ, "ROWS": "100",
                                                                   "BIGTABLE_EMULATOR_HOST": address},
                                 capture_output=True, text=True, timeout=120)
        assert written.returncode == 0, written.stderr
        host, port = address.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as stranger:  # not gRPC: relayed, counted
            stranger.sendall(b"GET / HTTP/1.1\r\nHost: keybench\r\n\r\n")  # longer than a preface
            while stranger.recv(4096):  # the emulator refuses it and hangs up: the proxy has read it by then
                pass
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGINT, err
    assert {r["writes"] for r in _verdicts(_run_dir(results)).values()} == {"100"}
    assert "bigtable:by_time" in out
    assert "unattributed: 1 connection(s) or message(s) to the Bigtable emulator not read as gRPC" in out, out
