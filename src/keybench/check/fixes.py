"""The documented rule a hotspot breaks, and the documented fix written as DDL.

Each rule and fix is a catalogue strategy's: its provenance (document title, section and
phrase) is printed as it is, so the check cites exactly what the side-by-side comparison
cites. A fix changes the schema's facts (schema.py) and writes the changed tables and
indexes out as DDL; the original file's other statements stay as the user wrote them."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from keybench.check.inference import MONOTONIC, SPREAD, WITH_VALUES, Distribution
from keybench.check.keyspaces import SpaceCheck
from keybench.check.request import DEFAULT_SHARDS
from keybench.check.rules import rule_text
from keybench.check.schema import (
    POSTGRESQL,
    Column,
    Index,
    KeyColumn,
    Schema,
    Sequence,
    Table,
    fingerprint_shard,
    key_ddl,
    new_name,
    quoted,
    sequence_default,
    uuid_default,
)
from keybench.design.ddl import INDEX_KIND, SEQUENCE_KIND, TABLE_KIND, creates, creation, name_pattern
from keybench.infra.signals import interrupt_point

# A leading column with at least this many values per node spreads the monotonic one behind it.
SPREADING_VALUES_PER_NODE = 4

# The catalogue strategy whose provenance states the rule a cause breaks.
PROBLEM_RULES = {"time": "timestamp_first", "sequential": "sequential_int", "uuid1": "uuid1",
                 "uuid7": "timestamp_first"}
INDEX_PROBLEM_RULE = "index_monotonic"


@dataclass(frozen=True)
class Fix:
    space: str  # Table or Table.Index
    problem_rule: str  # catalogue strategy whose source states the rule broken
    fix_rule: str  # catalogue strategy whose source documents the fix
    what: str  # the change in one line
    schema: Schema  # the schema with the fix applied
    changed: tuple[str, ...]  # tables, indexes and sequences whose DDL the fix adds or rewrites
    superseded: tuple[str, ...] = ()  # column statements (--columns) the fix makes wrong: Table.Column
    # The statements that take the user's live schema there (ALTER, CREATE and DROP INDEX, CREATE
    # SEQUENCE); empty when Spanner cannot: a primary key, or a key column's default, never changes.
    applicable: tuple[str, ...] = ()
    alternative: str = ""  # another way to the same keys that leaves the table as it is

    @property
    def new_table(self) -> str | None:
        """The table the fix must create anew, when no statement can alter it into shape."""
        return None if self.applicable else self.changed[-1]

    def statements(self, original: list[str]) -> list[str]:
        """The DDL of the fix: the statements to apply, or the whole new table (its deletion
        policy, interleaving, constraints and indexes kept) with a new sequence it needs."""
        if self.applicable:
            return [_with_user_filter(s, original, self.schema.dialect) for s in self.applicable]
        table = self.schema.table(self.changed[-1])
        dialect = self.schema.dialect
        rewritten = fixed_statements(original, self.schema, list(self.changed))
        new = [s for s in rewritten if s not in original and not s.startswith("ALTER TABLE")]
        found = creation(original, TABLE_KIND, table.name)
        if found is not None and found[1] != table.name:  # rewritten under the name it was created with
            was = dataclasses.replace(table, name=found[1]).ddl(dialect)
            new = [table.ddl(dialect) + s[len(was):] if s.startswith(was) else s for s in new]
        indexes = [i.ddl(dialect) for i in self.schema.indexes_of(table.name) if not i.managed]
        return new + [i for i in indexes if i not in new] + table.constraint_ddl(dialect)


@dataclass(frozen=True)
class Fixes:
    """The fixes of a schema's hot key spaces, each proposed on the schema the earlier ones left."""

    by_space: dict[str, Fix]  # by SpaceCheck.name
    schema: Schema  # with every fix applied
    changed: tuple[str, ...]  # what the fixes add or rewrite, in order
    superseded: frozenset[str]  # column statements the fixes make wrong, Table.Column and Column


def propose_all(checks: list[SpaceCheck], schema: Schema, nodes: int, shards: int = DEFAULT_SHARDS) -> Fixes:
    """A fix for every hot key space the user can change, except one that a fix of its
    interleaving root already spreads."""
    by_space: dict[str, Fix] = {}
    changed: list[str] = []
    superseded: set[str] = set()
    fixed = schema
    for space in checks:
        interrupt_point()
        hot = space.verdict.verdict in ("hotspot", "hot_row")
        if hot and not space.managed and not follows_root(space, by_space, schema):
            fix = propose(space, fixed, nodes, shards)
            if fix is not None:
                by_space[space.name] = fix
                fixed, changed = fix.schema, changed + list(fix.changed)
                superseded |= set(fix.superseded) | {s.rpartition(".")[2] for s in fix.superseded}
    return Fixes(by_space, fixed, tuple(changed), frozenset(superseded))


def cause(check: SpaceCheck) -> tuple[str, Distribution] | None:
    """The key column that piles writes at one end: the first monotonic one."""
    return next(((c, d) for c, d in check.assumptions if d.name in MONOTONIC), None)


def follows_root(check: SpaceCheck, fixes: dict[str, Fix], schema: Schema) -> bool:
    """An interleaved table whose hot column is its root's key, when the root has a fix: its
    rows sit under the root's, so the root's fix moves them too; a fix of its own would give
    the child a key its root does not have."""
    found = cause(check)
    if not check.parents or check.index or check.parents[-1] not in fixes or found is None:
        return False
    return found[0] in {k.name for k in schema.table(check.parents[-1]).key}


def spreads(distribution: Distribution, nodes: int) -> bool:
    """Whether a column in front of a monotonic one spreads its writes over the nodes."""
    if distribution.name in SPREAD:
        return True
    return distribution.name in WITH_VALUES and distribution.values >= SPREADING_VALUES_PER_NODE * nodes


def propose(check: SpaceCheck, schema: Schema, nodes: int, shards: int = DEFAULT_SHARDS) -> Fix | None:
    """The documented fix for a hotspot, or None when no key column explains it."""
    found = cause(check)
    if found is None:
        return None
    column, distribution = found
    table = schema.table(check.table)
    if check.index:
        return _fix_index(check, schema, table, column, shards, nodes)
    problem = PROBLEM_RULES[distribution.name]
    if distribution.name == "sequential" and table.column(column).base_type == "INT64":
        return _bit_reversed(check, schema, table, column, problem)
    if distribution.name in ("uuid1", "uuid7") and table.column(column).base_type == "STRING":
        changed = _with_column(table, dataclasses.replace(table.column(column), default=uuid_default(schema.dialect)))
        default = uuid_default(schema.dialect)
        alter = (f"ALTER TABLE {quoted(table.name, schema.dialect)} ALTER COLUMN {quoted(column, schema.dialect)} "
                 f"SET DEFAULT " + (default if schema.dialect == POSTGRESQL else f"({default})"))
        return Fix(check.name, problem, "uuid4_string",
                   f"make {column} a version-4 UUID: DEFAULT ({default}), and stop writing it (new rows take "
                   "the default; existing rows keep their keys)",
                   _replace_table(schema, changed), (table.name,), (f"{table.name}.{column}",), (alter,))
    position = [k.name for k in table.key].index(column)
    behind = [(k, d) for k, (_, d) in zip(table.key, check.assumptions, strict=True)][position + 1:]
    leader = next((k for k, d in behind if spreads(d, nodes)), None)
    if leader is not None:
        # The key columns keep their order (ASC or DESC): a PostgreSQL key is ascending throughout,
        # as the emulator refuses DESC there, so the swap never writes one.
        key = list(table.key)
        key.remove(leader)
        key.insert(position, leader)
        return Fix(check.name, problem, "swapped_order",
                   f"swap the key order: {leader.name} before {column}, PRIMARY KEY "
                   f"({key_ddl(key, schema.dialect)})",
                   _replace_table(schema, dataclasses.replace(table, key=tuple(key))), (table.name,))
    return _shard_table(check, schema, table, column, problem, shards, nodes)


def _bit_reversed(check: SpaceCheck, schema: Schema, table: Table, column: str, problem: str) -> Fix:
    name = _free_name(new_name(f"{table.name}{column}Sequence", schema.dialect), {s.name for s in schema.sequences})
    sequence = Sequence(name, {"sequence_kind": "bit_reversed_positive"})
    changed = _with_column(table, dataclasses.replace(table.column(column),
                                                      default=sequence_default(name, schema.dialect)))
    fixed = dataclasses.replace(_replace_table(schema, changed), sequences=(*schema.sequences, sequence))
    return Fix(check.name, problem, "bit_reversed_sequence",
               f"draw {column} from a bit_reversed_positive sequence", fixed, (name, table.name),
               (f"{table.name}.{column}",),
               alternative=f"or keep the table: create the sequence with skip_range_min = 1 and skip_range_max at "
                           f"least the largest {column} in use, and write {column} = "
                           f"{sequence_default(name, schema.dialect)} in each insert (Spanner changes no key "
                           "column's default), per " + rule_text("migrate_skip_range"))


def _shard_source(table: Table, column: str, check: SpaceCheck, nodes: int) -> Column | None:
    """What a shard column hashes: the monotonic column itself, unless it is a commit
    timestamp (a generated column may not read one); then another key column. Never a column of
    few values, nor a generated one (the shard column an earlier fix of the table put first,
    whose values are as few; and one a new table only has, which the index's own fix, applied
    to the schema as it stands, could not read)."""
    assumed = dict(check.assumptions)

    def few(name: str) -> bool:
        d = assumed.get(name)
        return d is not None and d.name in WITH_VALUES and not spreads(d, nodes)

    candidates = [column] + [k.name for k in table.key if k.name != column]
    return next((table.column(c) for c in candidates
                 if not table.column(c).commit_timestamp and table.column(c).generated is None and not few(c)), None)


def _shard_column(source: Column, shards: int, name: str, dialect: str) -> Column:
    return Column(name, "INT64", nullable=source.nullable, generated=fingerprint_shard(source, shards, dialect),
                  stored=True)


def _shard_table(check: SpaceCheck, schema: Schema, table: Table, column: str, problem: str, shards: int,
                 nodes: int) -> Fix:
    source = _shard_source(table, column, check, nodes)
    taken = {c.name for c in table.columns}
    dialect = schema.dialect
    if source is None:  # only commit timestamps in the key: a random key column in front instead
        name = _free_name(new_name(f"{table.name}Id", dialect), taken)
        uuid = Column(name, "STRING(36)", nullable=False, default=uuid_default(dialect))
        changed = dataclasses.replace(table, columns=(uuid, *table.columns), key=(KeyColumn(name), *table.key))
        return Fix(check.name, problem, "uuid4_string",
                   f"put a version-4 UUID column {name} first in the key: PRIMARY KEY "
                   f"({key_ddl(changed.key, dialect)})",
                   _replace_table(schema, changed), (table.name,))
    name = _free_name(new_name("ShardId", dialect), taken)
    shard = _shard_column(source, shards, name, dialect)
    columns = list(table.columns)
    columns.insert([c.name for c in columns].index(column), shard)
    changed = dataclasses.replace(table, columns=tuple(columns), key=(KeyColumn(name), *table.key))
    return Fix(check.name, problem, "hash_shard_generated",
               f"put a shard column first in the key: {shard.ddl(dialect)}, PRIMARY KEY "
               f"({key_ddl(changed.key, dialect)})",
               _replace_table(schema, changed), (table.name,))


def _fix_index(check: SpaceCheck, schema: Schema, table: Table, column: str, shards: int,
               nodes: int) -> Fix | None:
    index = next(i for i in schema.indexes_of(table.name) if i.name == check.index)
    if table.parent and not index.interleaved_in:
        parent_key = schema.table(table.parent).key
        lead = tuple(KeyColumn(k.name) for k in parent_key if k.name not in {c.name for c in index.key})
        changed = dataclasses.replace(index, key=lead + index.key, interleaved_in=table.parent)
        return Fix(check.name, INDEX_PROBLEM_RULE, "index_interleaved",
                   f"interleave the index in {table.parent}: key ({key_ddl(changed.key, schema.dialect)}), "
                   f"INTERLEAVE IN {table.parent}",
                   _replace_index(schema, changed), (index.name,),
                   applicable=(_drop_index(index, schema.dialect), changed.ddl(schema.dialect)))
    source = _shard_source(table, column, check, nodes)
    if source is None:
        return None
    name = _free_name(new_name("ShardId", schema.dialect), {c.name for c in table.columns})
    shard = _shard_column(source, shards, name, schema.dialect)
    fixed_table = dataclasses.replace(table, columns=(*table.columns, shard))
    changed = dataclasses.replace(index, key=(KeyColumn(name), *index.key))
    fixed = _replace_index(_replace_table(schema, fixed_table), changed)
    add = f"ALTER TABLE {quoted(table.name, schema.dialect)} ADD COLUMN {shard.ddl(schema.dialect)}"
    return Fix(check.name, INDEX_PROBLEM_RULE, "index_sharded",
               f"put a shard column first in the index: {shard.ddl(schema.dialect)}, index key "
               f"({key_ddl(changed.key, schema.dialect)})",
               fixed, (table.name, index.name),
               applicable=(add, _drop_index(index, schema.dialect), changed.ddl(schema.dialect)))


def _drop_index(index: Index, dialect: str) -> str:
    return f"DROP INDEX {quoted(index.name, dialect)}"


def _with_column(table: Table, column: Column) -> Table:
    return dataclasses.replace(table, columns=tuple(column if c.name == column.name else c for c in table.columns))


def _replace_table(schema: Schema, table: Table) -> Schema:
    return dataclasses.replace(schema, tables=tuple(table if t.name == table.name else t for t in schema.tables))


def _replace_index(schema: Schema, index: Index) -> Schema:
    return dataclasses.replace(schema, indexes=tuple(index if i.name == index.name else i for i in schema.indexes))


def _free_name(wanted: str, taken: set[str]) -> str:
    name, n = wanted, 2
    while name in taken:
        name, n = f"{wanted}{n}", n + 1
    return name


def fixed_statements(statements: list[str], fixed: Schema, changed: list[str]) -> list[str]:
    """The user's statements with the fixes applied: a rewritten table or index takes the place
    of the statement that created it, a new sequence comes first, a new index last."""
    dialect = fixed.dialect
    by_name = {s.name: s.ddl(dialect) for s in fixed.sequences}
    by_name |= {t.name: t.ddl(dialect) for t in fixed.tables} | {i.name: i.ddl(dialect) for i in fixed.indexes}
    out = list(statements)
    added: list[str] = []  # the rewritten tables' constraints, added once every table exists
    tables = {t.name: t for t in fixed.tables}
    indexes = {i.name for i in fixed.indexes}
    for name in dict.fromkeys(changed):
        # the last statement that creates it (a migration may drop it and create it again),
        # under the name it had then (a table renamed since is rewritten under it, and renamed)
        found = creation(out, INDEX_KIND if name in indexes else TABLE_KIND, name) or creation(
            out, SEQUENCE_KIND, name)
        if found is not None:
            at, created_as = found
            ddl = by_name[name] if created_as == name else dataclasses.replace(tables[name],
                                                                                name=created_as).ddl(dialect)
            out[at] = ddl + (_postgresql_filter(out[at]) if dialect == POSTGRESQL else "")
            # The rewritten table is the table as it stands after the last statement: a later
            # migration that alters it (a column, a constraint, its deletion policy) is in it.
            later = [_alterations(each) for each in {name, created_as}]
            out = out[:at + 1] + [s for s in out[at + 1:] if not any(p.match(s) for p in later)]
            added += tables[name].constraint_ddl(dialect) if name in tables else []
        elif by_name[name].startswith("CREATE SEQUENCE"):
            # first, but after the schemas it may be created in (CREATE SEQUENCE sales.OrdersIdSequence)
            schemas = [at for at, statement in enumerate(out) if _CREATE_SCHEMA.match(statement)]
            out.insert(schemas[-1] + 1 if schemas else 0, by_name[name])
        else:
            out.append(by_name[name])
    return out + added


_CREATE_SCHEMA = re.compile(r"^\s*CREATE\s+SCHEMA\b", re.IGNORECASE)


def _alterations(table: str) -> re.Pattern:
    """ALTER TABLE statements of `table` that change what its rewrite already holds: a column
    added, dropped or altered, a constraint, a row deletion policy or TTL; not a synonym or a
    rename."""
    return re.compile(rf"^\s*ALTER\s+TABLE\s+(IF\s+EXISTS\s+)?(ONLY\s+)?[`\"]?{name_pattern(table)}[`\"]?\s+"
                      rf"(?!(?:ADD|DROP)\s+SYNONYM\b|RENAME\b)", re.IGNORECASE)


def _with_user_filter(statement: str, original: list[str], dialect: str) -> str:
    """A PostgreSQL CREATE INDEX the fix writes, with the WHERE clause of the user's own."""
    found = re.match(r'^CREATE\s+(?:UNIQUE\s+)?INDEX\s+[`"]?([^\s`"]+)', statement)
    if dialect != POSTGRESQL or found is None:
        return statement
    own = next((s for s in original if creates(INDEX_KIND, found.group(1)).match(s)), None)
    return statement + (_postgresql_filter(own) if own else "")


def _postgresql_filter(statement: str) -> str:
    """A PostgreSQL index's WHERE clause (its NULL_FILTERED), which the emulator accepts but
    keeps nowhere it can be read back: the rewritten index takes the user's own."""
    if not re.match(r"^\s*CREATE\s+(UNIQUE\s+)?INDEX\b", statement, re.IGNORECASE):
        return ""
    found = re.search(r"\sWHERE\s.*$", statement, re.IGNORECASE | re.DOTALL)
    return " " + " ".join(found.group(0).split()) if found else ""
