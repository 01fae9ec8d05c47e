"""The rewrites of DDL the installed emulator lacks, without an emulator (test_command.py
applies them to one)."""

import pytest

from keybench.check.reader import for_emulator
from keybench.check.schema import GOOGLESQL, POSTGRESQL

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
