"""The user's DDL applied to a fresh database on the Spanner emulator, which is the parser,
and the schema read back from INFORMATION_SCHEMA. The one module of the check that talks
to a database. The emulator also tells the dialect: DDL it refuses as GoogleSQL is tried
as PostgreSQL."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from google.api_core import exceptions as gexc
from google.cloud import spanner
from google.cloud.spanner_admin_database_v1 import DatabaseDialect
from google.cloud.spanner_v1.database import Database

from keybench.backends import spanner_admin as admin
from keybench.backends.liveness import SILENCE
from keybench.backends.spanner import client_for, ensure_instance, instance_of
from keybench.check.request import AUTO_DIALECT
from keybench.check.schema import (
    DIALECT_TITLES,
    GOOGLESQL,
    POSTGRESQL,
    Column,
    Index,
    KeyColumn,
    Schema,
    Sequence,
    Table,
    from_postgresql_type,
)
from keybench.check.statements import (
    SEARCH_INDEX_TYPE,
    created_table,
    drops_nothing,
    for_emulator,
    keyless_kind,
    not_ddl,
)
from keybench.errors import KeybenchError, readable
from keybench.infra.signals import interrupt_point
from keybench.infra.target import INSTANCE, PROJECT

DATABASE_PREFIX = "kb-check-"

DATABASE_DIALECTS = {GOOGLESQL: DatabaseDialect.GOOGLE_STANDARD_SQL, POSTGRESQL: DatabaseDialect.POSTGRESQL}
# The schema a user's objects live in unless named (`CREATE TABLE sales.Orders`): unnamed in
# GoogleSQL, public in PostgreSQL. Unquoted names fold to lower case in PostgreSQL, so the same
# queries read either dialect. Every schema but the system's is read: a table of a named schema
# is named with it (sales.Orders), as Spanner's DDL and its clients name it.
USER_SCHEMA = {GOOGLESQL: "", POSTGRESQL: "public"}
SYSTEM_SCHEMAS = "('INFORMATION_SCHEMA', 'SPANNER_SYS', 'information_schema', 'spanner_sys', 'pg_catalog')"
IN_USER_SCHEMAS = f"TABLE_SCHEMA NOT IN {SYSTEM_SCHEMAS}"

TABLES = ("SELECT TABLE_SCHEMA, TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION FROM INFORMATION_SCHEMA.TABLES "
          f"WHERE {IN_USER_SCHEMAS} AND TABLE_TYPE = 'BASE TABLE'")
COLUMNS = ("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, SPANNER_TYPE, IS_NULLABLE, COLUMN_DEFAULT, "
           f"GENERATION_EXPRESSION, IS_STORED FROM INFORMATION_SCHEMA.COLUMNS WHERE {IN_USER_SCHEMAS} "
           "ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION")
COMMIT_TIMESTAMPS = ("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMN_OPTIONS WHERE "
                     f"{IN_USER_SCHEMAS} AND OPTION_NAME = 'allow_commit_timestamp' AND OPTION_VALUE = 'TRUE'")
INDEXES = ("SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, INDEX_TYPE, PARENT_TABLE_NAME, IS_UNIQUE, IS_NULL_FILTERED, "
           f"SPANNER_IS_MANAGED FROM INFORMATION_SCHEMA.INDEXES WHERE {IN_USER_SCHEMAS}")
INDEX_COLUMNS = ("SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING "
                 f"FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE {IN_USER_SCHEMAS} "
                 "ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, ORDINAL_POSITION")
# Each CHECK constraint with the columns it names (one row per column): a constraint on one
# column alone can bound its values (`Kind IN ('a', 'b')`).
CHECKS = ("SELECT u.TABLE_SCHEMA, u.TABLE_NAME, u.COLUMN_NAME, u.CONSTRAINT_NAME, c.CHECK_CLAUSE "
          "FROM INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE u JOIN INFORMATION_SCHEMA.CHECK_CONSTRAINTS c "
          "ON c.CONSTRAINT_SCHEMA = u.CONSTRAINT_SCHEMA AND c.CONSTRAINT_NAME = u.CONSTRAINT_NAME "
          f"WHERE u.{IN_USER_SCHEMAS}")
SEQUENCE_OPTIONS = {
    GOOGLESQL: "SELECT SCHEMA, NAME, OPTION_NAME, OPTION_VALUE FROM INFORMATION_SCHEMA.SEQUENCE_OPTIONS "
               f"WHERE SCHEMA NOT IN {SYSTEM_SCHEMAS}",
    # PostgreSQL has no SEQUENCE_OPTIONS: the same facts are columns of SEQUENCES, named here as
    # GoogleSQL names the options.
    POSTGRESQL: "SELECT sequence_schema, sequence_name, sequence_kind, counter_start_value AS start_with_counter, "
                "skip_range_min, skip_range_max FROM information_schema.sequences "
                f"WHERE sequence_schema NOT IN {SYSTEM_SCHEMAS}",
}


# A column line of the emulator's own DDL (GetDatabaseDdl) with an identity: INFORMATION_SCHEMA
# on the emulator says IS_IDENTITY = NO for it in both dialects, the DDL it writes back does not.
IDENTITY_COLUMN = re.compile(r"^\s*[`\"]?(\w+)[`\"]?\s.*?\b(GENERATED\s+(?:BY\s+DEFAULT|ALWAYS)\s+AS\s+IDENTITY"
                             r"(?:\s*\([^)]*\))?)", re.IGNORECASE | re.MULTILINE)


class DdlRefused(KeybenchError):
    """The emulator refused statement `number` of the DDL in `dialect`."""

    def __init__(self, message: str, number: int, dialect: str, detail: str):
        super().__init__(message)
        self.number, self.dialect, self.detail = number, dialect, detail


@dataclasses.dataclass(frozen=True)
class Scratch:
    """A scratch database and the client whose admin calls change it."""

    client: spanner.Client
    database: Database


@contextmanager
def scratch_database(dialect: str = GOOGLESQL):
    """A new, empty database (a Scratch) of the dialect on the emulator SPANNER_EMULATOR_HOST
    names, dropped afterwards."""
    client = client_for(PROJECT)
    database = None
    try:
        try:
            instance = ensure_instance(client, instance_of(client, INSTANCE))
            database = instance.database(DATABASE_PREFIX + uuid.uuid4().hex[:12],
                                         database_dialect=DATABASE_DIALECTS[dialect])
            admin.create_database(client, instance, database)
        except gexc.GoogleAPICallError as exc:
            raise KeybenchError(f"cannot create a scratch database on the Spanner emulator: {exc.message}") from None
        yield Scratch(client, database)
    finally:
        # Dropped whatever ended the check, an interrupt during its creation included: a
        # database left behind counts against the emulator's limit for every later check.
        if database is not None:
            try:
                admin.drop_database(client, database)
            except gexc.GoogleAPICallError:
                pass  # never created, or the emulator went away: nothing is left to drop
        client.close()


def statement_label(labels: list[str] | None, number: int) -> str:
    """Where statement `number` (from 1) comes from: `statement 3`, or in a migration folder
    `V2__orders.sql statement 3`."""
    return labels[number - 1] if labels else f"statement {number}"


def apply_ddl(scratch: Scratch, statements: list[str], source: Path, dialect: str = GOOGLESQL,
              labels: list[str] | None = None) -> list[str]:
    """One statement at a time (a PostgreSQL database takes DDL only so, after its creation),
    so a refusal names the statement the emulator refused. A refused statement that defines
    no key space is left out: the notes returned say which, and why."""
    notes = []
    data: dict[str, list[str]] = {}
    rewrites: dict[str, list[str]] = {}  # what was rewritten: the statements
    for number, statement in enumerate(statements, 1):
        interrupt_point()
        label = statement_label(labels, number)
        verb = not_ddl(statement)
        if verb is not None:
            data.setdefault(verb, []).append(label)
            continue
        try:
            admin.update_ddl(scratch.client, scratch.database, [statement])
        except gexc.GoogleAPICallError as exc:
            _unless_silent(exc)
            rewritten, done = for_emulator(statement, dialect)
            refused_too = _refusal(scratch, rewritten) if done else None
            if done and refused_too is None:
                rewrites.setdefault("; ".join(done), []).append(label)
                continue
            dropped = drops_nothing(statement, exc.message)
            if dropped is not None:
                notes.append(f"{label} ({dropped}) skipped: nothing of that name exists to drop "
                             f"({readable(exc.message)[:120]})")
                continue
            kind = keyless_kind(statement)
            if kind is not None:
                # The emulator's parse errors repeat the statement first: keep what follows it.
                detail = readable(exc.message).rsplit(f"{readable(statement)} : ", 1)[-1]
                notes.append(f"{label} ({kind}) skipped: it defines no key space, and this Spanner "
                             f"emulator{_emulator_version()} refused it ({detail[:120]})")
                continue
            also = (f"; rewritten for this emulator ({'; '.join(done)}), it was refused too: {refused_too}"
                    if done else "")
            raise DdlRefused(f"{source}: {label} refused by the Spanner emulator "
                             f"({DIALECT_TITLES[dialect]}): "
                             f"{exc.message}{also} (statement: {_shown(statement)})", number, dialect,
                             exc.message) from None
    for what, where in rewrites.items():
        # A schema written in one style has every table so: one note, not one per table.
        notes.append(f"{_listed(where)} rewritten for this Spanner emulator{_emulator_version()}, which refused "
                     f"{'it' if len(where) == 1 else 'them'} as written: {what}")
    for verb, where in data.items():
        notes.append(f"{len(where)} {verb} statement(s) skipped ({_listed(where)}): not DDL, no bearing on keys")
    return notes


def _listed(labels: list[str]) -> str:
    """`statement 1, statement 2, statement 3 and 4 more`."""
    return ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")


def _refusal(scratch: Scratch, statement: str) -> str | None:
    """Why the emulator refused the statement; None: it took it."""
    try:
        admin.update_ddl(scratch.client, scratch.database, [statement])
    except gexc.GoogleAPICallError as exc:
        _unless_silent(exc)
        return readable(exc.message)
    return None


def _unless_silent(exc: gexc.GoogleAPICallError) -> None:
    """A refusal is the emulator's answer about the statement; silence is not, and ends the check."""
    if isinstance(exc, SILENCE):
        raise KeybenchError("the Spanner emulator stopped answering during the check: "
                            f"{readable(exc.message)}") from None


def _emulator_version() -> str:
    """' (google-cloud-cli N)' for an emulator keybench runs from the installed google-cloud-cli, else ''."""
    from keybench.infra import emulators

    version = emulators.sdk_version()
    return f" (google-cloud-cli {version})" if version else ""


def load_schema(statements: list[str], source: Path, dialect: str = AUTO_DIALECT,
                labels: list[str] | None = None) -> Schema:
    """The schema the emulator reads from the statements, in the dialect asked for; auto:
    GoogleSQL, else PostgreSQL when GoogleSQL refuses a statement (not only the first: a
    CREATE SEQUENCE s BIT_REVERSED_POSITIVE reads in both). When both refuse, the refusal of
    the dialect that got further (both at the same statement: both messages)."""
    refusals: list[DdlRefused] = []
    for tried in (GOOGLESQL, POSTGRESQL) if dialect == AUTO_DIALECT else (dialect,):
        with scratch_database(tried) as scratch:
            try:
                notes = apply_ddl(scratch, statements, source, tried, labels)
            except DdlRefused as refused:
                refusals.append(refused)
                continue
            schema = read_schema(scratch, tried)
            return dataclasses.replace(schema, notes=(*notes, *schema.notes))
    furthest = max(refusals, key=lambda r: r.number)
    if len(refusals) == 2 and refusals[0].number == refusals[1].number:
        raise KeybenchError(f"{source}: {statement_label(labels, furthest.number)} refused by the Spanner emulator "
                            "in both dialects: "
                            + "; ".join(f"{DIALECT_TITLES[r.dialect]}: {r.detail}" for r in refusals)
                            + f" (statement: {_shown(statements[furthest.number - 1])})")
    raise furthest


def _shown(statement: str) -> str:
    return statement if len(statement) <= 200 else statement[:197] + "..."


def read_schema(scratch: Scratch, dialect: str = GOOGLESQL) -> Schema:
    """Tables, key columns, defaults, options, interleaving, indexes and sequences; a
    PostgreSQL type as its GoogleSQL counterpart (schema.from_postgresql_type)."""
    with scratch.database.snapshot(multi_use=True) as snapshot:
        def rows(sql: str) -> list[tuple]:
            return [tuple(r) for r in snapshot.execute_sql(sql, timeout=admin.ADMIN_CALL_TIMEOUT_S)]

        return schema_from(rows, lambda: admin.ddl_of(scratch.client, scratch.database), dialect)


def schema_from(rows: Callable[[str], list[tuple]], ddl_of: Callable[[], list[str]], dialect: str) -> Schema:
    """read_schema from the rows of its queries (`rows(sql)`, values as the client library gives
    them: INT64 as int) and the database's DDL (`ddl_of()`), however they are read."""
    def queried(sql: str, *names: int) -> list[tuple]:
        """The rows, each led by its schema: that column dropped, and the names at `names` (the
        row's table, its parent) qualified with it where it is a named schema."""
        found = []
        for schema, *row in rows(sql):
            for at in names:
                row[at] = row[at] and (row[at] if schema == USER_SCHEMA[dialect] else f"{schema}.{row[at]}")
            found.append(tuple(row))
        return found

    tables, columns, commit_ts = queried(TABLES, 0, 1), queried(COLUMNS, 0), set(queried(COMMIT_TIMESTAMPS, 0))
    # An index is interleaved in a table of its own schema, and named with it as its table is (below).
    indexes, index_columns = queried(INDEXES, 0, 3), queried(INDEX_COLUMNS, 0)
    sequence_options = _sequence_options(queried(SEQUENCE_OPTIONS[dialect], 0), dialect)
    ddl = ddl_of()
    checks = _column_checks(queried(CHECKS, 0))
    identities = _identities(ddl)
    extras = _table_extras(ddl)
    columns_of: dict[str, list[Column]] = {}
    for table, name, spanner_type, nullable, default, generated, stored in columns:
        typed, commit_timestamp = (from_postgresql_type(spanner_type) if dialect == POSTGRESQL
                                   else (spanner_type, (table, name) in commit_ts))
        columns_of.setdefault(table, []).append(Column(
            name, typed, nullable == "YES", default, generated, stored == "YES", commit_timestamp,
            identities.get((table, name)), checks.get((table, name), ())))
    tokens = {(table, c.name) for table, cs in columns_of.items() for c in cs if c.type == SEARCH_INDEX_TYPE}
    searches = {index for table, index, column, _, _ in index_columns if (table, column) in tokens}
    keys: dict[tuple[str, str], list[KeyColumn]] = {}
    storing: dict[tuple[str, str], list[str]] = {}
    for table, index, column, position, ordering in index_columns:
        if position is None:  # a STORING column: in the index, not in its key
            storing.setdefault((table, index), []).append(column)
        else:
            keys.setdefault((table, index), []).append(KeyColumn(column, ordering == "DESC"))
    found_tables = tuple(
        Table(name, tuple(columns_of.get(name, ())), tuple(keys.get((name, "PRIMARY_KEY"), ())), parent or None,
              on_delete or None, *extras.get(name, ((), None)))
        for name, parent, on_delete in _parents_first(tables))
    found_indexes = tuple(
        Index(_beside(table, index), table, tuple(keys.get((table, index), ())), tuple(storing.get((table, index), ())),
              _flag(null_filtered), _flag(unique), parent or None, _flag(managed))
        for table, index, kind, parent, unique, null_filtered, managed in sorted(indexes)
        if kind == "INDEX" and index not in searches)
    options: dict[str, dict[str, str]] = {}
    for name, option, value in sequence_options:
        options.setdefault(name, {})[option] = value
    notes = tuple(f"search index {name} not modelled: it keeps tokens, not rows in key order"
                  for name in sorted(searches))
    return Schema(found_tables, found_indexes, tuple(Sequence(n, o) for n, o in sorted(options.items())), dialect,
                  notes)


def _column_checks(rows: list[tuple]) -> dict[tuple[str, str], tuple[str, ...]]:
    """{(table, column): the clauses of the CHECK constraints that name that column alone}, but
    the NOT NULL checks Spanner makes of its own."""
    named: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for table, column, constraint, clause in rows:
        named.setdefault((table, constraint), []).append((column, clause))
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for (table, _), [*columns] in named.items():
        if len(columns) == 1 and not re.fullmatch(r"\S+\s+IS\s+NOT\s+NULL", columns[0][1].strip(), re.IGNORECASE):
            column, clause = columns[0]
            found[(table, column)] = (*found.get((table, column), ()), clause)
    return found


def _beside(table: str, name: str) -> str:
    """An index's name qualified with its table's schema (sales.OrdersByDate), as DDL names it."""
    schema, dot, _ = table.rpartition(".")
    return f"{schema}{dot}{name}"


CONSTRAINT_LINE = re.compile(r"^\s*((?:CONSTRAINT\s+\S+\s+)?(?:FOREIGN\s+KEY|CHECK)\b.*?),?\s*$",
                             re.IGNORECASE | re.MULTILINE)
DELETION_POLICY = re.compile(r"(ROW\s+DELETION\s+POLICY\s*\(.*\)|\bTTL\s+INTERVAL\s+.*)\s*$",
                             re.IGNORECASE | re.DOTALL)


def _table_extras(statements) -> dict[str, tuple[tuple[str, ...], str | None]]:
    """{table: (its constraints, its row deletion policy)} from the emulator's own DDL, where a
    later ALTER TABLE's constraint or policy is already folded into the CREATE TABLE."""
    found = {}
    for statement in statements:
        table = created_table(statement)
        if table:
            policy = DELETION_POLICY.search(statement.rpartition("PRIMARY KEY")[2])
            found[table] = (tuple(m.group(1).strip() for m in CONSTRAINT_LINE.finditer(statement)),
                                     " ".join(policy.group(1).split()) if policy else None)
    return found


def _identities(statements) -> dict[tuple[str, str], str]:
    """{(table, column): its GENERATED ... AS IDENTITY (...) clause} from the emulator's DDL."""
    found: dict[tuple[str, str], str] = {}
    for statement in statements:
        table = created_table(statement)
        if table:
            found |= {(table, m.group(1)): m.group(2) for m in IDENTITY_COLUMN.finditer(statement)}
    return found


def _flag(value) -> bool:
    """GoogleSQL answers a BOOL, PostgreSQL 'YES' or 'NO'."""
    return value is True or value == "YES"


def _sequence_options(found: list[tuple], dialect: str) -> list[tuple[str, str, str]]:
    """(sequence, option, value) rows, from PostgreSQL's one row per sequence too."""
    if dialect == GOOGLESQL:
        return found
    names = ("sequence_kind", "start_with_counter", "skip_range_min", "skip_range_max")
    return [(row[0], option, str(value)) for row in found for option, value in zip(names, row[1:], strict=True)
            if value is not None]


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
