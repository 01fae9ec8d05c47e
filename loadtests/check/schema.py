"""A Spanner schema as INFORMATION_SCHEMA describes it, and the DDL that recreates a table or
an index from those facts (GoogleSQL): how a fix is written out without parsing the user's DDL."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # SPANNER_TYPE: INT64, STRING(36), TIMESTAMP, ...
    nullable: bool = True
    default: str | None = None  # the default's expression, e.g. GENERATE_UUID()
    generated: str | None = None  # a generated column's expression
    stored: bool = False
    commit_timestamp: bool = False  # OPTIONS (allow_commit_timestamp = true)

    @property
    def base_type(self) -> str:
        """INT64, STRING, BYTES, TIMESTAMP, ...: the type without its length."""
        return self.type.split("(", 1)[0].upper()

    def ddl(self) -> str:
        text = f"{self.name} {self.type}" + ("" if self.nullable else " NOT NULL")
        if self.generated is not None:
            text += f" AS ({self.generated})" + (" STORED" if self.stored else "")
        elif self.default is not None:
            text += f" DEFAULT ({self.default})"
        if self.commit_timestamp:
            text += " OPTIONS (allow_commit_timestamp = true)"
        return text


@dataclass(frozen=True)
class KeyColumn:
    name: str
    descending: bool = False

    def ddl(self) -> str:
        return self.name + (" DESC" if self.descending else "")


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[KeyColumn, ...]
    parent: str | None = None  # INTERLEAVE IN PARENT
    on_delete: str | None = None  # CASCADE or NO ACTION

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def ddl(self) -> str:
        columns = "".join(f"\n  {c.ddl()}," for c in self.columns)
        text = f"CREATE TABLE {self.name} ({columns}\n) PRIMARY KEY ({', '.join(k.ddl() for k in self.key)})"
        if self.parent:
            text += f",\n  INTERLEAVE IN PARENT {self.parent}" + (f" ON DELETE {self.on_delete}" if self.on_delete else "")
        return text


@dataclass(frozen=True)
class Index:
    name: str
    table: str
    key: tuple[KeyColumn, ...]
    storing: tuple[str, ...] = ()
    null_filtered: bool = False
    unique: bool = False
    interleaved_in: str | None = None

    def ddl(self) -> str:
        kind = "UNIQUE " * self.unique + "NULL_FILTERED " * self.null_filtered
        text = f"CREATE {kind}INDEX {self.name} ON {self.table}({', '.join(k.ddl() for k in self.key)})"
        if self.storing:
            text += f" STORING ({', '.join(self.storing)})"
        if self.interleaved_in:
            text += f", INTERLEAVE IN {self.interleaved_in}"
        return text


@dataclass(frozen=True)
class Sequence:
    name: str
    options: dict[str, str] = field(default_factory=dict)  # sequence_kind, start_with_counter, skip_range_min/max

    @property
    def bit_reversed(self) -> bool:
        return self.options.get("sequence_kind") == "bit_reversed_positive"

    def ddl(self) -> str:
        options = ", ".join(f"{k} = {v}" if v.lstrip("-").isdigit() else f'{k} = "{v}"' for k, v in self.options.items())
        return f"CREATE SEQUENCE {self.name} OPTIONS ({options})"


@dataclass(frozen=True)
class Schema:
    tables: tuple[Table, ...]
    indexes: tuple[Index, ...] = ()
    sequences: tuple[Sequence, ...] = ()

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def sequence(self, name: str) -> Sequence | None:
        return next((s for s in self.sequences if s.name.lower() == name.lower()), None)

    def indexes_of(self, table: str) -> tuple[Index, ...]:
        return tuple(i for i in self.indexes if i.table == table)


_SEQUENCE_DEFAULT = re.compile(r"GET_NEXT_SEQUENCE_VALUE\s*\(\s*SEQUENCE\s+`?(\w+)`?\s*\)", re.IGNORECASE)


def sequence_of(column: Column) -> str | None:
    """The sequence a column's default draws from, if any."""
    found = _SEQUENCE_DEFAULT.search(column.default or "")
    return found.group(1) if found else None
