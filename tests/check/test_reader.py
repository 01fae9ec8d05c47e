"""The user's DDL read back from the real Spanner emulator: every schema's tables and indexes,
a named schema's too (sales.Orders), in either dialect; what the emulator lacks is rewritten
or left out with a note. (test_statements.py has the rewrites without an emulator.)"""

from __future__ import annotations

import json
import textwrap

import pytest

from keybench.check.command import check_result
from keybench.check.request import CheckRequest
from tests.conftest import keybench

pytestmark = pytest.mark.emulator

NAMED = {
    "googlesql": """
        CREATE SCHEMA `sales`;
        CREATE TABLE `sales`.`Orders` (
          Id INT64 NOT NULL,
          CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
        ) PRIMARY KEY (CreatedAt, Id);
        CREATE INDEX `sales`.`OrdersById` ON `sales`.`Orders`(Id);
        CREATE TABLE Orders (Id STRING(36) NOT NULL DEFAULT (GENERATE_UUID())) PRIMARY KEY (Id);
        CREATE SEQUENCE sales.ItemIds OPTIONS (sequence_kind = 'bit_reversed_positive');
        CREATE TABLE sales.Items (Id INT64 NOT NULL DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE sales.ItemIds)))
          PRIMARY KEY (Id);
        CREATE TABLE sales.Counters (N INT64 NOT NULL) PRIMARY KEY (N);
        """,
    "postgresql": """
        CREATE SCHEMA sales;
        CREATE TABLE sales.orders (
          id bigint NOT NULL,
          createdat spanner.commit_timestamp NOT NULL,
          PRIMARY KEY (createdat, id)
        );
        CREATE INDEX ordersbyid ON sales.orders (id);
        CREATE TABLE orders (id varchar(36) NOT NULL DEFAULT spanner.generate_uuid(), PRIMARY KEY (id));
        CREATE SEQUENCE sales.itemids BIT_REVERSED_POSITIVE;
        CREATE TABLE sales.items (id bigint NOT NULL DEFAULT nextval('sales.itemids'), PRIMARY KEY (id));
        CREATE TABLE sales.counters (n bigint NOT NULL, PRIMARY KEY (n));
        """,
}


@pytest.mark.parametrize("dialect", sorted(NAMED))
def test_a_named_schemas_tables_and_indexes_are_checked_fixed_and_gate_the_build(spanner_emulator, tmp_path, dialect):
    """A table of a named schema was left out without a word (and a gate on hotspot passed):
    it is checked under its qualified name, beside the default schema's table of the same name,
    and its fix is applied to the emulator and checked again."""
    schema = tmp_path / "schema.sql"
    schema.write_text(textwrap.dedent(NAMED[dialect]))
    line = {word: 1 + next(n for n, text in enumerate(schema.read_text().splitlines()) if text.startswith(word))
            for word in ("CREATE TABLE", "CREATE INDEX")}
    stated = tmp_path / "columns.toml"
    # a table of a named schema stated as TOML writes it, quoted or dotted
    stated.write_text('"sales.orders".id = "sequential"\nn = "sequential"\n'
                      if dialect == "postgresql" else 'sales.Orders.Id = "random"\nN = "sequential"\n')
    result = check_result(CheckRequest(schema=schema, columns=stated, rows=5_000))
    verdicts = {(s.kind, s.table, s.index): (str(s.verdict), s.fixed_verdict, s.line) for s in result.spaces}
    orders, by_id = ("sales.orders", "ordersbyid") if dialect == "postgresql" else ("sales.Orders", "OrdersById")
    assert verdicts[("table", orders, None)] == ("hotspot", "spread", line["CREATE TABLE"]), result.text
    assert verdicts[("index", orders, by_id)][2] == line["CREATE INDEX"], result.text
    assert verdicts[("table", orders.split(".")[1], None)][0] == "spread", result.text
    items, counters = (("sales.items", "sales.counters") if dialect == "postgresql"
                       else ("sales.Items", "sales.Counters"))
    # a named schema's sequence, drawn from; and one a fix creates in it, whose recheck spreads
    assert verdicts[("table", items, None)][0] == "spread", result.text
    assert result.table(items).assumptions["id" if dialect == "postgresql" else "Id"].startswith("bit_reversed")
    assert verdicts[("table", counters, None)][:2] == ("hotspot", "spread"), result.text
    assert result.index(f"sales.{by_id}").name == f"{orders}.{by_id}"
    assert "the statements to apply do not apply" not in result.text, result.text
    gate = keybench("check", str(schema), "--columns", str(stated), "--rows", "5000", "--fail-on-verdict", "hotspot",
                    "--format", "json", timeout=300)
    assert gate.returncode == 1, gate.stdout[-2000:] + gate.stderr[-2000:]
    assert json.loads(gate.stdout)["counts"]["hotspot"] >= 1


def test_a_table_renamed_by_a_migration_gets_a_fix_under_its_name_now(spanner_emulator, tmp_path):
    """`ALTER TABLE Mixtapes RENAME TO Playlists`: the fix was added after the user's statements
    as a second CREATE TABLE Playlists, which the emulator refused, and the check stopped."""
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "001_mixtapes.sql").write_text(
        "CREATE TABLE Labels (LabelId STRING(36) NOT NULL) PRIMARY KEY (LabelId);\n"
        "CREATE TABLE Mixtapes (Id INT64 NOT NULL) PRIMARY KEY (Id);\n")
    (folder / "002_rename.sql").write_text(
        "ALTER TABLE Mixtapes RENAME TO Playlists;\nALTER TABLE Playlists ADD COLUMN LabelId STRING(36);\n"
        "ALTER TABLE Playlists ADD CONSTRAINT FK_Label FOREIGN KEY (LabelId) REFERENCES Labels (LabelId);\n")
    stated = tmp_path / "columns.toml"
    stated.write_text('Id = "sequential"\n')
    result = check_result(CheckRequest(schema=folder, columns=stated, rows=5_000))
    playlists = result.table("Playlists")
    assert (str(playlists.verdict), playlists.fixed_verdict) == ("hotspot", "spread"), result.text
    assert (playlists.file, playlists.line) == (str(folder / "001_mixtapes.sql"), 2)
    assert any(s.startswith("CREATE TABLE Playlists (") and "LabelId STRING(36)" in s for s in playlists.fix_ddl), (
        playlists.fix_ddl)
    assert not any("Mixtapes" in s for s in playlists.fix_ddl), playlists.fix_ddl
    # the index Spanner makes for the foreign key points at the statement that declares it
    backing = [s for s in result.spaces if s.managed and s.table == "Playlists"]
    assert backing and {(s.file, s.line) for s in backing} == {(str(folder / "002_rename.sql"), 3)}, backing


def test_statements_the_emulator_lacks_are_rewritten_or_skipped_with_a_note_in_the_json_too(spanner_emulator, tmp_path):
    schema = tmp_path / "schema.sql"
    schema.write_text(textwrap.dedent("""
        CREATE TABLE Events (Id UUID NOT NULL DEFAULT (NEW_UUID()), Seen TIMESTAMP) PRIMARY KEY (Id);
        ALTER TABLE Events ADD COLUMN Tokens TOKENLIST AS (TOKENIZE_FULLTEXT(CAST(Seen AS STRING))) HIDDEN;
        CREATE ROLE auditor;
        """))
    done = keybench("check", str(schema), "--rows", "5000", "--format", "json", timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    document = json.loads(done.stdout)
    assert [(s["name"], s["verdict"]) for s in document["spaces"]] == [("Events", "spread")]
    assert any("UUID columns read as STRING(36)" in note for note in document["notes"]), document["notes"]
    assert any("(ROLE) skipped" in note for note in document["notes"]), document["notes"]


CHECKED = {
    "googlesql": """
        CREATE TABLE Instances (
          InstanceId STRING(36) NOT NULL,
          Kind STRING(MAX) NOT NULL,
          Tier INT64 NOT NULL,
          Region STRING(MAX) NOT NULL,
          CreatedAt TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
          CHECK (Kind IN ('root', 'managed', 'federated')),
          CONSTRAINT tier_range CHECK (Tier BETWEEN 1 AND 3),
          CHECK (Region = 'eu' OR Kind = 'root'),
        ) PRIMARY KEY (InstanceId);
        CREATE INDEX InstancesByKind ON Instances(Kind, CreatedAt);
        CREATE INDEX InstancesByRegion ON Instances(Region, CreatedAt);
        """,
    "postgresql": """
        CREATE TABLE instances (
          instanceid varchar(36) NOT NULL,
          kind varchar(20) NOT NULL,
          tier bigint NOT NULL,
          region text NOT NULL,
          createdat spanner.commit_timestamp NOT NULL,
          CHECK (kind IN ('root', 'managed', 'federated')),
          CONSTRAINT tier_range CHECK (tier = 1 OR tier = 2 OR tier = 3),
          CHECK (region = 'eu' OR kind = 'root'),
          PRIMARY KEY (instanceid)
        );
        CREATE INDEX instancesbykind ON instances (kind, createdat);
        CREATE INDEX instancesbyregion ON instances (region, createdat);
        """,
}


@pytest.mark.parametrize("dialect", sorted(CHECKED))
def test_a_check_constraint_that_lists_a_columns_values_bounds_them(spanner_emulator, tmp_path, dialect):
    """A CHECK that lists the values of one column tells how many it takes: an index led by it
    and a commit time is a hotspot, not inconclusive; a CHECK over two columns tells nothing."""
    schema = tmp_path / "schema.sql"
    schema.write_text(textwrap.dedent(CHECKED[dialect]))
    result = check_result(CheckRequest(schema=schema, rows=5_000))
    name = str.lower if dialect == "postgresql" else str
    by_kind, by_region = result.index(name("InstancesByKind")), result.index(name("InstancesByRegion"))
    assert str(by_kind.verdict) == "hotspot", result.text
    assert by_kind.assumptions[name("Kind")].startswith("categorical (3 values): CHECK ("), by_kind.assumptions
    assert str(by_region.verdict) == "inconclusive", result.text
    assert by_region.assumptions[name("Region")].startswith("unknown"), by_region.assumptions
