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
from keybench.errors import KeybenchError, readable
from keybench.infra.signals import interrupt_point
from keybench.infra.target import INSTANCE, PROJECT

DATABASE_PREFIX = "kb-check-"

DATABASE_DIALECTS = {GOOGLESQL: DatabaseDialect.GOOGLE_STANDARD_SQL, POSTGRESQL: DatabaseDialect.POSTGRESQL}
# The schema a user's objects live in: unnamed in GoogleSQL, public in PostgreSQL. Unquoted
# names fold to lower case in PostgreSQL, so the same queries read either dialect.
USER_SCHEMA = {GOOGLESQL: "", POSTGRESQL: "public"}

TABLES = ("SELECT TABLE_NAME, PARENT_TABLE_NAME, ON_DELETE_ACTION FROM INFORMATION_SCHEMA.TABLES "
          "WHERE TABLE_SCHEMA = '{schema}' AND TABLE_TYPE = 'BASE TABLE'")
COLUMNS = ("SELECT TABLE_NAME, COLUMN_NAME, SPANNER_TYPE, IS_NULLABLE, COLUMN_DEFAULT, GENERATION_EXPRESSION, "
           "IS_STORED FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '{schema}' ORDER BY TABLE_NAME, "
           "ORDINAL_POSITION")
COMMIT_TIMESTAMPS = ("SELECT TABLE_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMN_OPTIONS WHERE TABLE_SCHEMA = "
                     "'{schema}' "
                     "AND OPTION_NAME = 'allow_commit_timestamp' AND OPTION_VALUE = 'TRUE'")
INDEXES = ("SELECT TABLE_NAME, INDEX_NAME, INDEX_TYPE, PARENT_TABLE_NAME, IS_UNIQUE, IS_NULL_FILTERED, "
           "SPANNER_IS_MANAGED FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = '{schema}'")
INDEX_COLUMNS = ("SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING "
                 "FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = '{schema}' "
                 "ORDER BY TABLE_NAME, INDEX_NAME, ORDINAL_POSITION")
SEQUENCE_OPTIONS = {
    GOOGLESQL: "SELECT NAME, OPTION_NAME, OPTION_VALUE FROM INFORMATION_SCHEMA.SEQUENCE_OPTIONS",
    # PostgreSQL has no SEQUENCE_OPTIONS: the same facts are columns of SEQUENCES, named here as
    # GoogleSQL names the options.
    POSTGRESQL: "SELECT sequence_name, sequence_kind, counter_start_value AS start_with_counter, skip_range_min, "
                "skip_range_max FROM information_schema.sequences WHERE sequence_schema = 'public'",
}


# A column line of the emulator's own DDL (GetDatabaseDdl) with an identity: INFORMATION_SCHEMA
# on the emulator says IS_IDENTITY = NO for it in both dialects, the DDL it writes back does not.
CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+[`\"]?(\w+)[`\"]?", re.IGNORECASE)
IDENTITY_COLUMN = re.compile(r"^\s*[`\"]?(\w+)[`\"]?\s.*?\b(GENERATED\s+(?:BY\s+DEFAULT|ALWAYS)\s+AS\s+IDENTITY"
                             r"(?:\s*\([^)]*\))?)", re.IGNORECASE | re.MULTILINE)


# Statements that define no key space: graphs, search and vector indexes, change streams,
# views, models, roles and grants, placements, locality groups, proto bundles, database
# options, statistics. When the emulator refuses one (a feature newer than its version), the
# check notes it and goes on; a refused statement that defines a key is still an error.
KEYLESS = re.compile(
    r"^\s*(?:(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"(?P<object>PROPERTY\s+GRAPH|SEARCH\s+INDEX|VECTOR\s+INDEX|CHANGE\s+STREAM|VIEW|MODEL|ROLE|PLACEMENT"
    r"|LOCALITY\s+GROUP|PROTO\s+BUNDLE|FUNCTION)\b"
    r"|(?P<statement>GRANT|REVOKE|ANALYZE|ALTER\s+DATABASE|ALTER\s+STATISTICS))", re.IGNORECASE)
# An index that is no key-ordered range of rows: a search index keeps tokens, not rows in key
# order, so the split model has nothing to say about it. The emulator writes one back as a
# plain CREATE INDEX, so it is known by what it indexes: TOKENLIST columns, which only a search
# index takes.
SEARCH_INDEX_TYPE = "TOKENLIST"


# Statements in a schema file that are no DDL at all: seed data, queries, and the session and
# batch commands of PGAdapter or the Spanner CLI. The emulator's DDL call refuses them; they
# have no bearing on keys, so they are left out before it is asked, and counted in one note.
NOT_DDL = re.compile(r"^\s*(?P<verb>INSERT|UPDATE|DELETE|MERGE|SELECT|WITH|CALL|SET|SHOW|RESET|BEGIN|COMMIT|ROLLBACK"
                     r"|START\s+BATCH|RUN\s+BATCH|ABORT\s+BATCH|EXPLAIN)\b", re.IGNORECASE)


def not_ddl(statement: str) -> str | None:
    """The verb of a statement that is no DDL (`INSERT`, `START BATCH`), else None."""
    found = NOT_DDL.match(statement)
    return " ".join(found.group("verb").upper().split()) if found else None


def keyless_kind(statement: str) -> str | None:
    """What a statement that defines no key space creates or does (`PROPERTY GRAPH`, `GRANT`), else None."""
    found = KEYLESS.match(statement)
    if found is None:
        return None
    return " ".join((found.group("object") or found.group("statement")).upper().split())


def _without_ascending(found: re.Match) -> str:
    return re.sub(r"\s+ASC\b", "", found.group(0), flags=re.IGNORECASE)


def _substituting(pattern: re.Pattern, replacement) -> Callable[[str], str]:
    return lambda statement: pattern.sub(replacement, statement)


# Cloud Spanner takes an unnamed key only; a CONSTRAINT name before it is left to be refused.
TABLE_ELEMENT_KEY = re.compile(r"^\s*(PRIMARY\s+KEY\s*\(.*\))\s*$", re.IGNORECASE | re.DOTALL)


def _key_after_columns(statement: str) -> str:
    """A CREATE TABLE whose PRIMARY KEY (...) is an element of its column list, as Cloud Spanner
    also takes it (`CREATE TABLE t (a INT64, b INT64, PRIMARY KEY (a, b))`), with the key moved
    after the list, where every Spanner version reads it; any other statement as it is."""
    elements, depth, start, opened, quote = [], 0, 0, -1, ""
    escaped = False
    for at, char in enumerate(statement):
        if quote:
            escaped, quote = (False, quote) if escaped else (char == "\\", "" if char == quote else quote)
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
            if depth == 1 and opened < 0:
                opened = start = at + 1
        elif char == ")":
            depth -= 1
            if depth == 0 and opened >= 0:
                elements.append((start, at))
                break
        elif char == "," and depth == 1:
            elements.append((start, at))
            start = at + 1
    else:
        return statement  # no closed column list: leave it to the emulator's own message
    keys = [(begin, end) for begin, end in elements if TABLE_ELEMENT_KEY.match(statement[begin:end])]
    if len(keys) != 1 or len(elements) < 2:
        return statement
    begin, end = keys[0]
    key = TABLE_ELEMENT_KEY.match(statement[begin:end]).group(1)  # type: ignore[union-attr]
    kept = [statement[b:e] for b, e in elements if (b, e) != (begin, end)]
    closed = elements[-1][1]
    return f"{statement[:opened]}{','.join(kept)}) {key}{statement[closed + 1:]}"


# What Spanner takes and this emulator version does not, in a statement that defines a key
# space: each rewritten into what the emulator reads the same way for keys, when the emulator
# refuses the statement as written; the note says so. (dialect, rewrite, what)
EMULATOR_GAPS = (
    (GOOGLESQL, _substituting(re.compile(r",\s*OPTIONS\s*\((?:[^()]|\([^()]*\))*\)\s*$", re.IGNORECASE), ""),
     "its table OPTIONS left out (no bearing on keys)"),
    (GOOGLESQL, _key_after_columns, "its PRIMARY KEY moved from the column list to after it (the same key)"),
    (POSTGRESQL, _substituting(re.compile(r"\b(?:big|small)?serial[248]?\b", re.IGNORECASE),
                               "bigint GENERATED BY DEFAULT AS IDENTITY (BIT_REVERSED_POSITIVE)"),
     "serial read as an identity column of Spanner's one sequence kind, bit_reversed_positive"),
    (POSTGRESQL, _substituting(re.compile(r"PRIMARY\s+KEY\s*\([^)]*\bASC\b[^)]*\)", re.IGNORECASE),
                               _without_ascending),
     "ASC left out of its PRIMARY KEY (the order keys take anyway)"),
)


def for_emulator(statement: str, dialect: str) -> tuple[str, list[str]]:
    """The statement with this emulator's known gaps rewritten, and what each rewrite did."""
    done: list[str] = []
    if not CREATE_TABLE.match(statement):
        return statement, done
    for gap_dialect, rewrite, what in EMULATOR_GAPS:
        if gap_dialect == dialect:
            rewritten = rewrite(statement)
            if rewritten != statement:
                statement = rewritten
                done.append(what)
    return statement, done


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
            if done and _applies(scratch, rewritten):
                rewrites.setdefault("; ".join(done), []).append(label)
                continue
            kind = keyless_kind(statement)
            if kind is not None:
                # The emulator's parse errors repeat the statement first: keep what follows it.
                detail = readable(exc.message).rsplit(f"{readable(statement)} : ", 1)[-1]
                notes.append(f"{label} ({kind}) skipped: it defines no key space, and this Spanner "
                             f"emulator{_emulator_version()} refused it ({detail[:120]})")
                continue
            raise DdlRefused(f"{source}: {label} refused by the Spanner emulator "
                             f"({DIALECT_TITLES[dialect]}): "
                             f"{exc.message} (statement: {_shown(statement)})", number, dialect, exc.message) from None
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


def _applies(scratch: Scratch, statement: str) -> bool:
    try:
        admin.update_ddl(scratch.client, scratch.database, [statement])
    except gexc.GoogleAPICallError as exc:
        _unless_silent(exc)
        return False
    return True


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
    def queried(sql: str) -> list[tuple]:
        return rows(sql.format(schema=USER_SCHEMA[dialect]))

    tables, columns, commit_ts = queried(TABLES), queried(COLUMNS), set(queried(COMMIT_TIMESTAMPS))
    indexes, index_columns = queried(INDEXES), queried(INDEX_COLUMNS)
    sequence_options = _sequence_options(queried(SEQUENCE_OPTIONS[dialect]), dialect)
    ddl = ddl_of()
    identities = _identities(ddl)
    extras = _table_extras(ddl)
    columns_of: dict[str, list[Column]] = {}
    for table, name, spanner_type, nullable, default, generated, stored in columns:
        typed, commit_timestamp = (from_postgresql_type(spanner_type) if dialect == POSTGRESQL
                                   else (spanner_type, (table, name) in commit_ts))
        columns_of.setdefault(table, []).append(Column(
            name, typed, nullable == "YES", default, generated, stored == "YES", commit_timestamp,
            identities.get((table, name))))
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
        Index(index, table, tuple(keys.get((table, index), ())), tuple(storing.get((table, index), ())),
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


CONSTRAINT_LINE = re.compile(r"^\s*((?:CONSTRAINT\s+\S+\s+)?(?:FOREIGN\s+KEY|CHECK)\b.*?),?\s*$",
                             re.IGNORECASE | re.MULTILINE)
DELETION_POLICY = re.compile(r"(ROW\s+DELETION\s+POLICY\s*\(.*\)|\bTTL\s+INTERVAL\s+.*)\s*$",
                             re.IGNORECASE | re.DOTALL)


def _table_extras(statements) -> dict[str, tuple[tuple[str, ...], str | None]]:
    """{table: (its constraints, its row deletion policy)} from the emulator's own DDL, where a
    later ALTER TABLE's constraint or policy is already folded into the CREATE TABLE."""
    found = {}
    for statement in statements:
        table = CREATE_TABLE.match(statement)
        if table:
            policy = DELETION_POLICY.search(statement.rpartition("PRIMARY KEY")[2])
            found[table.group(1)] = (tuple(m.group(1).strip() for m in CONSTRAINT_LINE.finditer(statement)),
                                     " ".join(policy.group(1).split()) if policy else None)
    return found


def _identities(statements) -> dict[tuple[str, str], str]:
    """{(table, column): its GENERATED ... AS IDENTITY (...) clause} from the emulator's DDL."""
    found: dict[tuple[str, str], str] = {}
    for statement in statements:
        table = CREATE_TABLE.match(statement)
        if table:
            found |= {(table.group(1), m.group(1)): m.group(2) for m in IDENTITY_COLUMN.finditer(statement)}
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
