"""The user's DDL applied to a fresh database on the Spanner emulator, which is the parser,
and the schema read back from INFORMATION_SCHEMA. The one module of the check that talks
to a database."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from pathlib import Path

from google.api_core import exceptions as gexc

from loadtests.backends.spanner import DDL_TIMEOUT_S, client_for, ensure_instance
from loadtests.check.schema import Column, Index, KeyColumn, Schema, Sequence, Table
from loadtests.errors import KeybenchError
from loadtests.infra.target import INSTANCE, PROJECT

DATABASE_PREFIX = "kb-check-"

TABLES = ("SELECT TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION FROM INFORMATION_SCHEMA.TABLES "
          "WHERE TABLE_SCHEMA = '' AND TABLE_TYPE = 'BASE TABLE'")
COLUMNS = ("SELECT TABLE_NAME, COLUMN_NAME, SPANNER_TYPE, IS_NULLABLE, COLUMN_DEFAULT, GENERATION_EXPRESSION, "
           "IS_STORED FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME, ORDINAL_POSITION")
COMMIT_TIMESTAMPS = ("SELECT TABLE_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMN_OPTIONS WHERE TABLE_SCHEMA = '' "
                     "AND OPTION_NAME = 'allow_commit_timestamp' AND OPTION_VALUE = 'TRUE'")
INDEXES = ("SELECT TABLE_NAME, INDEX_NAME, INDEX_TYPE, PARENT_TABLE_NAME, IS_UNIQUE, IS_NULL_FILTERED "
           "FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = ''")
INDEX_COLUMNS = ("SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING "
                 "FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = '' "
                 "ORDER BY TABLE_NAME, INDEX_NAME, ORDINAL_POSITION")
SEQUENCE_OPTIONS = "SELECT NAME, OPTION_NAME, OPTION_VALUE FROM INFORMATION_SCHEMA.SEQUENCE_OPTIONS"


@contextmanager
def scratch_database():
    """A new, empty GoogleSQL database on the emulator SPANNER_EMULATOR_HOST names, dropped afterwards."""
    client = client_for(PROJECT)
    try:
        database = ensure_instance(client, INSTANCE).database(DATABASE_PREFIX + uuid.uuid4().hex[:12])
        database.create().result(DDL_TIMEOUT_S)
    except gexc.GoogleAPICallError as exc:
        client.close()
        raise KeybenchError(f"cannot create a scratch database on the Spanner emulator: {exc.message}") from None
    try:
        yield database
    finally:
        try:
            database.drop()
        except gexc.GoogleAPICallError:
            pass  # the emulator went away: nothing is left to drop
        client.close()


def apply_ddl(database, statements: list[str], source: Path) -> None:
    """One statement at a time, so a refusal names the statement the emulator refused."""
    for number, statement in enumerate(statements, 1):
        try:
            database.update_ddl([statement]).result(DDL_TIMEOUT_S)
        except gexc.GoogleAPICallError as exc:
            shown = statement if len(statement) <= 200 else statement[:197] + "..."
            raise KeybenchError(f"{source}: statement {number} refused by the Spanner emulator: {exc.message} "
                                f"(statement: {shown})") from None


def read_schema(database) -> Schema:
    """Tables, key columns, defaults, options, interleaving, indexes and sequences."""
    with database.snapshot(multi_use=True) as snapshot:
        def rows(sql):
            return [tuple(r) for r in snapshot.execute_sql(sql)]

        tables, columns, commit_ts = rows(TABLES), rows(COLUMNS), set(rows(COMMIT_TIMESTAMPS))
        indexes, index_columns, sequence_options = rows(INDEXES), rows(INDEX_COLUMNS), rows(SEQUENCE_OPTIONS)
    columns_of: dict[str, list[Column]] = {}
    for table, name, spanner_type, nullable, default, generated, stored in columns:
        columns_of.setdefault(table, []).append(Column(
            name, spanner_type, nullable == "YES", default, generated, stored == "YES", (table, name) in commit_ts))
    keys: dict[tuple[str, str], list[KeyColumn]] = {}
    storing: dict[tuple[str, str], list[str]] = {}
    for table, index, column, position, ordering in index_columns:
        if position is None:  # a STORING column: in the index, not in its key
            storing.setdefault((table, index), []).append(column)
        else:
            keys.setdefault((table, index), []).append(KeyColumn(column, ordering == "DESC"))
    found_tables = tuple(
        Table(name, tuple(columns_of.get(name, ())), tuple(keys.get((name, "PRIMARY_KEY"), ())), parent or None,
              on_delete or None)
        for name, parent, on_delete in _parents_first(tables))
    found_indexes = tuple(
        Index(index, table, tuple(keys.get((table, index), ())), tuple(storing.get((table, index), ())),
              bool(null_filtered), bool(unique), parent or None)
        for table, index, kind, parent, unique, null_filtered in sorted(indexes) if kind == "INDEX")
    options: dict[str, dict[str, str]] = {}
    for name, option, value in sequence_options:
        options.setdefault(name, {})[option] = value
    return Schema(found_tables, found_indexes, tuple(Sequence(n, o) for n, o in sorted(options.items())))


def _parents_first(tables: list[tuple]) -> list[tuple]:
    """Tables in the order they can be created: a parent before its interleaved children."""
    done, ordered, pending = set(), [], sorted(tables)
    while pending:
        ready = [t for t in pending if not t[1] or t[1] in done]
        if not ready:  # a parent that is no base table: keep the rest as they are
            ordered += pending
            break
        ordered += ready
        done |= {t[0] for t in ready}
        pending = [t for t in pending if t not in ready]
    return ordered
