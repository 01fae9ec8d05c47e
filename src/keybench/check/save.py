"""`keybench check --save-strategy DIR`: each checked table (or the row-key template) as a
keybench strategy folder, DIR/<backend>/<name>/, in the catalogue's own format (strategy.toml
and googlesql.sql or postgresql.sql, or table.toml), so that `keybench run --strategy-dir DIR` runs
it beside the catalogue, in the dialect it was saved from. The key parts are the ones the check
judged (keyspaces.key_specs, template.py); the fixture is the user's own DDL, which the emulator
has accepted, plus the columns keybench keeps its bookkeeping in."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from keybench.check.inference import Distribution
from keybench.check.keyspaces import UNKNOWN_CASES, key_distributions, key_specs
from keybench.check.schema import GOOGLESQL, POSTGRESQL, Column, Schema, Table, new_name, quoted
from keybench.design.ddl import split_ddl, unquoted
from keybench.design.folders import (
    StrategyDraft,
    folder_name,
    toml_table_list,
    toml_value,
)
from keybench.design.strategies import USER_DESIGN_COLUMNS
from keybench.design.typed import parse_type
from keybench.errors import KeybenchError

# The types of keybench's bookkeeping columns in a user's table (see strategies.USER_DESIGN_COLUMNS).
BOOKKEEPING_TYPES = {"time_column": "TIMESTAMP", "user_column": "INT64", "write_id_column": "STRING(64)",
                     "payload_column": "STRING(MAX)"}


def _resolved(distributions: dict[str, Distribution]) -> tuple[dict[str, Distribution], list[str]]:
    """A column the check could not infer is modelled both ways; a saved design writes rows,
    so it takes the worst case (sequential) and says so."""
    case = UNKNOWN_CASES[0]
    unknown = [c for c, d in distributions.items() if not d.known]
    resolved = {c: d if d.known else Distribution(case, "unknown, taken as the worst case") for c,
                d in distributions.items()}
    notes = [f"{', '.join(unknown)}: distribution unknown, written as {case} (the worst case); state it with --columns "
             "and save again"] if unknown else []
    return resolved, notes


def spanner_draft(schema: Schema, table: Table, ddl_text: str, source: Path, infer) -> StrategyDraft:
    """A table of the user's DDL as a strategy folder; `infer(table, column)` is the check's
    inference (with --columns)."""
    name, what = folder_name(table.name), f"table {table.name}"
    parent = schema.table(table.parent) if table.parent else None
    cased = _cased_names(schema, table, parent)
    if cased:
        return StrategyDraft("spanner", name, what,
                             skipped=f"quoted name(s) {', '.join(cased)} are not lower case: keybench "
                                                     "writes PostgreSQL names as PostgreSQL folds unquoted ones")
    if parent is not None and parent.parent:
        return StrategyDraft("spanner", name, what, skipped=f"interleaved in {parent.name}, itself interleaved in "
                                                     f"{parent.parent}: keybench writes one level of parent rows")
    taken = [c for c in USER_DESIGN_COLUMNS.values() if any(col.name.lower() == c.lower() for col in table.columns)]
    if taken:
        return StrategyDraft("spanner", name, what,
                             skipped=f"has column(s) {', '.join(taken)}, which keybench keeps its "
                                                     "bookkeeping in")
    distributions, notes = _resolved(key_distributions(schema, table, infer))
    computed = [c for c in distributions if table.column(c).generated is not None]
    if computed:
        return StrategyDraft("spanner", name, what,
                             skipped=f"key column(s) {', '.join(computed)} generated AS (...) by the "
                                                     "database: keybench cannot know the keys of the rows it writes")
    keyed = {k.name for k in table.key}
    indexes: list = []
    extra: dict[str, dict] = {}
    for index in schema.indexes_of(table.name):
        if index.managed:
            # Spanner creates and writes a foreign key's backing index itself: the fixture has no
            # CREATE INDEX for it, and its writes follow from the table's.
            notes.append(f"{index.name} is Spanner's own (backing a foreign key): its entries are written, "
                         "but the load does not read through it")
            continue
        specs = key_specs(schema, table, index.key, distributions, typed=True)
        indexes.append({"name": index.name, "key": specs, **({"stores": list(index.storing)} if index.storing else {})})
        # An index column outside the table key gets the value the index part computes, so the
        # index's key space is the one the check judged.
        extra.update((spec["column"], spec) for spec in specs if spec["column"] not in keyed)
    key = key_specs(schema, table, table.key, distributions, typed=True)
    extra.update((spec["column"], spec) for spec in _fills(table, keyed | set(extra), source))
    parent_rows: dict[str, Any] = {}
    if parent is not None:
        if any(spec["value"] in ("generated", "generated_uuid") for spec in key):
            return StrategyDraft("spanner", name, what, skipped=f"interleaved in {parent.name} with a key the database "
                                                         "generates: keybench inserts such keys by DML, without parent "
                                                         "rows")
        parent_rows = {"table": parent.name, "key_columns": len(parent.key),
                       "column": _fills(parent, {k.name for k in parent.key}, source)}
        notes.append(f"each insert upserts its parent row in {parent.name}, in the same commit")
    if any(spec["value"] == "fill" for spec in (*extra.values(), *parent_rows.get("column", ()))):
        notes.append("NOT NULL columns outside the key get a value of their type from each write's insert number "
                     "or time")
    kept, foreign_keys = without_foreign_keys(ddl_text, schema.dialect)
    if foreign_keys:
        notes.append(f"{foreign_keys} FOREIGN KEY constraint(s) left out of the saved DDL: the load writes no rows of "
                     "the tables they reference, so every insert would violate them")
    meta = "".join([
        f"# Saved by keybench check from {source.name}: table {table.name} as its DDL declares it.\n",
        f"summary = {toml_value(f'{table.name} as {source.name} declares it')}\n",
        f"table = {toml_value(table.name)}\n",
        *(f"{k} = {toml_value(v)}\n" for k, v in USER_DESIGN_COLUMNS.items()),
        f"note = {toml_value('; '.join(notes))}\n" if notes else "",
        toml_table_list("key", key),
        toml_table_list("column", list(extra.values())),
        toml_table_list("index", indexes),
        _parent_rows_table(parent_rows),
        f"\n[source]\nuser = {toml_value(f'saved by keybench check from {source.name}')}\n",
    ])
    dialect = schema.dialect
    bookkeeping = [f"ALTER TABLE {quoted(table.name, dialect)} ADD COLUMN "
                   + Column(new_name(USER_DESIGN_COLUMNS[k], dialect), t).ddl(dialect) for k,
                   t in BOOKKEEPING_TYPES.items()]
    text = kept.rstrip() + ("" if _closed(kept) else ";")
    ddl = (f"-- {source.name} as the Spanner emulator accepted it:\n{text}\n\n"
           "-- The columns keybench keeps each write's time, user, WriteId and payload in (nullable, outside every "
           "key).\n"
           + "".join(f"{s};\n" for s in bookkeeping))
    return StrategyDraft("spanner", name, what, {"strategy.toml": meta, f"{dialect}.sql": ddl}, notes=tuple(notes))


def _cased_names(schema: Schema, table: Table, parent: Table | None) -> list[str]:
    """PostgreSQL names keybench cannot write: a run writes every name in lower case, as an
    unquoted name is stored (the catalogue's fixtures rely on it), so a quoted "OrderId" is missed."""
    if schema.dialect != POSTGRESQL:
        return []
    names = [t.name for t in (table, parent) if t is not None]
    names += [c.name for t in (table, parent) if t is not None for c in t.columns]
    names += [i.name for i in schema.indexes_of(table.name) if not i.managed]
    return [n for n in dict.fromkeys(names) if n != n.lower()]


def _parent_rows_table(parent_rows: dict) -> str:
    if not parent_rows:
        return ""
    return (f"\n[parent_rows]\ntable = {toml_value(parent_rows['table'])}\nkey_columns = {parent_rows['key_columns']}\n"
            + toml_table_list("column", parent_rows["column"]))


def _fills(table: Table, given: set[str], source: Path) -> list[dict]:
    """A `fill` part for each NOT NULL column of the table that is not in `given` and has no
    default: the database refuses a row without it. A type keybench cannot write is one line."""
    fills = []
    for column in table.columns:
        if column.nullable or column.name in given or column.default or column.generated:
            continue
        try:
            parse_type(column.type)
        except ValueError as exc:
            raise KeybenchError(f"{source}: {table.name}.{column.name} is NOT NULL and keybench {exc}") from None
        fills.append({"column": column.name, "value": "fill", "type": column.type})
    return fills


_PART = r"(?:[`\"][^`\"]+[`\"]|\w+)"
_NAME = rf"{_PART}(?:\.{_PART})*"  # a name, quoted or not, schema-qualified or not
_REFERENCES = rf"REFERENCES\s+{_NAME}\s*(?:\([^)]*\))?(?:\s+ON\s+DELETE\s+(?:CASCADE|NO\s+ACTION))?" \
              r"(?:\s+(?:NOT\s+)?ENFORCED)?"
# A table constraint: `, CONSTRAINT fk FOREIGN KEY (a) REFERENCES t (b) ON DELETE CASCADE`.
_FOREIGN_KEY = re.compile(rf",\s*(?:CONSTRAINT\s+(?P<name>{_NAME})\s+)?FOREIGN\s+KEY\s*\([^)]*\)\s*{_REFERENCES}",
                          re.IGNORECASE)
# A PostgreSQL column's own `[CONSTRAINT fk] REFERENCES t (b)` (REFERENCES is reserved there, so no
# column is named so; in GoogleSQL it is not, and a column `References STRING(MAX)` must stay).
_INLINE_FOREIGN_KEY = re.compile(rf"\s+(?:CONSTRAINT\s+(?P<name>{_NAME})\s+)?{_REFERENCES}", re.IGNORECASE)
_ADD_FOREIGN_KEY = re.compile(rf"^\s*ALTER\s+TABLE\s+(?:ONLY\s+)?{_NAME}\s+ADD\s+(?:CONSTRAINT\s+(?P<name>{_NAME})\s+)?"
                              r"FOREIGN\s+KEY\b", re.IGNORECASE)
_DROP_CONSTRAINT = re.compile(rf"^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?{_NAME}\s+DROP\s+CONSTRAINT\s+"
                              rf"(?:IF\s+EXISTS\s+)?(?P<name>{_NAME})\s*$", re.IGNORECASE)


def without_foreign_keys(ddl_text: str, dialect: str = GOOGLESQL) -> tuple[str, int]:
    """The DDL without its FOREIGN KEY constraints (and the statements that drop one by name),
    and how many it had."""
    clauses = [_FOREIGN_KEY] + ([_INLINE_FOREIGN_KEY] if dialect == POSTGRESQL else [])
    kept, removed, names = [], 0, set()
    for statement in split_ddl(ddl_text):
        added = _ADD_FOREIGN_KEY.match(statement)
        if added:
            removed += 1
            names.add(unquoted(added.group("name") or "").lower())
            continue
        for clause in clauses:
            names |= {unquoted(m.group("name") or "").lower() for m in clause.finditer(statement)}
            statement, found = clause.subn("", statement)
            removed += found
        kept.append(statement)
    names.discard("")
    dropped = _DROP_CONSTRAINT.match
    kept = [st for st in kept if not ((m := dropped(st)) and unquoted(m.group("name")).lower() in names)]
    return ("".join(f"{s};\n" for s in kept) if removed else ddl_text), removed


def _closed(ddl_text: str) -> bool:
    """Whether the file's last statement ends with its `;` (a statement appended after it is its own)."""
    marker = "SELECT 1"
    return split_ddl(f"{ddl_text}\n{marker}")[-1] == marker


def template_draft(template: str, specs: list[dict]) -> StrategyDraft:
    """A row-key template as a Bigtable strategy folder: its segments' bigtable_part declarations."""
    from keybench.check.template import SEPARATOR

    name = folder_name(template.replace(SEPARATOR, "_"))
    meta = (f"# Saved by keybench check --bigtable {template}\n"
            f"summary = {toml_value(f'row key {template}')}\n"
            f"separator = {toml_value(SEPARATOR)}\n"
            + toml_table_list("key", specs)
            + f"\n[source]\nuser = {toml_value(f'saved by keybench check --bigtable {template}')}\n")
    table = ("# One column family; a row is one write, so one version is all it needs.\n"
             "[column_families.cf]\ngc = { max_versions = 1 }\n")
    return StrategyDraft("bigtable", name, f"row key {template}", {"strategy.toml": meta, "table.toml": table})
