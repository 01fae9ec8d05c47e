"""keybench's pytest plugin as a user's project meets it: pytest finds it through its entry
point, a user's test file asserts on verdicts with the fixtures (run by pytester, in this
process), a failing assertion shows the space's figures, and the emulator fixtures start,
name and stop what they use, or fail saying how to get one."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from importlib.metadata import entry_points

import pytest

from keybench.design import strategies
from keybench.infra import emulators

pytest_plugins = ["pytester"]

# The inner sessions need only keybench's plugin: others installed here cost a second each.
QUIET = ("-p", "no:cacheprovider", "-p", "no:locust", "-p", "no:hypothesispytest")

SCHEMA = """
CREATE TABLE Orders (
  OrderId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
) PRIMARY KEY (OrderId);
CREATE INDEX OrdersByCreatedAt ON Orders(CreatedAt);
"""

# A user's test file: the README's example, at the smallest --rows the check takes.
USER_TESTS = """
import pytest

def test_orders(keybench_check):
    orders = keybench_check("schema.sql", rows=1000)
    assert orders.table("Orders").verdict == "spread"
    index = orders.index("Orders", "OrdersByCreatedAt")
    assert index.verdict == "hotspot" and index.fixed_verdict == "spread"
    assert orders.index("Orders.OrdersByCreatedAt") is index
    assert "ShardId" in index.fix_ddl[-1] and index.assumptions["CreatedAt"].startswith("time: allow_commit_timestamp")
    assert index.hot_node_share > 0.9 and index.effective_nodes < 1.5

def test_device_first_row_key(keybench_check):
    assert keybench_check(bigtable="{device_type}#{device_id}#{ts}", rows=1000).verdict == "spread"

def test_unknown_table_lists_the_tables(keybench_check):
    with pytest.raises(LookupError, match="schema.sql has no table 'Order'; its tables: Orders"):
        keybench_check("schema.sql", rows=1000).table("Order")

def test_the_index_spreads(keybench_check):
    assert keybench_check("schema.sql", rows=1000).index("OrdersByCreatedAt").verdict == "spread"
"""


def test_pytest_finds_the_plugin_through_its_entry_point():
    [plugin] = [e for e in entry_points(group="pytest11") if e.name == "keybench"]
    assert plugin.value == "keybench.pytest_plugin"
    assert {"spanner_emulator", "bigtable_emulator", "keybench_check", "keybench_recorder"} <= set(vars(plugin.load()))


@pytest.mark.emulator
def test_a_users_assertions_pass_and_a_wrong_one_fails_with_the_figures(pytester, spanner_emulator):
    pytester.makefile(".sql", schema=SCHEMA)
    pytester.makepyfile(test_schema=USER_TESTS)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*assert 'hotspot' == 'spread'*",
        "*index Orders.OrdersByCreatedAt: hotspot (hot_node_share 1.000, effective_nodes 1.00 of 8 nodes): "
        "the busiest*",
        "*fix: put a shard column first in the index: ShardId*, then spread",
        "*keybench check*schema.sql: GoogleSQL DDL, 1 table(s), 1 index(es)*",  # the report, as captured stdout
    ])
    assert os.environ[emulators.ENV_VARS["spanner"]] == spanner_emulator.host


# A user's integration test: it writes through Google's client, and the recorder judges the keys.
RECORDED_TESTS = """
import random, uuid, warnings

def write(table_names, rows=1500):
    from google.cloud import bigtable
    from google.cloud.bigtable import column_family

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        client = bigtable.Client(project="p", admin=True)  # after the recorder: through the proxy
    instance, rng = client.instance(uuid.uuid4().hex[:12]), random.Random(1)
    tables = {}
    for name in table_names:
        tables[name] = instance.table(name)
        tables[name].create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
    for first in range(0, rows, 100):
        for name, table in tables.items():
            batch = []
            for n in range(first, first + 100):
                ts, device = 1_790_000_000_000_000 + n * 1000, f"{rng.randrange(1000):04x}"
                row = table.direct_row((f"{ts}#{device}" if name == "events_by_time" else f"{device}#{ts}").encode())
                row.set_cell("cf", b"v", b"x")
                batch.append(row)
            table.mutate_rows(batch)
    client.close()

def test_device_first_spreads(keybench_recorder, bigtable_emulator):
    write(["events_by_device"])
    assert keybench_recorder.table("events_by_device").verdict == "spread"

def test_time_first_spreads(keybench_recorder, bigtable_emulator):
    write(["events_by_time"])
    assert keybench_recorder.table("events_by_time").verdict == "spread"
"""


@pytest.mark.emulator
def test_the_recorder_fixture_judges_what_a_users_test_wrote_and_explains_a_failure(pytester, bigtable_emulator):
    pytester.makepyfile(test_recorded=RECORDED_TESTS)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*assert 'hotspot' == 'spread'*",
        "*bigtable table events_by_time: hotspot (hot node 1.0, 1.0 effective nodes of 8, 1,500 writes): "
        "the busiest node takes 1.000*",
    ])
    assert os.environ[emulators.ENV_VARS["bigtable"]] == bigtable_emulator.host  # the proxy's address is gone


@pytest.fixture
def no_emulator_found(monkeypatch, tmp_path):
    """No variable, no Docker engine."""
    for backend in strategies.BACKENDS:
        monkeypatch.delenv(emulators.ENV_VARS[backend], raising=False)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    monkeypatch.setenv("KEYBENCH_STATE_DIR", str(tmp_path / "state"))


@pytest.mark.emulator
def test_a_native_emulator_is_started_named_for_the_session_and_stopped(pytester, no_emulator_found, native_binaries):
    pytester.makepyfile(test_host="""
        import os

        def test_host(bigtable_emulator):
            assert os.environ["BIGTABLE_EMULATOR_HOST"] == bigtable_emulator.host
            assert bigtable_emulator.source == f"native emulator pid {bigtable_emulator.pid}"
            print("HOST", bigtable_emulator.host, bigtable_emulator.pid)
    """)
    result = pytester.runpytest("-s", *QUIET)
    result.assert_outcomes(passed=1)
    [(host, pid)] = re.findall(r"HOST (\S+) (\d+)", result.stdout.str())
    assert "BIGTABLE_EMULATOR_HOST" not in os.environ  # restored
    assert not os.path.exists(f"/proc/{pid}")  # stopped by its PID
    assert not emulators.answers(host, timeout=1)[0]


@pytest.mark.parametrize("option, outcome", [((), {"errors": 1}), (("--keybench-missing-emulator=skip",),
                                                                   {"skipped": 1})])
def test_no_emulator_fails_with_how_to_get_one_unless_skipping_is_asked(pytester, no_emulator_found, monkeypatch,
                                                                        tmp_path, option, outcome):
    monkeypatch.setenv("KEYBENCH_GCLOUD_SDK_ROOT", str(tmp_path / "no-sdk"))
    pytester.makepyfile(test_needs=textwrap.dedent("""
        def test_needs(spanner_emulator):
            pass
    """))
    result = pytester.runpytest("-rs", *QUIET, *option)
    result.assert_outcomes(**outcome)
    result.stdout.fnmatch_lines(["*no Spanner emulator: SPANNER_EMULATOR_HOST is not set; Docker: no Docker engine "
                                 "answers"
                                 "*; no native emulator installed; set SPANNER_EMULATOR_HOST=host:port*"])


def test_a_variable_naming_a_dead_emulator_fails_and_starts_no_other(pytester, no_emulator_found, monkeypatch):
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", f"127.0.0.1:{emulators.free_port()}")
    pytester.makepyfile(test_needs="def test_needs(spanner_emulator):\n    pass\n")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(errors=1)  # a native emulator started in its place would have let the test pass
    result.stdout.fnmatch_lines(["*the Spanner emulator at 127.0.0.1:* (SPANNER_EMULATOR_HOST) does not answer*"])


def test_a_sigterm_another_thread_takes_still_ends_a_session_blocked_in_a_long_call(pytester, tmp_path):
    # The kernel may hand the SIGTERM to any thread (gRPC keeps several); Python then only
    # notes it, and a main thread asleep in C would not see it for minutes.
    started = tmp_path / "started"
    pytester.makepyfile(test_blocked=f"""
        import pathlib
        import signal
        import threading
        import time

        from keybench.pytest_plugin import end_session_on_sigterm

        STARTED = pathlib.Path({str(started)!r})

        def sigterm_to_this_thread():
            while not STARTED.exists():
                time.sleep(0.01)
            time.sleep(0.5)  # the main thread is in the sleep's C call by now
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

        def test_blocked():
            end_session_on_sigterm()  # as an emulator fixture that started one calls it
            threading.Thread(target=sigterm_to_this_thread, daemon=True).start()
            STARTED.write_text("started")
            time.sleep(300)
    """)
    child = pytester.popen([sys.executable, "-m", "pytest", *QUIET, "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        output = child.communicate(timeout=120)[0]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert started.exists(), output
    assert child.returncode == pytest.ExitCode.INTERRUPTED, output


@pytest.mark.emulator
def test_sigterm_ends_the_session_as_ctrl_c_does_and_its_fixtures_stop_what_they_started(
        pytester, no_emulator_found, native_binaries, tmp_path):
    # A cancelled CI job sends SIGTERM: by default Python ends at once, and no fixture's
    # teardown runs (a container, a private Docker engine would be left running).
    started, torn_down = tmp_path / "started", tmp_path / "torn-down"
    pytester.makeconftest(f"""
        import pathlib
        import pytest

        @pytest.fixture(scope="session", autouse=True)
        def held():
            yield
            pathlib.Path({str(torn_down)!r}).write_text("torn down")
    """)
    pytester.makepyfile(test_long=f"""
        import pathlib
        import time

        def test_long(bigtable_emulator):
            pathlib.Path({str(started)!r}).write_text(str(bigtable_emulator.pid))
            time.sleep(300)
    """)
    child = pytester.popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), child.communicate(timeout=60)[0]
        child.send_signal(signal.SIGTERM)
        output = child.communicate(timeout=120)[0]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == pytest.ExitCode.INTERRUPTED, output
    assert torn_down.read_text() == "torn down"
    assert not os.path.exists(f"/proc/{started.read_text()}")  # the emulator, stopped
