"""`keybench observe` as a user runs it, against a database with a real schema and real rows (the
Spanner emulator's) whose statistics a front answers with rows shaped as the documentation
describes, built from the keys the test wrote (tests/stats_front.py); and against a Bigtable
cluster whose ListHotTablets a servicer in the test suite answers. The figures were checked
against these recorded responses, not against a live instance."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import uuid

import grpc
import pytest
from google.auth.credentials import AnonymousCredentials

from keybench.infra import emulators
from tests.conftest import REPO
from tests.stats_front import SplitRow, StatsFront, TabletRow

PROJECT = "kb-observe"
INSTANCE = "shop"
SCHEMA = {
    "googlesql": [
        "CREATE TABLE Sessions (LastAccess TIMESTAMP NOT NULL, UserId STRING(36) NOT NULL, Payload STRING(MAX)) "
        "PRIMARY KEY (LastAccess, UserId)",
        "CREATE TABLE Users (UserId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), Name STRING(MAX), "
        "CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (UserId)",
        "CREATE INDEX UsersByCreatedAt ON Users(CreatedAt)",
        "CREATE TABLE Orders (OrderId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), Total INT64) "
        "PRIMARY KEY (OrderId)",
    ],
    "postgresql": [
        "CREATE TABLE sessions (lastaccess timestamptz NOT NULL, userid varchar(36) NOT NULL, payload text, "
        "PRIMARY KEY (lastaccess, userid))",
        "CREATE TABLE orders (orderid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(), total bigint, "
        "PRIMARY KEY (orderid))",
    ],
}
WRITES = 200
NOW = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)


def _observe(front: StatsFront, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`keybench observe` with no *_EMULATOR_HOST variable: it reaches the front by --endpoint."""
    clean = {k: v for k, v in os.environ.items() if k not in emulators.ENV_VARS.values()}
    return subprocess.run([sys.executable, "-m", "keybench.cli", "observe", "--project", PROJECT, "--instance",
                           INSTANCE, "--endpoint", front.endpoint, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**clean, "COLUMNS": "1000", **(env or {})})


@pytest.fixture(scope="module")
def shop(emulator_hosts):
    """Both dialects' databases on the session's Spanner emulator, with rows written: the
    Sessions keys, oldest first, by dialect."""
    from google.cloud import spanner
    from google.cloud.spanner_admin_database_v1 import DatabaseDialect

    from keybench.backends.spanner import EMULATOR_CONFIG

    client = spanner.Client(project=PROJECT, credentials=AnonymousCredentials())  # through SPANNER_EMULATOR_HOST
    instance = client.instance(INSTANCE, configuration_name=f"projects/{PROJECT}/instanceConfigs/{EMULATOR_CONFIG}",
                               node_count=1)
    if not instance.exists():
        instance.create().result(120)
    written = {}
    for dialect, statements in SCHEMA.items():
        pg = dialect == "postgresql"
        database = instance.database(f"shop-{dialect[:2]}-{uuid.uuid4().hex[:6]}",
                                     database_dialect=DatabaseDialect.POSTGRESQL if pg else
                                     DatabaseDialect.GOOGLE_STANDARD_SQL)
        database.create().result(120)
        database.update_ddl(statements).result(120)
        keys = [(NOW - dt.timedelta(seconds=WRITES - n), f"u-{n:04d}") for n in range(WRITES)]
        with database.batch() as batch:
            batch.insert("sessions" if pg else "Sessions", ("lastaccess", "userid") if pg else ("LastAccess", "UserId"),
                         keys)
        written[dialect] = (database.database_id, keys)
    yield written
    client.close()


@pytest.fixture
def front(emulator_hosts):
    front = StatsFront(emulator_hosts["spanner"])
    yield front
    front.close()


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_observed_hot_and_warm_splits_sit_beside_the_modelled_verdicts_mapped_onto_the_keys(shop, front):
    database, keys = shop["googlesql"]
    newest = keys[int(len(keys) * 0.9)]  # the newest tenth of what the test wrote
    boundary = f'Sessions("{_stamp(newest[0])}", "{newest[1]}")'
    front.split_rows = [
        # the newest Sessions keys, hot for three minutes
        *(SplitRow(NOW - dt.timedelta(minutes=m), boundary, "<end>", 100, ["Sessions"]) for m in (3, 2, 1)),
        # the commit-timestamp index, warm
        SplitRow(NOW - dt.timedelta(minutes=2), f'UsersByCreatedAt("{_stamp(NOW)}")', "<end>", 72,
                 ["UsersByCreatedAt", "Users"]),
        # below warm: in no table's observation
        SplitRow(NOW - dt.timedelta(minutes=1), "Users()", 'Users("8")', 30, ["Users"]),
    ]
    done = _observe(front, "--database", database, "--since", "30m")
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "4 warm or hot split row(s)" in out
    assert "table Sessions: observed hotspot (CPU_USAGE_SCORE 100, 3 minutes), modelled hotspot: they agree" in out
    assert f"where: the newest LastAccess values (from {_stamp(newest[0])} on)" in out
    assert "table Orders: observed none, modelled spread: they agree" in out
    assert "table Users: observed none, modelled spread: they agree" in out
    assert ("index Users.UsersByCreatedAt: observed warm (CPU_USAGE_SCORE 72, 1 minute), modelled hotspot: "
            "they agree") in out
    assert "where: the newest CreatedAt values" in out
    index_block = out.split("index Users.UsersByCreatedAt", 1)[1]
    assert "fix:" in index_block and "CREATE INDEX" in index_block  # the check's own fix, as DDL
    # the window asked for, in the statistics' own SQL
    (request,) = front.statistics_requests
    assert "SPANNER_SYS.SPLIT_STATS_TOP_MINUTE" in request.sql and "@start" in request.sql
    assert "Traceback" not in done.stderr


def test_a_split_spanning_two_tables_is_each_tables_and_a_disagreement_is_said(shop, front):
    database, keys = shop["googlesql"]
    newest = keys[-20]
    front.split_rows = [SplitRow(NOW - dt.timedelta(minutes=1), f'Sessions("{_stamp(newest[0])}", "{newest[1]}")',
                                 'Users("4")', 64, ["Sessions", "Users"], ["MOVING_HOT_SPOT"])]
    done = _observe(front, "--database", database, "--format", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    objects = {o["object"]: o for o in json.loads(done.stdout)["objects"]}
    assert objects["Sessions"]["observed"] == "warm" and objects["Sessions"]["agrees"] == "yes"
    assert objects["Sessions"]["where"].startswith("the newest LastAccess values")
    assert objects["Users"]["observed"] == "warm" and objects["Users"]["modelled"] == "spread"
    assert objects["Users"]["agrees"] == "no" and objects["Users"]["where"] == "the first UserId values (up to 4)"
    assert objects["Users"]["reasons"] == ["MOVING_HOT_SPOT"]
    assert objects["Orders"]["observed"] == "none"


def test_no_hot_split_says_so_and_fail_on_observed_gates(shop, front):
    database, _ = shop["googlesql"]
    done = _observe(front, "--database", database, "--fail-on-observed", "hotspot,warm")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no warm or hot split in the window: the service saw no hotspot in this database" in done.stdout
    assert "table Sessions: observed none, modelled hotspot: they DISAGREE" in done.stdout
    front.split_rows = [SplitRow(NOW, "Sessions()", "<end>", 100, ["Sessions"])]
    gated = _observe(front, "--database", database, "--fail-on-observed", "hotspot")
    assert gated.returncode == 1
    assert "keybench: --fail-on-observed: table Sessions observed hotspot" in gated.stdout
    assert "where: all of it" in gated.stdout  # Sessions() precedes its every key: the whole table


def test_a_postgresql_database_is_read_in_its_own_dialect(shop, front):
    database, keys = shop["postgresql"]
    newest = keys[-10]
    front.split_rows = [SplitRow(NOW, f'sessions("{_stamp(newest[0])}", "{newest[1]}")', "<end>", 100,
                                 ["sessions"])]
    done = _observe(front, "--database", database)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "table sessions: observed hotspot (CPU_USAGE_SCORE 100, 1 minute), modelled hotspot: they agree" \
        in done.stdout
    assert "where: the newest lastaccess values" in done.stdout
    assert "table orders: observed none, modelled spread: they agree" in done.stdout
    (request,) = front.statistics_requests
    assert "spanner_sys.split_stats_top_minute" in request.sql and "$1" in request.sql


def test_a_refusal_is_one_line_naming_the_permissions(shop, front):
    database, _ = shop["googlesql"]
    front.refuse = (grpc.StatusCode.PERMISSION_DENIED, "Caller is missing IAM permission spanner.databases.select")
    done = _observe(front, "--database", database)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "permission denied reading SPANNER_SYS.SPLIT_STATS_TOP_MINUTE" in done.stderr
    assert "roles/spanner.databaseReader" in done.stderr
    missing = _observe(front, "--database", "nosuch")
    assert missing.returncode == 2 and "no such database" in missing.stderr and missing.stderr.count("\n") == 1


def test_observe_never_writes(shop, front):
    database, _ = shop["googlesql"]
    front.split_rows = [SplitRow(NOW, "Sessions()", "<end>", 100, ["Sessions"])]
    assert _observe(front, "--database", database).returncode == 0
    writes = [m for m in front.forwarded if m.rsplit("/", 1)[-1] in
              ("Commit", "BeginTransaction", "ExecuteBatchDml", "UpdateDatabaseDdl", "CreateDatabase", "DropDatabase",
               "BatchWrite", "CreateInstance")]
    assert front.forwarded and not writes, writes


@pytest.fixture
def tablets(tmp_path):
    front = StatsFront(tls_dir=tmp_path)  # answers ListHotTablets alone, over TLS as Google's endpoint
    yield front
    front.close()


def test_bigtable_hot_tablets_are_named_by_the_template_with_its_fix(tablets):
    start = NOW - dt.timedelta(minutes=20)
    tablets.hot_tablets = [
        TabletRow("readings", "1764190000000#dev-0042", "", 91.5, start, start + dt.timedelta(minutes=15)),
        TabletRow("readings", "1764180000000#dev-0007", "1764185000000#dev-0001", 55.0, start, NOW),
    ]
    env = {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(tablets.certificate)}
    done = _observe(tablets, "--backend", "bigtable", "--cluster", "shop-c1", "--template", "{ts}#{device}",
                    "--table", "readings", "--table", "devices", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "2 hot tablet(s) listed" in out
    assert "table readings: observed hotspot (node CPU % 91.5, 2 entries), modelled hotspot: they agree" in out
    assert "where: the table's last rows (from ts=1764190000000, device=dev-0042 on)" in out
    assert "table devices: observed none, modelled hotspot: they DISAGREE" in out
    assert "fix:" in out  # the template's documented fix
    (request,) = tablets.statistics_requests
    assert request.parent == f"projects/{PROJECT}/instances/{INSTANCE}/clusters/shop-c1"
    empty = StatsFront(tls_dir=tablets.certificate.parent)
    try:
        none = _observe(empty, "--backend", "bigtable", "--cluster", "shop-c1",
                        env={"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(empty.certificate)})
    finally:
        empty.close()
    assert none.returncode == 0, none.stderr[-3000:]
    assert "no hot tablet in the window: the service saw no hotspot on this cluster" in none.stdout


def test_bad_input_is_one_line(tablets):
    for args, message in [
        (("--database", "d", "--since", "30h"), "--since"),
        (("--backend", "bigtable"), "needs --cluster"),
        (("--backend", "spanner"), "needs --database"),
        (("--database", "d", "--end", "yesterday"), "is not an ISO 8601 time"),
        (("--database", "d", "--template", "{ts}"), "--template applies to Bigtable"),
        (("--database", "d", "--fail-on-observed", "hot"), "unknown level"),
    ]:
        done = _observe(tablets, *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1


def test_an_emulator_has_no_statistics_and_says_so_in_one_line(shop, emulator_hosts):
    database, _ = shop["googlesql"]
    done = subprocess.run([sys.executable, "-m", "keybench.cli", "observe", "--project", PROJECT, "--instance",
                           INSTANCE, "--database", database], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"], "COLUMNS": "1000"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "an emulator keeps no split statistics" in done.stderr
    both = subprocess.run([sys.executable, "-m", "keybench.cli", "observe", "--project", PROJECT, "--instance",
                           INSTANCE, "--database", database, "--endpoint", "127.0.0.1:1"], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SPANNER_EMULATOR_HOST": emulator_hosts["spanner"]})
    assert both.returncode == 2 and "ambiguous" in both.stderr and both.stderr.count("\n") == 1
