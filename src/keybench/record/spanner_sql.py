"""The rows a Spanner DML statement writes, from its text and parameters (sqlglot parses it).

- `INSERT [OR UPDATE | OR IGNORE] INTO t (columns) VALUES (...), ...`: a row per tuple. A
  value is a literal, a parameter (`@name`; PostgreSQL `$n`, sent as `pn`), NULL,
  `PENDING_COMMIT_TIMESTAMP()` (the commit's time) or `GENERATE_UUID()` (modelled: a random
  version-4 UUID, as the database makes). A key column the statement leaves out is the
  database's to fill (spanner_fills.py). `THEN RETURN` (PostgreSQL `RETURNING`) is no write.
- `UPDATE` and `DELETE` whose WHERE fixes every primary key column by equality (joined by
  AND): a write of that row, with the values an UPDATE's SET gives (an index entry).

Anything else (INSERT ... SELECT, a WHERE over a range, an expression the text cannot
evaluate) is no row: the caller counts the statement as unattributed, with the reason.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

COMMIT_TIME = object()  # a value the commit's timestamp fills
_INSERT_OR = re.compile(r"\bINSERT\s+OR\s+(?:UPDATE|IGNORE)\s+", re.IGNORECASE)
# GoogleSQL's THEN RETURN, which sqlglot does not read: what it returns does not change the rows.
_THEN_RETURN = re.compile(r"\s+THEN\s+RETURN\b(?:(?!['\"`]).)*$", re.IGNORECASE | re.DOTALL)


class NotAttributed(ValueError):
    """A statement whose rows the text does not give."""


@dataclass
class DmlRows:
    table: str
    rows: list[dict[str, object]] = field(default_factory=list)  # column (lower case) -> value or a Param
    modelled: int = 0  # values the database generates, modelled
    inserting: bool = False  # an INSERT: the database fills the columns it leaves out


@dataclass(frozen=True)
class Param:
    name: str


def dml_rows(sql: str, dialect: str) -> DmlRows | None:
    """The rows of one statement; None for a statement that is no DML (a query)."""
    sql = _INSERT_OR.sub("INSERT ", sql)
    if dialect != "postgresql":
        sql = _THEN_RETURN.sub("", sql)
    try:
        statement = sqlglot.parse_one(sql,
                                      read="postgres" if dialect == "postgresql" else "bigquery")
    except sqlglot.errors.ParseError as exc:
        raise NotAttributed(f"the statement does not parse: {str(exc).splitlines()[0][:120]}") from None
    if isinstance(statement, exp.Insert):
        return _insert(statement)
    if isinstance(statement, exp.Update | exp.Delete):
        table = statement.this
        if not isinstance(table, exp.Table):
            raise NotAttributed("no table named")
        where = statement.args.get("where")
        row = _equalities(where.this if where is not None else None)
        if isinstance(statement, exp.Update):
            row = {**_assignments(statement.expressions), **row}
        return DmlRows(_table_name(table), [row])
    return None


def _table_name(table: exp.Table) -> str:
    """The table a statement names, with its schema's name in a named schema (sales.Orders), as
    the schema keybench reads names it."""
    return f"{table.db}.{table.name}" if table.db else table.name


def _assignments(expressions) -> dict[str, object]:
    """column -> value of an UPDATE's SET that the text gives; a value it does not (Amount + 1)
    is left out: the row's key stays known, and an index on that column gets no entry."""
    values = {}
    for assignment in expressions:
        if isinstance(assignment, exp.EQ) and isinstance(assignment.this, exp.Column):
            try:
                values[assignment.this.name.lower()] = _value(assignment.expression)
            except NotAttributed:
                continue
    return values


def _insert(statement: exp.Insert) -> DmlRows:
    target = statement.this
    if not isinstance(target, exp.Schema) or not isinstance(target.this, exp.Table):
        raise NotAttributed("an INSERT without a column list")
    table = _table_name(target.this)
    columns = [c.name.lower() for c in target.expressions]
    values = statement.expression
    if not isinstance(values, exp.Values):
        raise NotAttributed("INSERT ... SELECT: its rows come from a query")
    out = DmlRows(table, inserting=True)
    for row in values.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if len(items) != len(columns):
            raise NotAttributed("a VALUES row of another length than the column list")
        evaluated = {c: _value(v) for c, v in zip(columns, items, strict=True)}
        out.modelled += sum(1 for v in items if _is_call(v, "GENERATE_UUID"))
        out.rows.append(evaluated)
    return out


def _equalities(condition) -> dict[str, object]:
    """column -> value of a WHERE made of `column = value` joined by AND."""
    if condition is None:
        raise NotAttributed("no WHERE: every row")
    if isinstance(condition, exp.Paren):
        return _equalities(condition.this)
    if isinstance(condition, exp.And):
        return {**_equalities(condition.this), **_equalities(condition.expression)}
    if isinstance(condition, exp.EQ):
        column, value = condition.this, condition.expression
        if not isinstance(column, exp.Column):
            column, value = value, column
        if isinstance(column, exp.Column):
            return {column.name.lower(): _value(value)}
    raise NotAttributed("a WHERE that does not fix the key by equality")


def _call_name(node) -> str | None:
    """A function call's name, upper case, through a cast or a `spanner.` prefix; None: no call."""
    while isinstance(node, exp.Cast | exp.Dot):
        node = node.this if isinstance(node, exp.Cast) else node.expression
    if isinstance(node, exp.Anonymous):
        return str(node.this).upper()
    if isinstance(node, exp.Func):
        return node.sql_name().upper()
    return None


def _is_call(node, name: str) -> bool:
    return _call_name(node) in _CALLS[name]


# What sqlglot names each call the two dialects write.
_CALLS = {"GENERATE_UUID": {"GENERATE_UUID", "UUID", "GEN_RANDOM_UUID"},
          "PENDING_COMMIT_TIMESTAMP": {"PENDING_COMMIT_TIMESTAMP"}}


def _value(node):
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return float(text) if any(ch in text for ch in ".eE") else int(text)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        value = _value(node.this)
        return -value if isinstance(value, int | float) else value
    if isinstance(node, exp.Parameter | exp.Placeholder):
        name = node.name
        return Param(f"p{name}" if name.isdigit() else name)
    if _is_call(node, "PENDING_COMMIT_TIMESTAMP"):
        return COMMIT_TIME
    if _is_call(node, "GENERATE_UUID"):
        return str(uuid.uuid4())
    if isinstance(node, exp.Cast):
        return _value(node.this)
    raise NotAttributed(f"a value the text cannot give: {node.sql()[:60]}")


# --- queries -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bound:
    value: object  # a literal's value or a Param
    inclusive: bool


@dataclass
class ColumnCondition:
    """What a query's WHERE says of one column: equal to one of `equal`, or between its bounds."""

    equal: list[object] | None = None
    low: Bound | None = None
    high: Bound | None = None


@dataclass
class QueryKeys:
    table: str
    columns: dict[str, ColumnCondition] = field(default_factory=dict)  # by lower-case name


_FLIPPED: dict[type, type] = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE}


def query_keys(sql: str, dialect: str) -> QueryKeys | None:
    """The table a query reads and what its WHERE says of each column, where the text says it:
    `column = v`, `column IN (v, ...)`, `<`, `<=`, `>`, `>=` and `BETWEEN`, joined by AND. Other
    conditions narrow no key range and are left out (the rows read lie within the ranges these
    give). None: a query keybench cannot place (a join, a subquery, OR at the top, no table, a
    WHERE none of whose conditions gives a column's values)."""
    try:
        statement = sqlglot.parse_one(sql, read="postgres" if dialect == "postgresql" else "bigquery")
    except sqlglot.errors.ParseError:
        return None
    if not isinstance(statement, exp.Select) or statement.args.get("joins"):
        return None
    source = statement.args.get("from") or statement.args.get("from_")
    table = source.this if source is not None else None
    if not isinstance(table, exp.Table) or not table.name or table.args.get("catalog"):
        return None
    found = QueryKeys(_table_name(table))
    where = statement.args.get("where")
    if where is None:
        return found  # every row of the table
    names = {table.name.lower(), table.alias_or_name.lower()}
    if not _conditions(where.this, found.columns, names) or not found.columns:
        return None  # a WHERE that gives no column's values (`Id IN UNNEST(@ids)`) reads rows keybench cannot place
    return found


def _conditions(node, columns: dict[str, ColumnCondition], table: set[str]) -> bool:
    """Adds what `node` (a WHERE or a part of one joined by AND) says of the columns of `table`
    (its name and alias); False if it is an OR, which no single set of column conditions
    expresses."""
    if isinstance(node, exp.Paren):
        return _conditions(node.this, columns, table)
    if isinstance(node, exp.And):
        return _conditions(node.this, columns, table) and _conditions(node.expression, columns, table)
    if isinstance(node, exp.Or):
        return False
    try:
        if isinstance(node, exp.In) and _is_column(node.this, table) and node.expressions:
            equal = [_value(v) for v in node.expressions]
            _condition(columns, node.this).equal = equal
        elif isinstance(node, exp.Between) and _is_column(node.this, table) and not node.args.get("symmetric"):
            low, high = Bound(_value(node.args["low"]), True), Bound(_value(node.args["high"]), True)
            condition = _condition(columns, node.this)
            condition.low, condition.high = low, high
        elif isinstance(node, exp.EQ | exp.GT | exp.GTE | exp.LT | exp.LTE):
            column, value, kind = node.this, node.expression, type(node)
            if not isinstance(column, exp.Column):  # `5 < a`: a > 5
                column, value, kind = value, column, _FLIPPED.get(type(node), type(node))
            if _is_column(column, table):
                given = _value(value)
                _bound(_condition(columns, column), kind, given)
    except NotAttributed:
        pass  # a value the text does not give (an expression): that condition narrows nothing here
    return True


def _is_column(node, table: set[str]) -> bool:
    """A column of the queried table: unqualified, or qualified by its name or alias only (not
    `Info.Id`, a field of a proto column, nor another schema's table)."""
    if not isinstance(node, exp.Column):
        return False
    qualifier = [part.name.lower() for part in node.parts[:-1]]
    return not qualifier or (len(qualifier) == 1 and qualifier[0] in table)


def _condition(columns: dict[str, ColumnCondition], column) -> ColumnCondition:
    """The column's condition, made when a value for it is known (never an empty one)."""
    return columns.setdefault(column.name.lower(), ColumnCondition())


def _bound(condition: ColumnCondition, kind, value) -> None:
    if kind is exp.EQ:
        condition.equal = [value]
    elif kind in (exp.GT, exp.GTE):
        condition.low = Bound(value, kind is exp.GTE)
    else:
        condition.high = Bound(value, kind is exp.LTE)
