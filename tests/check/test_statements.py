"""The rewrites of DDL the installed emulator lacks, and the statements that define no key
space, without an emulator (test_command.py and the corpus apply them to one)."""

import pytest

from keybench.check.schema import GOOGLESQL, POSTGRESQL
from keybench.check.statements import created_table, drops_nothing, for_emulator, keyless_kind

MOVED = "its PRIMARY KEY moved from the column list to after it (the same key)"


@pytest.mark.parametrize("statement, rewritten", [
    ("CREATE TABLE IF NOT EXISTS actions (\n  id STRING(MAX) NOT NULL,\n  tenant STRING(MAX) NOT NULL,\n"
     "  PRIMARY KEY (tenant, id)\n)",
     "CREATE TABLE IF NOT EXISTS actions (\n  id STRING(MAX) NOT NULL,\n  tenant STRING(MAX) NOT NULL) "
     "PRIMARY KEY (tenant, id)"),
    # what follows the list stays after the key; a comma or parenthesis in a string is no element's end
    ("CREATE TABLE c (p INT64, note STRING(MAX) DEFAULT ('a, (b) \\'c, d'), PRIMARY KEY (p DESC)), "
     "INTERLEAVE IN PARENT x ON DELETE CASCADE",
     "CREATE TABLE c (p INT64, note STRING(MAX) DEFAULT ('a, (b) \\'c, d')) PRIMARY KEY (p DESC), "
     "INTERLEAVE IN PARENT x ON DELETE CASCADE"),
    ("CREATE TABLE t (a INT64, PRIMARY KEY (a), CONSTRAINT fk FOREIGN KEY (a) REFERENCES u (a))",
     "CREATE TABLE t (a INT64, CONSTRAINT fk FOREIGN KEY (a) REFERENCES u (a)) PRIMARY KEY (a)"),
])
def test_a_primary_key_inside_the_column_list_is_moved_after_it(statement, rewritten):
    assert for_emulator(statement, GOOGLESQL) == (rewritten, [MOVED])


@pytest.mark.parametrize("statement, dialect", [
    ("CREATE TABLE t (a INT64) PRIMARY KEY (a)", GOOGLESQL),  # the usual form
    ("CREATE TABLE t (a INT64 NOT NULL PRIMARY KEY, b INT64)", GOOGLESQL),  # inline: the emulator takes it
    ("CREATE TABLE t (a INT64, CONSTRAINT pk PRIMARY KEY (a))", GOOGLESQL),  # named: not confirmed for Spanner
    ("CREATE TABLE t (a INT64, PRIMARY KEY (a), PRIMARY KEY (a))", GOOGLESQL),  # two keys: refused as written
    ("CREATE INDEX i ON t (a, PRIMARY KEY (a))", GOOGLESQL),  # not a table
    ("CREATE TABLE t (a bigint, PRIMARY KEY (a))", POSTGRESQL),  # PostgreSQL's own form
])
def test_any_other_statement_is_left_as_it_is(statement, dialect):
    assert for_emulator(statement, dialect) == (statement, [])


UUIDS = "its UUID columns read as STRING(36), the same order, and NEW_UUID() as GENERATE_UUID()"
INTERLEAVED = "its INTERLEAVE IN read as INTERLEAVE IN PARENT (the same key order; a parent row is not required)"
PROTOS = "its protocol buffer columns read as BYTES(MAX), and columns generated from their fields as plain columns"


@pytest.mark.parametrize("statement, dialect, rewritten, what", [
    # a UUID column anywhere in the list, in an ARRAY too; a column named uuid keeps its name
    ("CREATE TABLE t (`id` UUID DEFAULT (NEW_UUID()), uuid STRING(36), ids ARRAY<UUID>) PRIMARY KEY (`id`)",
     GOOGLESQL, "CREATE TABLE t (`id` STRING(36) DEFAULT (GENERATE_UUID()), uuid STRING(36), ids ARRAY<STRING(36)>) "
     "PRIMARY KEY (`id`)", [UUIDS]),
    ("ALTER TABLE t ADD COLUMN u UUID", GOOGLESQL, "ALTER TABLE t ADD COLUMN u STRING(36)", [UUIDS]),
    ('CREATE TABLE "t" ("id" uuid DEFAULT gen_random_uuid(), us uuid[], PRIMARY KEY ("id"))', POSTGRESQL,
     'CREATE TABLE "t" ("id" varchar(36) DEFAULT spanner.generate_uuid(), us varchar(36)[], PRIMARY KEY ("id"))',
     ["its uuid columns read as varchar(36), the same order, and gen_random_uuid() as spanner.generate_uuid()"]),
    # a proto column, and key columns generated from its fields: plain, the others as they were
    ("CREATE TABLE L (C BYTES(8) NOT NULL, N STRING(MAX) NOT NULL AS (Label.label) STORED, "
     "M INT64 AS (MOD(C, 2)) STORED, Label `fleetspeak.Label` NOT NULL, T ARRAY<google.protobuf.Timestamp>) "
     "PRIMARY KEY (C, N)", GOOGLESQL,
     "CREATE TABLE L (C BYTES(8) NOT NULL, N STRING(MAX) NOT NULL, M INT64 AS (MOD(C, 2)) STORED, "
     "Label BYTES(MAX) NOT NULL, T ARRAY<BYTES(MAX)>) PRIMARY KEY (C, N)", [PROTOS]),
    ('CREATE TABLE t ("id" bigint NOT NULL, "tokens" spanner.tokenlist GENERATED ALWAYS AS '
     '(spanner.tokenize_fulltext("d")) STORED HIDDEN, "h" text HIDDEN, PRIMARY KEY ("id"))', POSTGRESQL,
     'CREATE TABLE t ("id" bigint NOT NULL, "h" text, PRIMARY KEY ("id"))',
     ["its tokenlist columns left out (only a search index reads them)", "HIDDEN left out (no bearing on keys)"]),
    # INTERLEAVE IN without PARENT: the same layout; one already under PARENT stays so
    ("CREATE TABLE A (S INT64, A INT64) PRIMARY KEY (S, A), INTERLEAVE IN S", GOOGLESQL,
     "CREATE TABLE A (S INT64, A INT64) PRIMARY KEY (S, A), INTERLEAVE IN PARENT S", [INTERLEAVED]),
    ("CREATE TABLE a (s bigint, a bigint, PRIMARY KEY (s, a)) INTERLEAVE IN s", POSTGRESQL,
     "CREATE TABLE a (s bigint, a bigint, PRIMARY KEY (s, a)) INTERLEAVE IN PARENT s", [INTERLEAVED]),
    ("CREATE TABLE A (S INT64, A INT64) PRIMARY KEY (S, A), INTERLEAVE IN PARENT S ON DELETE CASCADE", GOOGLESQL,
     "CREATE TABLE A (S INT64, A INT64) PRIMARY KEY (S, A), INTERLEAVE IN PARENT S ON DELETE CASCADE", []),
])
def test_types_and_keywords_newer_than_the_emulator_are_read_as_what_it_orders_the_same(
        statement, dialect, rewritten, what):
    assert for_emulator(statement, dialect) == (rewritten, what)


@pytest.mark.parametrize("statement, kind", [
    ('ALTER TABLE my_schema."T" ADD COLUMN "tokens" spanner.tokenlist HIDDEN GENERATED ALWAYS AS (x) STORED',
     "TOKENLIST COLUMN"),
    ("ALTER TABLE T ADD COLUMN Tokens TOKENLIST AS (TOKENIZE_FULLTEXT(D)) HIDDEN", "TOKENLIST COLUMN"),
    ('CREATE TABLE "NoKey" ("val" bigint)', "TABLE WITHOUT PRIMARY KEY"),
    ("CREATE OR REPLACE VIEW V SQL SECURITY INVOKER AS SELECT 1", "VIEW"),
    ("ALTER TABLE T ADD COLUMN C INT64", None),
    ("CREATE TABLE T (C INT64) PRIMARY KEY (C)", None),
])
def test_what_defines_no_key_space_is_named(statement, kind):
    assert keyless_kind(statement) == kind


@pytest.mark.parametrize("statement, table", [
    ("CREATE TABLE Orders (Id INT64) PRIMARY KEY (Id)", "Orders"),
    ("CREATE TABLE IF NOT EXISTS `sales`.`Orders` (Id INT64) PRIMARY KEY (Id)", "sales.Orders"),
    ('CREATE TABLE sales."Orders" (id bigint PRIMARY KEY)', "sales.Orders"),
    ("CREATE INDEX I ON Orders(Id)", None),
])
def test_the_table_a_statement_creates_is_named_with_its_schema(statement, table):
    assert created_table(statement) == table


@pytest.mark.parametrize("statement, refusal, dropped", [
    ("DROP INDEX albums_album_title_key", "Index not found: albums_album_title_key", "DROP INDEX"),
    ("drop table songs", "Table not found: songs", "DROP TABLE"),
    ("DROP CHANGE STREAM Everything", 'Change Stream "Everything" does not exist', "DROP CHANGE STREAM"),
    ("DROP TABLE Orders", "Cannot drop table Orders with indices: OrdersByDate", None),  # a refusal of another kind
    ("CREATE INDEX I ON T(X)", "Table not found: T", None),  # not a DROP: an error
])
def test_a_drop_of_what_does_not_exist_changes_nothing(statement, refusal, dropped):
    assert drops_nothing(statement, refusal) == dropped
