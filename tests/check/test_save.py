"""`keybench check --save-strategy`: the designs the check judged, written as strategy folders
and read back by the catalogue's own loader with the same key parts. No database: the schema
is built as the emulator's INFORMATION_SCHEMA would describe it."""

from __future__ import annotations

from pathlib import Path

import pytest

from loadtests.check.command import check
from loadtests.check.inference import Distribution, infer
from loadtests.check.keyspaces import key_distributions, table_strategy
from loadtests.check.request import CheckRequest
from loadtests.check.save import spanner_design, template_design
from loadtests.check.schema import Column, Index, KeyColumn, Schema, Table
from loadtests.check.template import parse_template, template_strategy
from loadtests.design.folders import save_designs
from loadtests.design.strategies import load_strategy, user_designs
from loadtests.errors import KeybenchError
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
    designs = [spanner_design(SCHEMA, t, DDL, Path("shop.sql"), lambda t, c: infer(SCHEMA, t, c, stated))
               for t in SCHEMA.tables]
    folder = tmp_path / "mine"
    return save_designs(designs, folder), folder


def test_a_saved_table_loads_with_the_key_parts_the_check_judged(tmp_path):
    lines, folder = saved(tmp_path, STATED)
    loaded = user_designs([folder], "spanner")
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
    assert [(p.column, p.name) for p in child.parent_rows.columns] == [("Region", "fill"), ("Total", "fill"), ("Tags", "fill")]
    assert child.parent_table is None  # the catalogue's UserId parent, which its reads also read, is another thing


def test_a_table_interleaved_two_levels_deep_is_left_out_with_the_reason(tmp_path):
    notes = Table("Notes", (*LINES.columns, Column("NoteId", "INT64", False)), (*LINES.key, KeyColumn("NoteId")),
                  parent="Lines")
    schema = Schema((ORDERS, LINES, notes))
    design = spanner_design(schema, notes, DDL, Path("shop.sql"), lambda t, c: infer(schema, t, c, STATED))
    assert not design.files and design.skipped == (
        "interleaved in Lines, itself interleaved in Orders: keybench writes one level of parent rows")


def test_an_unknown_key_column_is_saved_as_its_worst_case_and_says_so(tmp_path):
    lines, folder = saved(tmp_path, {})
    strategy = load_strategy(folder / "spanner" / "orders", "spanner", "googlesql")
    assert [(p.column, p.name) for p in strategy.parts] == [("CreatedAt", "ts"), ("OrderId", "sequence")]
    assert "OrderId, Region: distribution unknown, written as sequential" in strategy.note
    assert any("written as sequential" in line for line in lines)


def test_a_saved_template_loads_with_the_template_s_key_parts(tmp_path):
    template = "{device_type}#{device}#{salt:4}#{ts}"
    save_designs([template_design(template, [s.spec for s in parse_template(template)])], tmp_path / "bt")
    [strategy] = user_designs([tmp_path / "bt"], "bigtable").values()
    assert strategy.name == "device_type_device_salt_4_ts"
    assert shape(strategy.parts) == shape(template_strategy(template, parse_template(template)).parts)
    assert strategy.separator == "#" and strategy.source.user


def test_a_not_null_column_of_a_type_keybench_cannot_write_is_one_line():
    table = Table("T", (Column("Id", "INT64", False), Column("P", "PROTO<a.B>", False)), (KeyColumn("Id"),))
    with pytest.raises(KeybenchError, match=r"T\.P is NOT NULL and keybench cannot generate values of type PROTO<a.B>"):
        spanner_design(Schema((table,)), table, "CREATE TABLE T", Path("t.sql"), lambda t, c: infer(Schema((table,)), t, c, {}))


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
    design = spanner_design(schema, table, "CREATE TABLE T", Path("t.sql"), lambda t, c: infer(schema, t, c, {}))
    assert not design.files and design.skipped.startswith("key column(s) Shard generated AS (...) by the database")
