"""`keybench check --save-strategy`: the drafts the check judged, written as strategy folders
and read back by the catalogue's own loader with the same key parts. GoogleSQL without a
database: the schema is built as the emulator's INFORMATION_SCHEMA would describe it;
PostgreSQL as the emulator reads it, its saved fixture applied and written to there."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from keybench.backends import open_backend
from keybench.check.command import check
from keybench.check.inference import Distribution, infer
from keybench.check.keyspaces import key_distributions, table_strategy
from keybench.check.reader import load_schema
from keybench.check.request import CheckRequest
from keybench.check.save import spanner_draft, template_draft, without_foreign_keys
from keybench.check.schema import GOOGLESQL, POSTGRESQL, Column, Index, KeyColumn, Schema, Table
from keybench.check.template import parse_template, template_strategy
from keybench.design.ddl import split_ddl
from keybench.design.events import WriteEvent
from keybench.design.folders import save_strategies
from keybench.design.plans import Span
from keybench.design.strategies import load_strategy, user_strategies
from keybench.errors import KeybenchError
from keybench.infra.target import INSTANCE, PROJECT, location_name
from tests.conftest import keybench

DDL = """-- a shop
CREATE TABLE Orders (
  OrderId STRING(36) NOT NULL,
  CreatedAt TIMESTAMP NOT NULL,
  Region STRING(8) NOT NULL,
  Total NUMERIC NOT NULL,
  Tags ARRAY<STRING(10)> NOT NULL,
  Comment STRING(MAX),
) PRIMARY KEY (CreatedAt DESC, OrderId);
CREATE INDEX OrdersByRegion ON Orders(Region);
CREATE TABLE Lines (
  CreatedAt TIMESTAMP NOT NULL,
  OrderId STRING(36) NOT NULL,
  LineNo INT64 NOT NULL,
) PRIMARY KEY (CreatedAt DESC, OrderId, LineNo), INTERLEAVE IN PARENT Orders
"""
ORDERS = Table("Orders", (
    Column("OrderId", "STRING(36)", False), Column("CreatedAt", "TIMESTAMP", False),
    Column("Region", "STRING(8)", False), Column("Total", "NUMERIC", False),
    Column("Tags", "ARRAY<STRING(10)>", False), Column("Comment", "STRING(MAX)")),
    (KeyColumn("CreatedAt", True), KeyColumn("OrderId")))
LINES = Table("Lines", (Column("CreatedAt", "TIMESTAMP", False), Column("OrderId", "STRING(36)", False),
                        Column("LineNo", "INT64", False)),
              (KeyColumn("CreatedAt", True), KeyColumn("OrderId"), KeyColumn("LineNo")), parent="Orders")
SCHEMA = Schema((ORDERS, LINES), (Index("OrdersByRegion", "Orders", (KeyColumn("Region"),)),))
STATED = {"OrderId": Distribution("uuid4", "stated"), "Region": Distribution("categorical", "stated", 12)}


def shape(parts) -> list[tuple]:
    return [(p.name, p.role, p.column, p.descending, p.buckets) for p in parts]


def saved(tmp_path: Path, stated: dict) -> tuple[list, Path]:
    drafts = [spanner_draft(SCHEMA, t, DDL, Path("shop.sql"), lambda t, c: infer(SCHEMA, t, c, stated))
               for t in SCHEMA.tables]
    folder = tmp_path / "mine"
    return save_strategies(drafts, folder), folder


def test_a_saved_table_loads_with_the_key_parts_the_check_judged(tmp_path):
    lines, folder = saved(tmp_path, STATED)
    loaded = user_strategies([folder], "spanner")
    assert list(loaded) == ["lines", "orders"]
    strategy = loaded["orders"]
    judged = table_strategy(SCHEMA, ORDERS, key_distributions(SCHEMA, ORDERS, lambda t, c: infer(SCHEMA, t, c, STATED)),
                            Path("shop.sql"))
    assert shape(strategy.parts) == shape(judged.parts)
    assert [(i.name, shape(i.parts)) for i in strategy.indexes] == [(i.name, shape(i.parts)) for i in judged.indexes]
    # the user's DDL is the fixture, with keybench's bookkeeping columns added outside every key
    assert strategy.ddl[0].startswith("CREATE TABLE Orders") and strategy.ddl[-1].startswith("ALTER TABLE Orders ADD")
    assert (strategy.time_column, strategy.write_id_column) == ("KeybenchTime", "KeybenchWriteId")
    # the index column is written as the index part computes it, the other NOT NULL columns filled by type
    assert [(p.column, p.name, p.sql_type) for p in strategy.extra_parts] == [
        ("Region", "category", "STRING(8)"), ("Total", "fill", "NUMERIC"), ("Tags", "fill", "ARRAY<STRING(10)>")]
    # no document claims anything about the user's design
    assert strategy.claim == "" and strategy.source.user and strategy.expectation == "none claimed (your own design)"
    # the interleaved child upserts its parent row, keyed by its own leading key columns, in its commit
    child = loaded["lines"]
    assert child.parent_rows.table == "Orders" and child.parent_rows.key_columns == 2
    assert [(p.column, p.name) for p in child.parent_rows.columns] == [("Region", "fill"), ("Total", "fill"), ("Tags",
                                                                                                               "fill")]
    assert child.parent_table is None  # the catalogue's UserId parent, which its reads also read, is another thing


def test_a_table_interleaved_two_levels_deep_is_left_out_with_the_reason(tmp_path):
    notes = Table("Notes", (*LINES.columns, Column("NoteId", "INT64", False)), (*LINES.key, KeyColumn("NoteId")),
                  parent="Lines")
    schema = Schema((ORDERS, LINES, notes))
    design = spanner_draft(schema, notes, DDL, Path("shop.sql"), lambda t, c: infer(schema, t, c, STATED))
    assert not design.files and design.skipped == (
        "interleaved in Lines, itself interleaved in Orders: keybench writes one level of parent rows")


def test_an_unknown_key_column_is_saved_as_its_worst_case_and_says_so(tmp_path):
    lines, folder = saved(tmp_path, {})
    strategy = load_strategy(folder / "spanner" / "orders", "spanner", "googlesql")
    # OrderId, a STRING(36) named as an id, reads as a UUID (a guess); Region tells nothing
    assert [(p.column, p.name) for p in strategy.parts] == [("CreatedAt", "ts"), ("OrderId", "uuid4_string")]
    assert "Region: distribution unknown, written as sequential" in strategy.note
    assert any("written as sequential" in line for line in lines)


def test_a_saved_template_loads_with_the_template_s_key_parts(tmp_path):
    template = "{device_type}#{device}#{salt:4}#{ts}"
    save_strategies([template_draft(template, [s.spec for s in parse_template(template)])], tmp_path / "bt")
    [strategy] = user_strategies([tmp_path / "bt"], "bigtable").values()
    assert strategy.name == "device_type_device_salt_4_ts"
    assert shape(strategy.parts) == shape(template_strategy(template, parse_template(template)).parts)
    assert strategy.separator == "#" and strategy.source.user


def test_a_not_null_column_of_a_type_keybench_cannot_write_is_one_line():
    table = Table("T", (Column("Id", "INT64", False), Column("P", "PROTO<a.B>", False)), (KeyColumn("Id"),))
    with pytest.raises(KeybenchError, match=r"T\.P is NOT NULL and keybench cannot generate values of type PROTO<a.B>"):
        spanner_draft(Schema((table,)), table, "CREATE TABLE T", Path("t.sql"), lambda t, c: infer(Schema((table,)), t,
                                                                                                   c, {}))


def test_an_existing_folder_is_never_overwritten(tmp_path):
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep me")
    with pytest.raises(KeybenchError, match="exists and is not an empty folder"):
        check(CheckRequest(bigtable="{device}#{ts}", save_to=folder))
    assert [p.name for p in folder.iterdir()] == ["mine.txt"]
    result = keybench("check", "--bigtable", "{device}#{ts}", "--save-strategy", str(folder))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"keybench: error: --save-strategy {folder}: exists and is not an empty folder; choose a new one"]


def test_a_table_whose_key_the_database_computes_is_left_out_with_the_reason():
    table = Table("T", (Column("Shard", "INT64", False, generated="MOD(FARM_FINGERPRINT(Name), 16)", stored=True),
                        Column("Name", "STRING(20)", False)), (KeyColumn("Shard"), KeyColumn("Name")))
    schema = Schema((table,))
    design = spanner_draft(schema, table, "CREATE TABLE T", Path("t.sql"), lambda t, c: infer(schema, t, c, {}))
    assert not design.files and design.skipped.startswith("key column(s) Shard generated AS (...) by the database")


# The shop in PostgreSQL, its names unquoted (stored in lower case): NOT NULL columns of the
# types PostgreSQL spells its own way, an index, an interleaved child, and a key the database
# generates (inserted by DML, each value a typed parameter).
SHOP_POSTGRESQL = """CREATE TABLE Orders (
  OrderId varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),
  CreatedAt timestamptz NOT NULL,
  Region varchar(8) NOT NULL,
  Total numeric NOT NULL,
  Tags varchar(10)[] NOT NULL,
  Doc jsonb NOT NULL,
  Paid boolean NOT NULL,
  Day date NOT NULL,
  Raw bytea NOT NULL,
  PRIMARY KEY (OrderId)
);
CREATE INDEX OrdersByRegion ON Orders (Region, CreatedAt);
CREATE TABLE Lines (
  OrderId varchar(36) NOT NULL,
  LineNo bigint NOT NULL,
  Price double precision NOT NULL,
  PRIMARY KEY (OrderId, LineNo)
) INTERLEAVE IN PARENT Orders;
CREATE SEQUENCE InvoiceSequence BIT_REVERSED_POSITIVE;
CREATE TABLE Invoices (
  InvoiceId bigint NOT NULL DEFAULT nextval('invoicesequence'),
  Amount numeric NOT NULL,
  Doc jsonb NOT NULL,
  PRIMARY KEY (InvoiceId)
)"""


@pytest.mark.emulator
def test_a_postgresql_table_is_saved_as_postgresql_sql_that_the_emulator_takes_and_writes_to(spanner_emulator,
                                                                                             tmp_path):
    source = tmp_path / "shop.sql"
    schema = load_schema(split_ddl(SHOP_POSTGRESQL), source, POSTGRESQL)
    stated = {"lineno": Distribution("sequential", "stated"), "region": Distribution("categorical", "stated", 12)}
    drafts = [spanner_draft(schema, t, SHOP_POSTGRESQL, source, lambda t, c: infer(schema, t, c, stated))
               for t in schema.tables]
    save_strategies(drafts, tmp_path / "mine")
    assert sorted(p.name for p in (tmp_path / "mine" / "spanner" / "orders").iterdir()) == ["postgresql.sql",
                                                                                           "strategy.toml"]
    assert user_strategies([tmp_path / "mine"], "spanner", "googlesql") == {}  # saved in one dialect, run in it only
    loaded = user_strategies([tmp_path / "mine"], "spanner", POSTGRESQL)
    assert list(loaded) == ["invoices", "lines", "orders"]
    for name, strategy in loaded.items():
        table = schema.table(name)
        judged = table_strategy(schema, table, key_distributions(schema, table, lambda t, c: infer(schema, t, c,
                                                                                                   stated)),
                                source)
        assert shape(strategy.parts) == shape(judged.parts)
        assert [(i.name, shape(i.parts)) for i in strategy.indexes] == [(i.name,
                                                                         shape(i.parts)) for i in judged.indexes]
    orders = loaded["orders"]
    assert [(p.column, p.name) for p in orders.parts] == [("orderid", "uuid4_string")]
    assert [(p.column, p.name, p.sql_type) for p in orders.extra_parts] == [
        ("region", "category", "STRING(8)"), ("createdat", "ts", "TIMESTAMP"), ("total", "fill", "NUMERIC"),
        ("tags", "fill", "ARRAY<STRING(10)>"), ("doc", "fill", "JSON"), ("paid", "fill", "BOOL"),
        ("day", "fill", "DATE"), ("raw", "fill", "BYTES(MAX)")]
    assert orders.ddl[-4:] == ("ALTER TABLE orders ADD COLUMN keybenchtime timestamptz",
                               "ALTER TABLE orders ADD COLUMN keybenchuserid bigint",
                               "ALTER TABLE orders ADD COLUMN keybenchwriteid varchar(64)",
                               "ALTER TABLE orders ADD COLUMN keybenchpayload varchar")
    assert loaded["lines"].parent_rows.table == "orders"
    assert [(p.column, p.name) for p in loaded["invoices"].parts] == [("invoiceid", "generated")]
    # the emulator takes each fixture, and the rows keybench writes: each value of its column's PostgreSQL type
    writes = [WriteEvent(i % 3 + 1, 1_795_000_000_000_000 + i * 1000, f"w-{i}", seq=i + 1) for i in range(4)]
    for strategy in loaded.values():
        db = open_backend(strategy, location_name(uuid.uuid4().hex[:6], strategy), PROJECT, INSTANCE)
        db.create()
        try:
            generator = strategy.key_generator(seed=1)
            written = [(db.insert(generator.key(e), e), e) for e in writes]
            assert sorted(db.write_ids()) == sorted(e.write_id for e in writes)
            key, event = written[2]  # the key as stored (a sequence makes the invoice's)
            [row] = db.read((Span(key, key),))
            assert (row.entity, row.ts_us, row.write_id) == (event.entity, event.ts_us, event.write_id)
        finally:
            db.drop()
            db.close()


def test_a_postgresql_table_with_quoted_names_not_in_lower_case_is_left_out_with_the_reason():
    table = Table("Orders", (Column("OrderId", "INT64", False), Column("note", "STRING(MAX)")), (KeyColumn("OrderId"),))
    schema = Schema((table,), dialect=POSTGRESQL)
    design = spanner_draft(schema, table, 'CREATE TABLE "Orders"', Path("t.sql"), lambda t, c: infer(schema, t, c, {}))
    assert not design.files and design.skipped == ("quoted name(s) Orders, OrderId are not lower case: keybench "
                                                   "writes PostgreSQL names as PostgreSQL folds unquoted ones")


@pytest.mark.parametrize("ddl, dialect, kept, removed", [
    ("CREATE TABLE a (x INT64, CONSTRAINT fk FOREIGN KEY (x) REFERENCES `b` (y) ON DELETE CASCADE) PRIMARY KEY (x)",
     GOOGLESQL, "CREATE TABLE a (x INT64) PRIMARY KEY (x);\n", 1),
    ("CREATE TABLE a (id bigint PRIMARY KEY, cid bigint REFERENCES customers (id), n int);\n"
     "ALTER TABLE a ADD CONSTRAINT fk FOREIGN KEY (cid) REFERENCES c (id);",
     POSTGRESQL, "CREATE TABLE a (id bigint PRIMARY KEY, cid bigint, n int);\n", 2),
    # an inline constraint with its name, a schema-qualified table, and a later drop of a removed one
    ('CREATE TABLE a (id bigint PRIMARY KEY, cid bigint CONSTRAINT fk_c REFERENCES "sch"."c"(id));\n'
     "ALTER TABLE a DROP CONSTRAINT fk_c;\nALTER TABLE a DROP CONSTRAINT other_check;",
     POSTGRESQL,
     "CREATE TABLE a (id bigint PRIMARY KEY, cid bigint);\nALTER TABLE a DROP CONSTRAINT other_check;\n", 1),
    # GoogleSQL: REFERENCES is no reserved word, so a column may be named so; it stays
    ("CREATE TABLE a (x INT64, References STRING(MAX)) PRIMARY KEY (x)", GOOGLESQL,
     "CREATE TABLE a (x INT64, References STRING(MAX)) PRIMARY KEY (x)", 0),
    ("CREATE TABLE a (x INT64) PRIMARY KEY (x);", GOOGLESQL, "CREATE TABLE a (x INT64) PRIMARY KEY (x);", 0),
])
def test_a_saved_design_leaves_foreign_keys_out(ddl, dialect, kept, removed):
    assert without_foreign_keys(ddl, dialect) == (kept, removed)
