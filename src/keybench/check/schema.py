"""A Spanner schema as INFORMATION_SCHEMA describes it, and the DDL that recreates a table or
an index from those facts, in either dialect: how a fix is written out without parsing the
user's DDL. Types are held in GoogleSQL's vocabulary whatever the dialect (the reader maps
PostgreSQL's onto it), so one set of rules reads both; expressions stay as the dialect wrote them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from keybench.design.ddl import QUALIFIED_NAME, unquoted

GOOGLESQL, POSTGRESQL = "googlesql", "postgresql"
DIALECT_TITLES = {GOOGLESQL: "GoogleSQL", POSTGRESQL: "PostgreSQL"}

# PostgreSQL's spelling of each GoogleSQL type, as information_schema.columns.spanner_type gives it
# (first) and as the fixed DDL writes it (second).
POSTGRESQL_TYPES = {
    "INT64": ("bigint", "bigint"), "STRING": ("character varying", "varchar"),
    "TIMESTAMP": ("timestamp with time zone", "timestamptz"), "BYTES": ("bytea", "bytea"),
    "BOOL": ("boolean", "boolean"), "FLOAT64": ("double precision", "double precision"),
    "FLOAT32": ("real", "real"), "DATE": ("date", "date"), "NUMERIC": ("numeric", "numeric"),
    "JSON": ("jsonb", "jsonb"),
}
# PostgreSQL has no allow_commit_timestamp option: a commit timestamp is a column of this type.
POSTGRESQL_COMMIT_TIMESTAMP = "spanner.commit_timestamp"


def from_postgresql_type(spanner_type: str) -> tuple[str, bool]:
    """(GoogleSQL type, is a commit timestamp) of a PostgreSQL spanner_type: 'character
    varying(36)' is STRING(36), 'bigint[]' ARRAY<INT64>; a type without a counterpart stays as it is."""
    if spanner_type == POSTGRESQL_COMMIT_TIMESTAMP:
        return "TIMESTAMP", True
    if spanner_type.endswith("[]"):
        return f"ARRAY<{from_postgresql_type(spanner_type[:-2])[0]}>", False
    base, _, length = spanner_type.partition("(")
    found = next((g for g, (read, _) in POSTGRESQL_TYPES.items() if read == base.strip()), None)
    if found is None:
        return spanner_type, False
    return found + (f"({length}" if length else ("(MAX)" if found in ("STRING", "BYTES") else "")), False


def to_postgresql_type(googlesql_type: str) -> str:
    if googlesql_type.upper().startswith("ARRAY<"):
        return to_postgresql_type(googlesql_type[6:-1]) + "[]"
    base, _, length = googlesql_type.upper().partition("(")
    if base not in POSTGRESQL_TYPES:
        return googlesql_type
    written = POSTGRESQL_TYPES[base][1]
    return f"{written}({length}" if base == "STRING" and length not in ("", "MAX)") else written


# Reserved keywords, which a name can be only when quoted ("GoogleSQL lexical structure and
# syntax"; PostgreSQL's "SQL Key Words" appendix, its reserved and reserved-as-function ones).
GOOGLESQL_RESERVED = frozenset("""
    ALL AND ANY ARRAY AS ASC ASSERT_ROWS_MODIFIED AT BETWEEN BY CASE CAST COLLATE CONTAINS CREATE CROSS CUBE
    CURRENT DEFAULT DEFINE DESC DISTINCT ELSE END ENUM ESCAPE EXCEPT EXCLUDE EXISTS EXTRACT FALSE FETCH FOLLOWING
    FOR FROM FULL GROUP GROUPING GROUPS HASH HAVING IF IGNORE IN INNER INTERSECT INTERVAL INTO IS JOIN LATERAL LEFT
    LIKE LIMIT LOOKUP MERGE NATURAL NEW NO NOT NULL NULLS OF ON OR ORDER OUTER OVER PARTITION PRECEDING PROTO
    QUALIFY RANGE RECURSIVE RESPECT RIGHT ROLLUP ROWS SELECT SET SOME STRUCT TABLESAMPLE THEN TO TREAT TRUE
    UNBOUNDED UNION UNNEST USING WHEN WHERE WINDOW WITH WITHIN""".split())
POSTGRESQL_RESERVED = frozenset("""
    all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate
    collation column concurrently constraint create cross current_catalog current_date current_role
    current_schema current_time current_timestamp current_user default deferrable desc distinct do else end
    except false fetch for foreign freeze from full grant group having ilike in initially inner intersect into
    is isnull join lateral leading left like limit localtime localtimestamp natural not notnull null offset on
    only or order outer overlaps placing primary references returning right select session_user similar some
    symmetric table tablesample then to trailing true union unique user using variadic verbose when where
    window with""".split())


def quoted(name: str, dialect: str) -> str:
    """A name as the dialect must write it in DDL keybench generates: quoted when it is a
    reserved keyword (a table named `Order`) or not a plain identifier, and in PostgreSQL also
    when it has capitals (an unquoted name folds to lower case). A name in a named schema
    (sales.Orders) is its two parts, each quoted so."""
    if "." in name:  # a Spanner name holds no dot: it is the schema's and the object's
        return ".".join(quoted(part, dialect) for part in name.split("."))
    if dialect == POSTGRESQL:
        plain = re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in POSTGRESQL_RESERVED
        return name if plain else '"' + name.replace('"', '""') + '"'
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.upper() not in GOOGLESQL_RESERVED
    return name if plain else f"`{name}`"


def new_name(wanted: str, dialect: str) -> str:
    """A name keybench invents (ShardId, a sequence's), as the dialect stores it unquoted."""
    return wanted.lower() if dialect == POSTGRESQL else wanted


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # SPANNER_TYPE: INT64, STRING(36), TIMESTAMP, ...
    nullable: bool = True
    default: str | None = None  # the default's expression, e.g. GENERATE_UUID()
    generated: str | None = None  # a generated column's expression
    stored: bool = False
    commit_timestamp: bool = False  # OPTIONS (allow_commit_timestamp = true); PostgreSQL: spanner.commit_timestamp
    # GENERATED BY DEFAULT AS IDENTITY (BIT_REVERSED_POSITIVE ...), as the emulator writes it
    identity: str | None = None
    checks: tuple[str, ...] = ()  # the CHECK clauses on this column alone, as the emulator writes them

    @property
    def bit_reversed_identity(self) -> bool:
        return self.identity is not None and "BIT_REVERSED_POSITIVE" in self.identity.upper()

    @property
    def base_type(self) -> str:
        """INT64, STRING, BYTES, TIMESTAMP, ...: the type without its length."""
        return self.type.split("(", 1)[0].upper()

    def type_in(self, dialect: str) -> str:
        """The type as the dialect writes it."""
        if dialect == POSTGRESQL:
            return POSTGRESQL_COMMIT_TIMESTAMP if self.commit_timestamp else to_postgresql_type(self.type)
        return self.type

    def ddl(self, dialect: str = GOOGLESQL) -> str:
        postgresql = dialect == POSTGRESQL
        text = f"{quoted(self.name, dialect)} {self.type_in(dialect)}" + ("" if self.nullable else " NOT NULL")
        if self.generated is not None:
            text += " GENERATED ALWAYS" * postgresql + f" AS ({self.generated})" + (" STORED" if self.stored else "")
        elif self.identity is not None:
            text += f" {self.identity}"
        elif self.default is not None:
            text += f" DEFAULT {self.default}" if postgresql else f" DEFAULT ({self.default})"
        if self.commit_timestamp and not postgresql:
            text += " OPTIONS (allow_commit_timestamp = true)"
        return text


@dataclass(frozen=True)
class KeyColumn:
    name: str
    descending: bool = False

    def ddl(self, dialect: str = GOOGLESQL) -> str:
        return quoted(self.name, dialect) + (" DESC" if self.descending else "")


def key_ddl(key: tuple[KeyColumn, ...] | list[KeyColumn], dialect: str = GOOGLESQL) -> str:
    return ", ".join(k.ddl(dialect) for k in key)


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[KeyColumn, ...]
    parent: str | None = None  # INTERLEAVE IN PARENT
    on_delete: str | None = None  # CASCADE or NO ACTION
    # What the table has besides its columns and key, as the emulator writes it back, so that a
    # rewritten table keeps it: FOREIGN KEY and CHECK constraints, and its row deletion policy
    # (GoogleSQL `ROW DELETION POLICY (...)`, PostgreSQL `TTL INTERVAL ... ON column`).
    constraints: tuple[str, ...] = ()
    deletion_policy: str | None = None

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def ddl(self, dialect: str = GOOGLESQL) -> str:
        columns = "".join(f"\n  {c.ddl(dialect)}," for c in self.columns)
        key = f"PRIMARY KEY ({key_ddl(self.key, dialect)})"
        if dialect == POSTGRESQL:
            text = f"CREATE TABLE {quoted(self.name, dialect)} ({columns}\n  {key}\n)"
            interleave = " INTERLEAVE IN PARENT "
        else:
            text = f"CREATE TABLE {quoted(self.name, dialect)} ({columns}\n) {key}"
            interleave = ",\n  INTERLEAVE IN PARENT "
        if self.parent:
            text += interleave + quoted(self.parent,
                                        dialect) + (f" ON DELETE {self.on_delete}" if self.on_delete else "")
        if self.deletion_policy:
            text += (" " if dialect == POSTGRESQL else ",\n  ") + self.deletion_policy
        return text

    def constraint_ddl(self, dialect: str = GOOGLESQL) -> list[str]:
        """Its constraints as statements that add them: after every table they name exists."""
        return [f"ALTER TABLE {quoted(self.name, dialect)} ADD {c}" for c in self.constraints]


@dataclass(frozen=True)
class Index:
    name: str
    table: str
    key: tuple[KeyColumn, ...]
    storing: tuple[str, ...] = ()
    null_filtered: bool = False
    unique: bool = False
    interleaved_in: str | None = None
    # Spanner's own index backing a foreign key (SPANNER_IS_MANAGED): a real key space that
    # takes writes, but not the user's to change or to create.
    managed: bool = False

    def ddl(self, dialect: str = GOOGLESQL) -> str:
        if dialect == POSTGRESQL:
            # NULL_FILTERED is a WHERE clause, which the emulator drops: fixed_statements keeps the user's.
            # PostgreSQL creates an index in its table's schema, named without it
            text = (f"CREATE {'UNIQUE ' * self.unique}INDEX {quoted(self.name.rpartition('.')[2], dialect)} ON "
                    f"{quoted(self.table, dialect)} ({key_ddl(self.key, dialect)})")
            if self.storing:
                text += f" INCLUDE ({', '.join(quoted(c, dialect) for c in self.storing)})"
            return text + (f" INTERLEAVE IN {quoted(self.interleaved_in, dialect)}" if self.interleaved_in else "")
        kind = "UNIQUE " * self.unique + "NULL_FILTERED " * self.null_filtered
        text = f"CREATE {kind}INDEX {quoted(self.name, dialect)} ON {quoted(self.table, dialect)}({key_ddl(self.key)})"
        if self.storing:
            text += f" STORING ({', '.join(quoted(c, dialect) for c in self.storing)})"
        if self.interleaved_in:
            text += f", INTERLEAVE IN {quoted(self.interleaved_in, dialect)}"
        return text


@dataclass(frozen=True)
class Sequence:
    name: str
    options: dict[str, str] = field(default_factory=dict)  # sequence_kind, start_with_counter, skip_range_min/max

    @property
    def bit_reversed(self) -> bool:
        return self.options.get("sequence_kind") == "bit_reversed_positive"

    def ddl(self, dialect: str = GOOGLESQL) -> str:
        if dialect == POSTGRESQL:
            clauses = [self.options.get("sequence_kind", "").upper()]
            if "skip_range_min" in self.options:
                clauses.append(f"SKIP RANGE {self.options['skip_range_min']} {self.options['skip_range_max']}")
            if "start_with_counter" in self.options:
                clauses.append(f"START COUNTER WITH {self.options['start_with_counter']}")
            return " ".join([f"CREATE SEQUENCE {quoted(self.name, dialect)}", *filter(None, clauses)])
        options = ", ".join(f"{k} = {v}" if v.lstrip("-").isdigit() else f'{k} = "{v}"' for k,
                            v in self.options.items())
        return f"CREATE SEQUENCE {quoted(self.name, dialect)} OPTIONS ({options})"


@dataclass(frozen=True)
class Schema:
    tables: tuple[Table, ...]
    indexes: tuple[Index, ...] = ()
    sequences: tuple[Sequence, ...] = ()
    dialect: str = GOOGLESQL  # the dialect the emulator read the DDL in, and the fixes are written in
    # What the check leaves out, and why: statements that define no key space and that the
    # emulator refused (a newer feature), and objects that are no key-ordered range.
    notes: tuple[str, ...] = ()

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def sequence(self, name: str) -> Sequence | None:
        return next((s for s in self.sequences if s.name.lower() == name.lower()), None)

    def indexes_of(self, table: str) -> tuple[Index, ...]:
        return tuple(i for i in self.indexes if i.table == table)


# in a named schema, qualified with it (sales.OrderIds), each part quoted or not
_SEQUENCE_DEFAULT = re.compile(rf"GET_NEXT_SEQUENCE_VALUE\s*\(\s*SEQUENCE\s+({QUALIFIED_NAME})\s*\)"  # GoogleSQL
                               rf"|nextval\s*\(\s*'({QUALIFIED_NAME})'",  # PostgreSQL: nextval('s'::text)
                               re.IGNORECASE)


def sequence_of(column: Column) -> str | None:
    """The sequence a column's default draws from, if any."""
    found = _SEQUENCE_DEFAULT.search(column.default or "")
    return unquoted(found.group(1) or found.group(2)) if found else None


def sequence_default(sequence: str, dialect: str) -> str:
    """A column default that draws from a sequence."""
    return f"nextval('{sequence}')" if dialect == POSTGRESQL else f"GET_NEXT_SEQUENCE_VALUE(SEQUENCE {sequence})"


def uuid_default(dialect: str) -> str:
    """A column default of version-4 UUIDs."""
    return "spanner.generate_uuid()" if dialect == POSTGRESQL else "GENERATE_UUID()"


def fingerprint_shard(column: Column, shards: int, dialect: str) -> str:
    """A shard column's expression: the column's fingerprint modulo shards (the text of a
    value that is no string nor bytes)."""
    textual = column.base_type in ("STRING", "BYTES")
    if dialect == POSTGRESQL:
        value = quoted(column.name, dialect) + ("" if textual else "::text")
        return f"mod(spanner.farm_fingerprint({value}), {shards})"
    name = quoted(column.name, dialect)
    value = name if textual else f"CAST({name} AS STRING)"
    return f"MOD(FARM_FINGERPRINT({value}), {shards})"
