"""`keybench check SCHEMA.sql` against the real Spanner emulator: the DDL is the emulator's to
read, the verdicts follow the design, the fixes are applied and checked again, and bad input
is one line with exit code 2."""

from __future__ import annotations

import textwrap

import pytest

from loadtests.check.command import check
from loadtests.check.request import CheckRequest
from loadtests.errors import KeybenchError
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
    start = lines.index(title) if title in lines else next(i for i, l in enumerate(lines) if l.startswith(title))
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
    after = report.lines[report.lines.index("after the fixes (the fixed DDL applied to the emulator and checked again):") + 1]
    assert after.startswith("  table Orders: key (CustomerId, OrderTs): spread")
    assert report.exit_code == 0


def test_an_uninferable_int64_key_column_is_named_never_guessed(spanner_emulator, tmp_path):
    schema = write(tmp_path, "orders.sql", ORDERS_BY_COMMIT_TIME.replace("(OrderTs, CustomerId)", "(CustomerId, OrderTs)"))
    report = check(CheckRequest(schema=schema))
    orders = section(report.lines, "table Orders: key (CustomerId, OrderTs)")
    assert "verdict: inconclusive: it depends on CustomerId, which keybench cannot infer" in orders
    assert "as sequential: hotspot" in orders and "as random: spread" in orders
    assert "assumes CustomerId = unknown: a INT64 with no default or option that tells its values" in orders
    assert "state it with --columns" in orders


@pytest.fixture(scope="module")
def shop_report(spanner_emulator, tmp_path_factory):
    schema = write(tmp_path_factory.mktemp("shop"), "shop.sql", SHOP)
    return check(CheckRequest(schema=schema, fail_on=("hotspot", "hot_row")))


def test_a_bit_reversed_sequence_key_spreads(shop_report):
    customers = section(shop_report.lines, "table Customers: key (CustomerId)")
    assert "verdict: spread" in customers
    assert "assumes CustomerId = bit_reversed: DEFAULT from sequence CustomerSequence, bit_reversed_positive" in customers


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
    assert any(l.startswith("  index Events.EventsByCreatedAt: key (ShardId, CreatedAt, EventId): spread")
               for l in shop_report.lines)


def test_fail_on_verdict_lists_each_offender_on_one_line_and_exits_1(shop_report):
    failures = [l for l in shop_report.lines if l.startswith("FAIL ")]
    assert failures == [f for f in failures if "Events.EventsByCreatedAt: hotspot" in f] and len(failures) == 1
    assert shop_report.exit_code == 1


def test_refused_ddl_is_one_line_with_file_statement_and_message_exit_2(spanner_emulator, tmp_path):
    schema = write(tmp_path, "bad.sql", "CREATE TABLE A (x INT64) PRIMARY KEY (x);\n"
                                        "CREATE TABLE B (x INT64) PRIMARY KEY (y);\n")
    result = keybench("check", str(schema), timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert f"{schema}: statement 2 refused by the Spanner emulator" in line
    assert "nonexistent key column y" in line and "CREATE TABLE B (x INT64) PRIMARY KEY (y)" in line


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
