"""A real run reads the service's own hot splits beside the model (run/observation.py): run as a
user runs it, with `--target real --endpoint` at a front (tests/stats_front.py) that forwards
every call to the Spanner emulator and answers the statistics queries itself. The hot split it
answers for the timestamp-first table is built, when the run asks, from the rows that run
wrote there (the newest tenth of them); the UUID table gets none. Checked against these
recorded responses, not against a live instance."""

from __future__ import annotations

import csv
import datetime as dt
import os
import subprocess
import sys

import pytest
from google.auth.credentials import AnonymousCredentials

from keybench.infra import emulators
from tests.conftest import REPO
from tests.stats_front import SplitRow, StatsFront, TabletRow

PROJECT = "kb-observed"
INSTANCE = "observed"
NEWEST_SHARE = 0.1  # the hot split holds the newest tenth of the timestamp-first table's rows


def _run(front: StatsFront, results, *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in emulators.ENV_VARS.values()}
    return subprocess.run(
        [sys.executable, "-m", "keybench.cli", "run", "--target", "real", "--endpoint", front.endpoint, "--project",
         PROJECT, "--instance", INSTANCE, "--backend", "spanner", "--dialects", "googlesql", "--duration", "3s",
         "--users", "2", "--no-report", "--run-id", "r", "--results-dir", str(results), *args],
        cwd=REPO, capture_output=True, text=True, timeout=600, env={**clean, "COLUMNS": "1000"})


@pytest.fixture
def front(emulator_hosts):
    from google.cloud import spanner

    from keybench.backends.spanner import EMULATOR_CONFIG

    client = spanner.Client(project=PROJECT, credentials=AnonymousCredentials())  # through SPANNER_EMULATOR_HOST
    instance = client.instance(INSTANCE, configuration_name=f"projects/{PROJECT}/instanceConfigs/{EMULATOR_CONFIG}",
                               node_count=1)
    if not instance.exists():
        instance.create().result(120)
    front = StatsFront(emulator_hosts["spanner"])

    def newest_rows(database_id: str) -> list[SplitRow]:
        """The run's own AccessLog rows, read back: in a table keyed by time first, the newest tenth
        of its keys is the hot split; any other table has none."""
        with instance.database(database_id).snapshot(multi_use=True) as snapshot:
            lead = list(snapshot.execute_sql(
                "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_NAME = 'AccessLog' "
                "AND INDEX_NAME = 'PRIMARY_KEY' AND ORDINAL_POSITION = 1"))
            if lead != [["LastAccess"]]:
                return []
            keys = list(snapshot.execute_sql("SELECT LastAccess, UserId FROM AccessLog ORDER BY LastAccess, UserId"))
        if not keys:
            return []
        moment, user = keys[int(len(keys) * (1 - NEWEST_SHARE))]
        front.boundaries[database_id] = (len(keys), len(keys) - int(len(keys) * (1 - NEWEST_SHARE)))
        stamp = moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        now = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
        return [SplitRow(now, f'AccessLog("{stamp}", {user})', "<end>", 100, ["AccessLog"])]

    front.boundaries = {}
    front.split_rows_for = newest_rows
    # A service whose statistics already reach past the stage's minutes: no wait for the clock.
    front.statistics_until = lambda database: dt.datetime.now(dt.UTC) + dt.timedelta(minutes=2)
    yield front
    front.close()
    client.close()


def _verdicts(results) -> dict[str, dict]:
    with open(results / "r" / "verdicts.csv", newline="") as f:
        return {row["strategy"]: row for row in csv.DictReader(f)}


def test_a_real_run_shows_the_services_hot_splits_beside_the_model(front, tmp_path):
    done = _run(front, tmp_path, "--strategies", "timestamp_first,uuid4_string", "--observe-wait", "60s")
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _verdicts(tmp_path)
    hot, spread = rows["timestamp_first"], rows["uuid4_string"]
    assert (hot["observed"], hot["verdict"], hot["observed_agrees"]) == ("hotspot", "hotspot", "yes")
    assert hot["observed_space"] == "AccessLog" and hot["observed_score"] == "100"
    assert hot["observed_where"].startswith("the newest LastAccess values (from ")
    ((total, held),) = front.boundaries.values()
    assert float(hot["observed_write_share"]) == pytest.approx(held / total, abs=0.001)  # the run's own writes
    assert (spread["observed"], spread["verdict"], spread["observed_agrees"]) == ("none", "spread", "yes")
    out = done.stdout
    assert "timestamp_first: observed hotspot (CPU_USAGE_SCORE 100; AccessLog: the newest LastAccess values" in out
    assert "modelled hotspot: they agree" in out
    assert "uuid4_string: observed none, modelled spread: they agree" in out
    # read before the drop, and the drop still took exactly what the run created
    assert "waiting for the service's statistics" in done.stderr
    assert not [d for d in front.boundaries if d in _databases(front)]


def _databases(front: StatsFront) -> set[str]:
    from google.cloud import spanner

    client = spanner.Client(project=PROJECT, credentials=AnonymousCredentials())
    try:
        return {d.name.rsplit("/", 1)[1] for d in client.instance(INSTANCE).list_databases()}
    finally:
        client.close()


def test_statistics_that_never_come_are_unknown_with_the_reason_and_the_run_stands(front, tmp_path):
    front.statistics_until = lambda database: None  # the service's statistics reach no minute yet
    done = _run(front, tmp_path, "--strategies", "uuid4_string", "--observe-wait", "2s")
    assert done.returncode == 0, done.stderr[-3000:]
    row = _verdicts(tmp_path)["uuid4_string"]
    assert row["observed"] == "unknown" and "not there after 2 s" in row["observed_where"]
    assert row["observed_agrees"] == "n/a" and row["verdict"] == "spread"


def test_only_a_real_stage_with_a_wait_observes():
    from keybench.run.options import RunOptions
    from keybench.run.stage_run import observes

    real = {"target": "real", "project": "p", "instance": "i"}
    assert not observes(RunOptions())  # an emulator keeps no statistics
    assert not observes(RunOptions(**real, observe_wait_s=0))
    assert observes(RunOptions(**real))


@pytest.mark.minutes(2)
def test_a_real_bigtable_run_shows_its_hot_tablets_beside_the_model(emulator_hosts, tmp_path):
    """The Bigtable emulator through the front, over TLS as Google's endpoint: the hot tablet it
    lists is the newest tenth of the row keys the run wrote into its timestamp-first table. A
    stage waits until the minute after its last has passed (HOT_TABLETS_SETTLE_S): up to 2 min."""
    from google.cloud import bigtable

    front = StatsFront(emulator_hosts["bigtable"], tls_dir=tmp_path)
    written: dict[str, int] = {}

    def newest_tablet() -> list[TabletRow]:
        client = bigtable.Client(project=PROJECT, admin=True)  # through BIGTABLE_EMULATOR_HOST
        now = dt.datetime.now(dt.UTC)
        out = []
        for table in client.instance(INSTANCE).list_tables():
            if "timestamp-first" in table.table_id:
                keys = sorted(row.row_key for row in table.read_rows())
                written[table.table_id] = len(keys)
                out.append(TabletRow(table.table_id, keys[int(len(keys) * 0.9)].decode(), "", 97.0,
                                     now - dt.timedelta(minutes=3), now))
        return out

    front.hot_tablets_for = newest_tablet
    clean = {k: v for k, v in os.environ.items() if k not in emulators.ENV_VARS.values()}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "keybench.cli", "run", "--target", "real", "--endpoint", front.endpoint,
             "--project", PROJECT, "--instance", INSTANCE, "--backend", "bigtable", "--strategies",
             "timestamp_first", "--duration", "3s", "--users", "2", "--no-report", "--run-id", "r", "--results-dir",
             str(tmp_path / "results"), "--observe-wait", "150s"],
            cwd=REPO, capture_output=True, text=True, timeout=600,
            env={**clean, "COLUMNS": "1000", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(front.certificate)})
    finally:
        front.close()
    assert done.returncode == 0, done.stderr[-3000:]
    row = _verdicts(tmp_path / "results")["timestamp_first"]
    assert (row["observed"], row["verdict"], row["observed_agrees"]) == ("hotspot", "hotspot", "yes")
    assert row["observed_where"].startswith("the table's last rows (from ts=")
    ((total,),) = [tuple(written.values())]
    assert float(row["observed_write_share"]) == pytest.approx((total - int(total * 0.9)) / total, abs=0.001)
    assert "timestamp_first: observed hotspot (node CPU 97 %" in done.stdout
