"""`keybench check SCHEMA.sql` against the real Spanner emulator: the DDL is the emulator's to
read, the verdicts follow the design, the fixes are applied and checked again, and bad input
is one line with exit code 2."""

from __future__ import annotations

import codecs
import json
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from keybench.check.command import check
from keybench.check.request import CheckRequest
from keybench.design.ddl import split_ddl
from keybench.errors import KeybenchError
from tests.conftest import keybench

pytestmark = pytest.mark.emulator

ORDERS_BY_COMMIT_TIME = """
-- an orders table keyed by the commit timestamp
CREATE TABLE Orders (
  OrderTs TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
  CustomerId INT64 NOT NULL,
  Amount FLOAT64,
) PRIMARY KEY (OrderTs, CustomerId);
"""

SHOP = """
CREATE SEQUENCE CustomerSequence OPTIONS (sequence_kind = "bit_reversed_positive");
CREATE TABLE Customers (
  CustomerId INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE CustomerSequence)),
  Name STRING(MAX),
) PRIMARY KEY (CustomerId);
CREATE TABLE OrderItems (
  CustomerId INT64 NOT NULL,
  ItemId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  Quantity INT64,
) PRIMARY KEY (CustomerId, ItemId),
  INTERLEAVE IN PARENT Customers ON DELETE CASCADE;
CREATE TABLE Events (
  EventId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  CreatedAt TIMESTAMP,
  Kind STRING(20),
) PRIMARY KEY (EventId);
CREATE NULL_FILTERED INDEX EventsByCreatedAt ON Events(CreatedAt) STORING (Kind);
"""


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def section(lines: list[str], title: str) -> str:
    """The lines of one table's or index's block of the report."""
    start = lines.index(title) if title in lines else next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return "\n".join(lines[start:end])


def test_a_commit_timestamp_first_key_is_a_hotspot_and_the_swap_fix_spreads(spanner_emulator, tmp_path):
    schema = write(tmp_path, "orders.sql", ORDERS_BY_COMMIT_TIME)
    columns = write(tmp_path, "columns.toml", 'CustomerId = { distribution = "categorical", values = 100000 }\n')
    report = check(CheckRequest(schema=schema, columns=columns))
    orders = section(report.lines, "table Orders: key (OrderTs, CustomerId)")
    assert "verdict: hotspot (hot_node_share 1.000" in orders
    assert "assumes OrderTs = time: allow_commit_timestamp" in orders
    assert "assumes CustomerId = categorical (100,000 values): stated in columns.toml" in orders
    assert 'rule: Spanner: Schema design best practices, section "Choose a primary key to prevent hotspots"' in orders
    assert "fix: swap the key order: CustomerId before OrderTs, PRIMARY KEY (CustomerId, OrderTs)" in orders
    assert ") PRIMARY KEY (CustomerId, OrderTs);" in orders
    after = report.lines[report.lines.index("after the fixes (the fixed DDL applied to the emulator and checked "
                                            "again):") + 1]
    assert after.startswith("  table Orders: key (CustomerId, OrderTs): spread")
    assert report.exit_code == 0


def test_a_table_named_by_a_reserved_keyword_gets_a_fix_the_emulator_takes(spanner_emulator, tmp_path):
    """`Order` and `Desc` are reserved in GoogleSQL: the fix's DDL quotes them, so the recheck
    applies it (it exited 2 when the fix wrote CREATE TABLE Order)."""
    schema = write(tmp_path, "order.sql", "CREATE TABLE `Order` (\n  `Desc` STRING(MAX),\n"
                   "  CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),\n"
                   "  Id INT64 NOT NULL,\n) PRIMARY KEY (CreatedAt, Id);\n")
    report = check(CheckRequest(schema=schema, rows=5_000))
    text = "\n".join(report.lines)
    assert "CREATE TABLE `Order` (" in text and "  `Desc` STRING(MAX)," in text, text
    assert "after the fixes (the fixed DDL applied to the emulator and checked again):" in text, text
    assert report.exit_code == 0, text


def test_a_large_schema_says_how_far_its_check_got(spanner_emulator, tmp_path, monkeypatch, capsys):
    """On stderr, every PROGRESS_EVERY_S (here every table): the verdicts on stdout are unchanged."""
    from keybench.check import keyspaces

    schema = write(tmp_path, "many.sql", "".join(
        f"CREATE TABLE T{n} (Id STRING(36) NOT NULL DEFAULT (GENERATE_UUID())) PRIMARY KEY (Id);\n" for n in range(3)))
    monkeypatch.setattr(keyspaces, "PROGRESS_EVERY_S", 0.0)
    report = check(CheckRequest(schema=schema, rows=2_000))
    err = capsys.readouterr().err
    assert re.findall(r"^  many\.sql: modelling (\d) of 3 tables \(\d+ s\)$", err, re.MULTILINE) == ["1", "2"], err
    assert report.exit_code == 0 and all("verdict: spread" in line for line in report.lines if "verdict:" in line)


def test_a_file_as_windows_editors_save_it_reads_as_the_plain_one(spanner_emulator, tmp_path):
    """UTF-16 with its byte-order mark, CRLF line ends, and block comments the emulator would refuse."""
    plain = write(tmp_path, "plain.sql", ORDERS_BY_COMMIT_TIME)
    saved = tmp_path / "saved.sql"
    text = "/* exported by a GUI client;\n   do not edit */\n" + plain.read_text().replace("Amount",
                                                                                     "/* cents */ Amount")
    saved.write_bytes(codecs.BOM_UTF16_LE + text.replace("\n", "\r\n").encode("utf-16-le"))
    verdicts = []
    for path in (plain, saved):
        report = check(CheckRequest(schema=path, rows=5_000))
        verdicts.append(section(report.lines, "table Orders: key (OrderTs, CustomerId)").splitlines()[1])
    assert verdicts[0] == verdicts[1] and "verdict: hotspot" in verdicts[1], verdicts


def test_an_uninferable_int64_key_column_is_named_never_guessed(spanner_emulator, tmp_path):
    schema = write(tmp_path, "orders.sql", ORDERS_BY_COMMIT_TIME.replace("(OrderTs, CustomerId)",
                                                                         "(CustomerId, OrderTs)"))
    report = check(CheckRequest(schema=schema))
    orders = section(report.lines, "table Orders: key (CustomerId, OrderTs)")
    assert ("verdict: inconclusive: hotspot if CustomerId is sequential; spread if CustomerId is random, and "
            "keybench cannot tell which") in orders
    assert "as sequential: hotspot" in orders and "as random: spread" in orders
    assert "assumes CustomerId = unknown: an INT64 with no default or option that tells its values" in orders
    assert "state it with --columns" in orders


@pytest.fixture(scope="module")
def shop_report(spanner_emulator, tmp_path_factory):
    schema = write(tmp_path_factory.mktemp("shop"), "shop.sql", SHOP)
    return check(CheckRequest(schema=schema, fail_on=("hotspot", "hot_row")))


def test_a_bit_reversed_sequence_key_spreads(shop_report):
    customers = section(shop_report.lines, "table Customers: key (CustomerId)")
    assert "verdict: spread" in customers
    assumed = "assumes CustomerId = bit_reversed: DEFAULT from sequence CustomerSequence, bit_reversed_positive"
    assert assumed in customers


def test_an_interleaved_child_takes_its_parents_key_and_spreads(shop_report):
    items = section(shop_report.lines, "table OrderItems: key (CustomerId, ItemId)")
    assert "verdict: spread" in items
    assert "assumes CustomerId = bit_reversed: the key of parent Customers" in items
    assert "assumes ItemId = uuid4: DEFAULT (GENERATE_UUID())" in items


def test_a_null_filtered_index_on_a_time_hotspots_alone_and_the_shard_fix_spreads_it(shop_report):
    assert "verdict: spread" in section(shop_report.lines, "table Events: key (EventId)")
    index = section(shop_report.lines, "index Events.EventsByCreatedAt: key (CreatedAt, EventId)")
    assert "verdict: hotspot" in index
    assert "best practice #3" in index
    assert "CREATE NULL_FILTERED INDEX EventsByCreatedAt ON Events(ShardId, CreatedAt) STORING (Kind);" in index
    assert "ShardId INT64 AS (MOD(FARM_FINGERPRINT(CAST(CreatedAt AS STRING)), 16)) STORED," in index
    assert any(line.startswith("  index Events.EventsByCreatedAt: key (ShardId, CreatedAt, EventId): spread")
               for line in shop_report.lines)


def test_fail_on_verdict_lists_each_offender_on_one_line_and_exits_1(shop_report):
    failures = [line for line in shop_report.lines if line.startswith("FAIL ")]
    assert failures == [f for f in failures if "Events.EventsByCreatedAt: hotspot" in f] and len(failures) == 1
    assert shop_report.exit_code == 1


@pytest.mark.parametrize("ddl, expected", [
    ("CREATE TABLE A (x INT64) PRIMARY KEY (x);\nCREATE TABLE B (x INT64) PRIMARY KEY (y);\n",
     ["statement 2 refused by the Spanner emulator (GoogleSQL): ", "nonexistent key column y",
      "(statement: CREATE TABLE B (x INT64) PRIMARY KEY (y))"]),
    # Neither dialect reads the first statement: both messages, on one line.
    ("CREATE TABLE A (x INT64 NOT NULL,, y INT64) PRIMARY KEY (x);\n",
     ["statement 1 refused by the Spanner emulator in both dialects: GoogleSQL: ", "; PostgreSQL: ",
      "(statement: CREATE TABLE A (x INT64 NOT NULL,, y INT64) PRIMARY KEY (x))"]),
])
def test_refused_ddl_is_one_line_with_file_statement_and_message_exit_2(spanner_emulator, tmp_path, ddl, expected):
    schema = write(tmp_path, "bad.sql", ddl)
    result = keybench("check", str(schema), timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"keybench: error: {schema}: ")
    for fragment in expected:
        assert fragment in line


@pytest.mark.parametrize("setup, message", [
    (lambda p: (p / "missing.sql", None), "missing.sql: no such file"),
    (lambda p: (write(p, "empty.sql", "-- only a comment\n"), None), "empty.sql: no DDL statement in it"),
    (lambda p: (write(p, "o.sql", ORDERS_BY_COMMIT_TIME), write(p, "c.toml", 'CustomerId = "gaussian"\n')),
     "CustomerId: unknown distribution 'gaussian'; valid: sequential, random, uuid4"),
    (lambda p: (write(p, "o.sql", ORDERS_BY_COMMIT_TIME), write(p, "c.toml", 'CustomerID = "random"\n')),
     "no such column in the schema: CustomerID"),
])
def test_bad_input_is_one_clear_error(spanner_emulator, tmp_path, setup, message):
    schema, columns = setup(tmp_path)
    with pytest.raises(KeybenchError, match=message.replace("(", r"\(")):
        check(CheckRequest(schema=schema, columns=columns))


# The five drafts in PostgreSQL, read in one scratch database (one check, auto-detected):
# 1. orders keyed by a commit timestamp; 2. the same keyed by (customerid, orderts), as PostgreSQL
# has no DESC key column; 3. a uuid key with an index on createdat; 4. interleaved order items;
# 5. a bit-reversed sequence key (and a bit-reversed identity column).
SHOP_POSTGRESQL = """
CREATE SEQUENCE customersequence BIT_REVERSED_POSITIVE;
CREATE TABLE customers (
  customerid bigint NOT NULL DEFAULT nextval('customersequence'),
  name varchar,
  PRIMARY KEY (customerid)
);
CREATE TABLE orderitems (
  customerid bigint NOT NULL,
  itemid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  quantity bigint,
  PRIMARY KEY (customerid, itemid)
) INTERLEAVE IN PARENT customers ON DELETE CASCADE;
CREATE TABLE OrdersByTime (
  orderts spanner.commit_timestamp NOT NULL,
  customerid bigint NOT NULL,
  amount double precision,
  PRIMARY KEY (orderts, customerid)
);
CREATE TABLE ordersbycustomer (
  customerid bigint NOT NULL,
  orderts spanner.commit_timestamp NOT NULL,
  amount double precision,
  PRIMARY KEY (customerid, orderts)
);
CREATE TABLE events (
  eventid varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  createdat timestamptz,
  kind varchar(20),
  PRIMARY KEY (eventid)
);
CREATE INDEX eventsbycreatedat ON events (createdat) INCLUDE (kind) WHERE createdat IS NOT NULL;
CREATE TABLE accounts (
  accountid bigint GENERATED BY DEFAULT AS IDENTITY (BIT_REVERSED_POSITIVE),
  PRIMARY KEY (accountid)
);
"""
# A stated name folds to lower case as PostgreSQL folds the unquoted names of the DDL.
SHOP_POSTGRESQL_COLUMNS = """
OrdersByTime.CustomerId = { distribution = "categorical", values = 100000 }
ordersbycustomer.customerid = { distribution = "categorical", values = 100000 }
"""
SMALL_ROWS = 5_000  # enough for each verdict here, a tenth of the default's modelling time


@pytest.fixture(scope="module")
def postgresql_report(spanner_emulator, tmp_path_factory):
    directory = tmp_path_factory.mktemp("shop_postgresql")
    return check(CheckRequest(schema=write(directory, "shop.sql", SHOP_POSTGRESQL), rows=SMALL_ROWS,
                              columns=write(directory, "columns.toml", SHOP_POSTGRESQL_COLUMNS)))


def after_fixes(lines: list[str]) -> list[str]:
    return lines[lines.index("after the fixes (the fixed DDL applied to the emulator and checked again):") + 1:]


def test_auto_detection_reads_postgresql_ddl_and_says_so(postgresql_report):
    assert "shop.sql: PostgreSQL DDL, 6 table(s), 1 index(es); verdicts from the split model over 5,000" \
        in postgresql_report.lines[0]


def test_postgresql_a_commit_timestamp_first_key_is_a_hotspot_and_the_swap_fix_spreads(postgresql_report):
    orders = section(postgresql_report.lines, "table ordersbytime: key (orderts, customerid)")
    assert "verdict: hotspot (hot_node_share 1.000" in orders
    assert "assumes orderts = time: spanner.commit_timestamp: the commit time" in orders
    assert "assumes customerid = categorical (100,000 values): stated in columns.toml" in orders
    assert "fix: swap the key order: customerid before orderts, PRIMARY KEY (customerid, orderts)" in orders
    assert ("CREATE TABLE ordersbytime (\n        orderts spanner.commit_timestamp NOT NULL,\n"
            "        customerid bigint NOT NULL,\n        amount double precision,\n"
            "        PRIMARY KEY (customerid, orderts)\n      );") in orders
    assert " DESC" not in orders
    assert any(line.startswith("  table ordersbytime: key (customerid, orderts): spread")
               for line in after_fixes(postgresql_report.lines))


@pytest.mark.parametrize("title, assumption", [
    ("table ordersbycustomer: key (customerid, orderts)", "assumes orderts = time: spanner.commit_timestamp"),
    ("table events: key (eventid)", "assumes eventid = uuid4: DEFAULT (spanner.generate_uuid()): version-4 UUIDs"),
    ("table orderitems: key (customerid, itemid)", "assumes customerid = bit_reversed: the key of parent customers"),
    ("table customers: key (customerid)",
     "assumes customerid = bit_reversed: DEFAULT from sequence customersequence, bit_reversed_positive"),
    ("table accounts: key (accountid)",
     "assumes accountid = bit_reversed: GENERATED BY DEFAULT AS IDENTITY (BIT_REVERSED_POSITIVE)"),
])
def test_postgresql_designs_that_spread_are_spread_with_no_fix(postgresql_report, title, assumption):
    space = section(postgresql_report.lines, title)
    assert "verdict: spread" in space and assumption in space and "fix:" not in space


def test_postgresql_an_index_on_createdat_hotspots_alone_and_is_sharded_in_postgresql(postgresql_report):
    index = section(postgresql_report.lines, "index events.eventsbycreatedat: key (createdat, eventid)")
    assert "verdict: hotspot" in index and "assumes createdat = time: a timestamptz named for the write's time" in index
    assert "shardid bigint GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(createdat::text), 16)) STORED," in index
    assert ("CREATE INDEX eventsbycreatedat ON events (shardid, createdat) INCLUDE (kind) "
            "WHERE createdat IS NOT NULL;") in index
    assert any(line.startswith("  index events.eventsbycreatedat: key (shardid, createdat, eventid): spread")
               for line in after_fixes(postgresql_report.lines))
    assert postgresql_report.exit_code == 0


def test_the_refusal_of_the_dialect_that_got_further_is_reported(spanner_emulator, tmp_path):
    schema = write(tmp_path, "bad.sql", "CREATE TABLE a (x bigint NOT NULL, PRIMARY KEY (x));\n"
                                        "CREATE TABLE b (x bigint NOT NULL, PRIMARY KEY (y));\n")
    with pytest.raises(KeybenchError, match=r"statement 2 refused by the Spanner emulator \(PostgreSQL\)"):
        check(CheckRequest(schema=schema))


def test_dialect_postgresql_refuses_googlesql_ddl(spanner_emulator, tmp_path):
    schema = write(tmp_path, "orders.sql", ORDERS_BY_COMMIT_TIME)
    with pytest.raises(KeybenchError, match=r"statement 1 refused by the Spanner emulator \(PostgreSQL\)"):
        check(CheckRequest(schema=schema, dialect="postgresql"))


def _scratch_databases() -> set[str]:
    from google.api_core.exceptions import NotFound
    from google.cloud import spanner

    from keybench.check.reader import DATABASE_PREFIX
    from keybench.infra.target import INSTANCE, PROJECT

    client = spanner.Client(project=PROJECT)
    try:
        names = {d.name.rsplit("/", 1)[-1] for d in client.instance(INSTANCE).list_databases()}
    except NotFound:  # no instance yet: no database either
        names = set()
    finally:
        client.close()
    return {n for n in names if n.startswith(DATABASE_PREFIX)}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1],
                         ids=lambda s: s.name)
def test_a_signal_ends_the_check_in_one_line_and_drops_its_scratch_database(spanner_emulator, tmp_path, signum):
    """CI cancels a job with SIGTERM: the check ends as Ctrl-C ends it, through its cleanup."""
    schema = write(tmp_path, "shop.sql", SHOP)
    before = _scratch_databases()
    check_run = subprocess.Popen([sys.executable, "-m", "keybench.cli", "check", str(schema)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not _scratch_databases() - before:  # signalled while its scratch database exists
            assert check_run.poll() is None, check_run.communicate()
            assert time.monotonic() < deadline, "the check never created its scratch database"
            time.sleep(0.02)
        check_run.send_signal(signum)
        _, stderr = check_run.communicate(timeout=120)
    finally:
        if check_run.poll() is None:
            check_run.kill()
            check_run.wait()
    assert check_run.returncode == 128 + signum, stderr
    assert stderr.splitlines() == [f"keybench: interrupted by {signum.name}"], stderr
    assert _scratch_databases() - before == set(), "the check left its scratch database behind"


# A schema as real ones are: a graph and a vector index this emulator's version lacks, roles
# and grants it refuses, a search index, a change stream and a view it takes, and a foreign key
# whose backing index Spanner creates itself. The keys are what they always were.
REAL_WORLD = """
CREATE TABLE Customers (
  CustomerId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
  Name STRING(MAX),
  Name_Tokens TOKENLIST AS (TOKENIZE_FULLTEXT(Name)) HIDDEN,
) PRIMARY KEY (CustomerId);
CREATE TABLE Orders (
  OrderTs TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
  OrderNumber INT64 NOT NULL,
  CustomerId STRING(36),
  CONSTRAINT FK_OrdersCustomer FOREIGN KEY (CustomerId) REFERENCES Customers (CustomerId),
) PRIMARY KEY (OrderTs, OrderNumber);
CREATE SEARCH INDEX CustomersByName ON Customers(Name_Tokens);
CREATE PROPERTY GRAPH Shop NODE TABLES (Customers, Orders);
CREATE VECTOR INDEX CustomersByEmbedding ON Customers(Name) OPTIONS (distance_type = 'COSINE');
CREATE ROLE analyst;
GRANT SELECT ON TABLE Orders TO ROLE analyst;
CREATE CHANGE STREAM Everything FOR ALL;
CREATE VIEW RecentOrders SQL SECURITY INVOKER AS SELECT o.OrderTs FROM Orders AS o;
"""


@pytest.fixture(scope="module")
def real_world_report(spanner_emulator, tmp_path_factory):
    schema = write(tmp_path_factory.mktemp("real"), "schema.sql", REAL_WORLD)
    columns = write(schema.parent, "columns.toml", 'OrderNumber = "random"\n')
    return check(CheckRequest(schema=schema, columns=columns, rows=10_000))


def test_statements_that_define_no_key_are_skipped_with_a_note_and_the_rest_is_checked(real_world_report):
    notes = [line for line in real_world_report.lines if line.startswith("note: ")]
    skipped = {line.split("(", 1)[1].split(")", 1)[0] for line in notes if " skipped: " in line}
    assert skipped == {"PROPERTY GRAPH", "VECTOR INDEX", "ROLE", "GRANT"}, notes
    assert all("it defines no key space, and this Spanner emulator" in line for line in notes if " skipped: " in line)
    assert "note: statement 4 (PROPERTY GRAPH) skipped" in "\n".join(notes)
    assert real_world_report.exit_code == 0
    assert section(real_world_report.lines, "table Customers: key (CustomerId)").splitlines()[1].startswith(
        "  verdict: spread")


def test_a_search_index_is_no_key_ordered_range_and_is_not_modelled(real_world_report):
    assert "note: search index CustomersByName not modelled: it keeps tokens, not rows in key order" in \
        real_world_report.lines
    assert not any("CustomersByName" in line for line in real_world_report.lines if line.startswith("index "))


def test_the_foreign_keys_backing_index_is_marked_as_spanners_and_gets_no_create_index_fix(real_world_report):
    [title] = [line for line in real_world_report.lines if line.startswith("index Orders.IDX_Orders_CustomerId")]
    assert title.endswith("(Spanner's own, backing a foreign key): key (CustomerId, OrderTs, OrderNumber)")
    block = section(real_world_report.lines, title)
    assert "CREATE INDEX" not in block and "DROP INDEX" not in block


def test_the_fix_of_a_schema_with_skipped_statements_is_applied_and_checked_again(real_world_report):
    orders = section(real_world_report.lines, "table Orders: key (OrderTs, OrderNumber)")
    assert "verdict: hotspot" in orders and "fix: swap the key order" in orders
    after = real_world_report.lines.index("after the fixes (the fixed DDL applied to the emulator and checked "
                                          "again):")
    assert any(line.startswith("  table Orders: key (OrderNumber, OrderTs): spread")
               for line in real_world_report.lines[after:]), real_world_report.lines[after:]


def test_a_refused_statement_that_defines_a_key_still_ends_the_check(spanner_emulator, tmp_path):
    schema = write(tmp_path, "bad.sql", REAL_WORLD + "CREATE TABLE Broken (Id INT64 NOT NULL) PRIMARY KEY (Nope);\n")
    result = keybench("check", str(schema), timeout=120)
    assert result.returncode == 2 and "statement 10 refused by the Spanner emulator" in result.stderr, result.stderr


def _migrations(folder, files: dict[str, str]):
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text))
    return folder


# A migration folder as tools write it: numbered files (V10 after V2), columns added and dropped
# after the table's creation, and a down-migration that must never be applied.
MIGRATIONS = {
    "V1__events.sql": """
        CREATE TABLE Events (
          CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
          EventNumber INT64 NOT NULL,
        ) PRIMARY KEY (CreatedAt, EventNumber);
    """,
    "V2__payload.sql": """
        ALTER TABLE Events ADD COLUMN Payload STRING(MAX);
        ALTER TABLE Events ADD COLUMN Obsolete INT64;
    """,
    "V3__cleanup.sql": "ALTER TABLE Events DROP COLUMN Obsolete;\n",
    "V3__cleanup.down.sql": "ALTER TABLE Events ADD COLUMN Obsolete INT64;\n",
    "V10__retention.sql": """
        ALTER TABLE Events ADD ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 30 DAY));
        CREATE INDEX EventsByPayload ON Events(Payload);
    """,
}


def test_a_migration_folder_is_judged_as_it_stands_after_its_last_migration_and_its_fix_rechecks(
        spanner_emulator, tmp_path):
    folder = _migrations(tmp_path / "migrations", MIGRATIONS)
    columns = write(tmp_path, "columns.toml", 'EventNumber = "random"\nPayload = "random"\n')
    result = keybench("check", str(folder), "--columns", str(columns), "--rows", "10000", timeout=300)
    assert result.returncode == 0, result.stderr
    events = section(result.stdout.splitlines(), "table Events: key (CreatedAt, EventNumber)")
    assert "verdict: hotspot" in events and "fix: swap the key order" in events
    assert "Payload STRING(MAX)" in events and "Obsolete" not in events
    after = result.stdout.split("after the fixes (the fixed DDL applied to the emulator and checked again):")[1]
    assert "table Events: key (EventNumber, CreatedAt): spread" in after


@pytest.mark.parametrize("files, message", [
    ({}, "migrations: a folder with no .sql, .ddl, .sdl or .tf file in it"),
    ({**MIGRATIONS, "V4__broken.sql": "ALTER TABLE Events ADD COLUMN Payload STRING(MAX);\n"},
     "migrations: V4__broken.sql statement 1 refused by the Spanner emulator"),
])
def test_a_bad_migration_folder_is_one_line_naming_the_file_and_statement(spanner_emulator, tmp_path, files,
                                                                          message):
    folder = _migrations(tmp_path / "migrations", files)
    folder.mkdir(exist_ok=True)
    result = keybench("check", str(folder), timeout=300)
    assert result.returncode == 2 and result.stdout == "", result.stdout
    [line] = result.stderr.splitlines()
    assert message in line, line


# goose's files: the down section drops what the up one made (the index is the hotspot).
GOOSE = {
    "00001_orders.sql": """
        -- +goose Up
        -- +goose StatementBegin
        CREATE TABLE Orders (
          OrderId STRING(36) NOT NULL,
          PlacedAt TIMESTAMP NOT NULL,
        ) PRIMARY KEY (OrderId);
        -- +goose StatementEnd

        -- +goose Down
        DROP TABLE Orders;
    """,
    "00002_by_time.sql": """
        -- +goose Up
        CREATE INDEX OrdersByPlacedAt ON Orders(PlacedAt);

        -- +goose Down
        DROP INDEX OrdersByPlacedAt;
    """,
}


def test_goose_migrations_are_judged_and_saved_from_their_up_sections(spanner_emulator, tmp_path):
    folder = _migrations(tmp_path / "migrations", GOOSE)
    result = keybench("check", str(folder), "--rows", "10000", "--fail-on-verdict", "hotspot", timeout=300,
                      env={"COLUMNS": "60"})
    assert result.returncode == 1, result.stderr
    assert "index Orders.OrdersByPlacedAt: key (PlacedAt, OrderId)" in result.stdout
    # the FAIL line is whole in a narrow log, for `grep FAIL`
    [failed] = [line for line in result.stdout.splitlines() if line.startswith("FAIL ")]
    assert re.fullmatch(r"FAIL index Orders\.OrdersByPlacedAt: hotspot \(hot_node_share .*\)", failed), failed
    # one file of both: the strategy it saves keeps the bookkeeping columns out of the down section
    whole = write(tmp_path, "whole.sql", "\n".join(textwrap.dedent(text) for text in GOOSE.values()))
    saved = tmp_path / "saved"
    result = keybench("check", str(whole), "--rows", "10000", "--save-strategy", str(saved), timeout=300)
    assert result.returncode == 0, result.stderr
    statements = split_ddl((saved / "spanner" / "orders" / "googlesql.sql").read_text())
    assert "ALTER TABLE Orders ADD COLUMN KeybenchTime TIMESTAMP" in statements
    assert not any(s.startswith("DROP") for s in statements), statements
    # a tool keybench does not know: its undo statements leave no table, and the error says why
    (folder / "00003_undo.sql").write_text("DROP INDEX OrdersByPlacedAt;\nDROP TABLE Orders;\n")
    result = keybench("check", str(folder), timeout=300)
    assert result.returncode == 2 and "later statements drop every table it creates" in result.stderr, result.stderr


def test_a_terraform_files_ddl_is_judged_and_its_findings_point_into_it(spanner_emulator, tmp_path):
    main = write(tmp_path, "main.tf", textwrap.dedent("""
        resource "google_spanner_database" "orders" {
          instance = "main"
          name     = "orders"
          ddl = [
            <<-EOT
            CREATE TABLE Orders (
              OrderId STRING(36) NOT NULL,
              PlacedAt TIMESTAMP NOT NULL,
            ) PRIMARY KEY (OrderId)
            EOT
            , "CREATE INDEX OrdersByPlacedAt ON Orders(PlacedAt)",
          ]
        }
    """))
    result = keybench("check", str(main), "--rows", "10000", "--format", "sarif", "--fail-on-verdict", "hotspot",
                      timeout=300)
    assert result.returncode == 1, result.stderr
    [finding] = json.loads(result.stdout)["runs"][0]["results"]
    [location] = finding["locations"]
    assert "OrdersByPlacedAt" in finding["message"]["text"]
    assert location["physicalLocation"]["region"]["startLine"] == 12, location


def test_a_postgresql_migration_folder_adds_columns_without_the_word_column(spanner_emulator, tmp_path):
    folder = _migrations(tmp_path / "db", {
        "001_events.sql": "CREATE TABLE events (createdat spanner.commit_timestamp NOT NULL, eventnumber bigint NOT "
                          "NULL, PRIMARY KEY (createdat, eventnumber));\n",
        "002_payload.sql": "ALTER TABLE events ADD payload varchar;\nALTER TABLE events ADD COLUMN obsolete bigint;\n",
        "003_cleanup.sql": "ALTER TABLE events DROP obsolete;\nALTER TABLE events ADD COLUMN note varchar;\n",
    })
    columns = write(tmp_path, "columns.toml", 'eventnumber = "random"\n')
    result = keybench("check", str(folder), "--columns", str(columns), "--rows", "10000", timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"keybench check {folder}: PostgreSQL DDL, 1 table(s)")
    events = section(result.stdout.splitlines(), "table events: key (createdat, eventnumber)")
    assert "verdict: hotspot" in events and "payload varchar" in events and "obsolete" not in events
    assert "table events: key (eventnumber, createdat): spread" in result.stdout.split("after the fixes")[1]


# Expected before running: the journal's index on (tag, sequence_nr) with tag stated as 5 values
# is judged by sequence_nr (5 append points if it counts up, spread if random), the table's key
# (a UUID-named id first) is spread whatever sequence_nr holds, so sequence_nr is not blamed
# there; under --strict nothing is taken from a name, so the id and CreatedAt decide.
GUESSES = """
CREATE TABLE Journal (
  PersistenceId STRING(36) NOT NULL,
  sequence_nr INT64 NOT NULL,
  tag STRING(20),
) PRIMARY KEY (PersistenceId, sequence_nr);
CREATE INDEX JournalByTag ON Journal(tag, sequence_nr);
CREATE TABLE Players (
  PlayerKey BYTES(16) NOT NULL,
  email STRING(MAX),
  CreatedAt TIMESTAMP,
) PRIMARY KEY (PlayerKey);
CREATE INDEX PlayersByEmail ON Players(email);
CREATE INDEX PlayersByCreation ON Players(CreatedAt);
"""


@pytest.mark.parametrize("strict", [False, True], ids=["guesses", "strict"])
def test_guesses_from_names_give_a_definite_answer_marked_as_a_guess_and_strict_takes_none(
        spanner_emulator, tmp_path, strict):
    schema = write(tmp_path, "s.sql", GUESSES)
    columns = write(tmp_path, "c.toml", 'tag = { distribution = "categorical", values = 5 }\n')
    lines = check(CheckRequest(schema=schema, columns=columns, rows=20_000, strict=strict)).lines
    verdict = {title: section(lines, title).splitlines()[1] for title in (
        "table Journal: key (PersistenceId, sequence_nr)", "index Journal.JournalByTag",
        "table Players: key (PlayerKey)", "index Players.PlayersByEmail", "index Players.PlayersByCreation")}
    if not strict:
        assert verdict["table Journal: key (PersistenceId, sequence_nr)"].startswith(
            "  verdict: spread whatever sequence_nr holds")
        assert "if sequence_nr is sequential" in verdict["index Journal.JournalByTag"]
        assert verdict["table Players: key (PlayerKey)"].startswith("  verdict: spread (")
        assert verdict["index Players.PlayersByEmail"].startswith("  verdict: spread (")
        assert verdict["index Players.PlayersByCreation"].startswith("  verdict: hotspot (")
        assert "(a guess from its name: state it with --columns if it is wrong)" in section(
            lines, "table Players: key (PlayerKey)")
    else:
        assert "hotspot if PersistenceId and sequence_nr are sequential; spread if PersistenceId and sequence_nr " \
               "are random" in verdict["table Journal: key (PersistenceId, sequence_nr)"]
        for title in ("table Players: key (PlayerKey)", "index Players.PlayersByCreation"):
            assert verdict[title].startswith("  verdict: inconclusive: hotspot if"), verdict[title]
        assert "--strict takes no guess from a name" in section(lines, "table Players: key (PlayerKey)")


ORDER_MIGRATIONS = {
    "001_users.sql": "CREATE TABLE Users (UserId STRING(36) NOT NULL DEFAULT (GENERATE_UUID())) PRIMARY KEY (UserId);",
    "002_orders.sql": """
        CREATE TABLE Orders (OrderId INT64 NOT NULL, UserId STRING(36),
          CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
          CONSTRAINT FK_OrderUser FOREIGN KEY (UserId) REFERENCES Users (UserId)) PRIMARY KEY (OrderId),
          ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 30 DAY));
        CREATE INDEX OrdersByTime ON Orders(CreatedAt);
        INSERT INTO Users (UserId) VALUES ('seed');""",
    "003_note.sql": "ALTER TABLE Orders ADD COLUMN Note STRING(MAX);",
}


def test_a_migration_folder_gets_fixes_a_team_can_apply_and_a_new_table_that_keeps_all_it_had(spanner_emulator,
                                                                                             tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for name, text in ORDER_MIGRATIONS.items():
        (folder / name).write_text(text)
    (tmp_path / "columns.toml").write_text('OrderId = "sequential"\n')
    report = check(CheckRequest(schema=folder, columns=tmp_path / "columns.toml"))
    lines = report.lines
    assert "note: 1 INSERT statement(s) skipped (002_orders.sql statement 3): not DDL, no bearing on keys" in lines
    index = section(lines, "index Orders.OrdersByTime: key (CreatedAt, OrderId)")
    assert "read cost: a range read through the index becomes one read per shard value" in index
    assert ("apply to the schema as it stands:\n      ALTER TABLE Orders ADD COLUMN ShardId INT64 NOT NULL AS "
            "(MOD(FARM_FINGERPRINT(CAST(OrderId AS STRING)), 16)) STORED;\n      DROP INDEX OrdersByTime;\n"
            "      CREATE INDEX OrdersByTime ON Orders(ShardId, CreatedAt);") in index
    table = section(lines, "table Orders: key (OrderId)")
    assert "needs a new table: Spanner never changes a table's primary key" in table
    assert "        Note STRING(MAX),\n      ) PRIMARY KEY (OrderId),\n        ROW DELETION POLICY " \
           "(OLDER_THAN(CreatedAt, INTERVAL 30 DAY));" in table, "the migration's column and the policy are kept"
    assert "      ALTER TABLE Orders ADD CONSTRAINT FK_OrderUser FOREIGN KEY(UserId) REFERENCES Users(UserId);" in table
    assert "or keep the table: create the sequence with skip_range_min = 1" in table
    assert "the statements to apply (3) apply to the schema as it stands: the emulator took them after the " \
           "schema's own" in lines
    after = lines[lines.index("after the fixes (the fixed DDL applied to the emulator and checked again):"):]
    assert all(": spread" in line for line in after[1:] if line.startswith("  table") or line.startswith("  index"))


def test_a_real_schema_s_statements_the_emulator_lacks_are_rewritten_and_noted(spanner_emulator, tmp_path):
    path = tmp_path / "gorm.sql"
    path.write_text("START BATCH DDL;\nCREATE TABLE singers (id serial PRIMARY KEY, name varchar);\n"
                    "CREATE TABLE messages (session_id varchar NOT NULL, at spanner.commit_timestamp NOT NULL,\n"
                    "  PRIMARY KEY (session_id, at ASC));\nRUN BATCH;\n")
    lines = check(CheckRequest(schema=path)).lines
    assert "note: 1 START BATCH statement(s) skipped (statement 1): not DDL, no bearing on keys" in lines
    assert any(line.startswith("note: statement 2 rewritten for this Spanner emulator") and line.endswith(
        "serial read as an identity column of Spanner's one sequence kind, bit_reversed_positive") for line in lines)
    assert any(line.startswith("note: statement 3 rewritten") and "ASC left out of its PRIMARY KEY" in line
               for line in lines)
    assert section(lines, "table singers: key (id)").splitlines()[1].startswith("  verdict: spread")


def test_a_primary_key_written_inside_the_column_list_is_moved_after_it_and_keeps_its_order(spanner_emulator,
                                                                                             tmp_path):
    # Cloud Spanner takes PRIMARY KEY (...) as an element of the column list (as goose
    # migrations write it); this emulator refuses it, so the check moves it, in one note.
    path = tmp_path / "baseline.sql"
    path.write_text("CREATE TABLE Events (Id STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), Note STRING(MAX) "
                    "DEFAULT ('a, (b'), PRIMARY KEY (Id));\n"
                    "CREATE TABLE Readings (Id STRING(36) NOT NULL, Taken TIMESTAMP NOT NULL OPTIONS "
                    "(allow_commit_timestamp = true),\n  PRIMARY KEY (Id, Taken DESC)\n), "
                    "INTERLEAVE IN PARENT Events;\n"
                    "CREATE TABLE Log (Taken TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true), "
                    "Seq INT64 NOT NULL, PRIMARY KEY (Taken, Seq));\n")
    lines = check(CheckRequest(schema=path)).lines
    assert any(line.startswith("note: statement 1, statement 2, statement 3 rewritten for this Spanner emulator")
               and line.endswith("which refused them as written: its PRIMARY KEY moved from the column list to "
                                 "after it (the same key)") for line in lines), lines
    assert section(lines, "table Events: key (Id)").splitlines()[1].startswith("  verdict: spread")
    assert section(lines, "table Readings: key (Id, Taken DESC)").splitlines()[1].startswith("  verdict: spread")
    assert section(lines, "table Log: key (Taken, Seq)").splitlines()[1].startswith("  verdict: hotspot")


def test_an_interleaved_child_hot_through_its_root_s_key_takes_the_root_s_fix(spanner_emulator, tmp_path):
    path = tmp_path / "batches.sql"
    path.write_text("CREATE TABLE Batches (BatchId INT64 NOT NULL) PRIMARY KEY (BatchId);\n"
                    "CREATE TABLE Items (BatchId INT64 NOT NULL, ItemNo INT64 NOT NULL) PRIMARY KEY (BatchId, ItemNo),"
                    " INTERLEAVE IN PARENT Batches;\n")
    (tmp_path / "columns.toml").write_text('BatchId = "sequential"\n')
    lines = check(CheckRequest(schema=path, columns=tmp_path / "columns.toml")).lines
    items = section(lines, "table Items: key (BatchId, ItemNo)")
    assert "fix: the fix of Batches: its rows sit under the rows of Batches" in items
    assert "CREATE SEQUENCE ItemsBatchIdSequence" not in "\n".join(lines), "no sequence of its own for a copied key"
    assert any(line.startswith("  table Items: key (BatchId, ItemNo): spread") for line in lines)


def test_a_file_that_defines_no_table_is_one_line_and_exit_2(spanner_emulator, tmp_path):
    path = tmp_path / "seed.sql"
    path.write_text("INSERT INTO Users (UserId) VALUES (1);\nSELECT 1;\n")
    done = keybench("check", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"keybench: error: {path}: no CREATE TABLE in it, so no key to judge (1 INSERT statement(s) skipped "
        "(statement 1): not DDL, no bearing on keys; 1 SELECT statement(s) skipped (statement 2): not DDL, no "
        "bearing on keys)"]


def test_several_files_are_applied_in_the_order_given_and_named_in_a_refusal(spanner_emulator, tmp_path):
    (tmp_path / "base.sql").write_text("CREATE TABLE Users (UserId STRING(36) NOT NULL) PRIMARY KEY (UserId);")
    (tmp_path / "later.sql").write_text("ALTER TABLE Users ADD COLUMN CreatedAt TIMESTAMP;\n"
                                        "CREATE INDEX UsersByCreatedAt ON Users(CreatedAt);")
    report = check(CheckRequest(schema=tmp_path / "base.sql", more_schemas=(tmp_path / "later.sql",)))
    assert report.lines[0].startswith(f"keybench check {tmp_path / 'base.sql'} {tmp_path / 'later.sql'}: GoogleSQL")
    assert "index Users.UsersByCreatedAt: key (CreatedAt, UserId)" in report.lines
    with pytest.raises(KeybenchError, match=r"later\.sql statement 1 refused by the Spanner emulator"):
        check(CheckRequest(schema=tmp_path / "later.sql", more_schemas=(tmp_path / "base.sql",)))


def test_an_index_fixed_beside_its_tables_new_key_hashes_a_column_the_table_has_now(spanner_emulator, tmp_path):
    """A commit-time-first table gets a new table with ShardId first; its index on that time got
    ShardId2 = a hash of ShardId, which only the new table has (and has 31 values): the
    statements to apply to the schema as it stands were refused."""
    schema = write(tmp_path, "events.sql", """
        CREATE TABLE Events (
          Id INT64 NOT NULL,
          At_ TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
        ) PRIMARY KEY (At_, Id);
        CREATE INDEX EventsByTime ON Events(At_ DESC);
        """)
    report = check(CheckRequest(schema=schema, rows=5_000))
    text = "\n".join(report.lines)
    assert "ShardId2 INT64 NOT NULL AS (MOD(FARM_FINGERPRINT(CAST(Id AS STRING)), 16)) STORED" in text.replace(
        "\n      ", " ").replace("\n          ", " "), text
    assert "the statements to apply (3) apply to the schema as it stands" in text, text
