"""Each key column's value distribution: stated by the user (`--columns FILE`), or inferred
from the column's type, default and options. Every inference carries its reason, which the
report prints beside the verdict; a column nothing tells about is `unknown`, never guessed."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from keybench.check.schema import (
    POSTGRESQL,
    POSTGRESQL_COMMIT_TIMESTAMP,
    Column,
    Schema,
    Table,
    sequence_of,
    to_postgresql_type,
)
from keybench.errors import KeybenchError
from keybench.textfiles import read_text

# What a user may state in the --columns file.
STATED = ("sequential", "random", "uuid4", "uuid1", "uuid7", "time", "categorical", "zipf", "bit_reversed")
UNKNOWN = "unknown"
MONOTONIC = ("sequential", "time", "uuid1", "uuid7")  # new values at one end of the key space
SPREAD = ("random", "uuid4", "bit_reversed")  # new values anywhere in the key space
WITH_VALUES = ("categorical", "zipf")  # these need `values`: how many distinct values there are

# A column named like a moment: OrderTs, CreatedAt, LastAccess, EventTime, created_date, ...
TIME_NAME = re.compile(r"(time|timestamp|date|ts$|_at$|[a-z]At$|^at$|access|created|updated|modified|when)",
                       re.IGNORECASE)
EPOCH_NAME = re.compile(r"(time|timestamp|epoch|millis|micros|nanos|_ts$|[a-z]Ts$)", re.IGNORECASE)
# GoogleSQL: MOD(FARM_FINGERPRINT(x), 16); PostgreSQL: mod(spanner.farm_fingerprint(x), '16'::bigint).
FINGERPRINT_SHARD = re.compile(r"^\s*MOD\s*\(\s*(SPANNER\.)?FARM_FINGERPRINT\s*\(.*\)"
                               r"\s*,\s*'?(\d+)'?(::bigint)?\s*\)\s*$", re.IGNORECASE | re.DOTALL)
UUID_DEFAULT = re.compile(r"\s*(SPANNER\.)?GENERATE_UUID\s*\(\s*\)\s*",
                          re.IGNORECASE)  # PostgreSQL: spanner.generate_uuid()


@dataclass(frozen=True)
class Distribution:
    """How a key column's values arrive, and why keybench believes so."""

    name: str  # one of STATED, or UNKNOWN
    reason: str
    values: int = 0  # categorical / zipf: distinct values
    exponent: float | None = None  # zipf
    sequence: str | None = None  # bit_reversed from a sequence: its name, whose options set the values

    @property
    def known(self) -> bool:
        return self.name != UNKNOWN

    def describe(self) -> str:
        detail = f" ({self.values:,} values)" if self.name in WITH_VALUES else ""
        return f"{self.name}{detail}: {self.reason}"


def read_columns_file(path: str | Path) -> dict[str, Distribution]:
    """The --columns file: `Column = "time"`, or `Table.Column = { distribution = "categorical",
    values = 1000 }`; a key names a column of any table, or of one table."""
    path = Path(path)
    try:
        spec = tomllib.loads(read_text(path, "--columns file"))
    except tomllib.TOMLDecodeError as exc:
        raise KeybenchError(f"--columns file {path} is not valid TOML: {exc}") from None
    stated = {}
    for column, value in _flatten(spec):
        entry = {"distribution": value} if isinstance(value, str) else value
        if not isinstance(entry, dict):
            raise KeybenchError(f"--columns file {path}: {column} must be a distribution name or a table with "
                                f"'distribution', got {value!r}")
        name = entry.get("distribution")
        if name not in STATED:
            raise KeybenchError(f"--columns file {path}: {column}: unknown distribution {name!r}; "
                                f"valid: {', '.join(STATED)}")
        unknown = set(entry) - {"distribution", "values", "exponent"}
        if unknown:
            raise KeybenchError(f"--columns file {path}: {column}: unknown key(s) {', '.join(sorted(unknown))}; "
                                "valid: distribution, values, exponent")
        values = entry.get("values", 0)
        if name in WITH_VALUES and (not isinstance(values, int) or isinstance(values, bool) or values < 1):
            raise KeybenchError(f"--columns file {path}: {column}: {name} needs values = N, how many distinct "
                                f"values the column takes (a whole number, at least 1)")
        exponent = entry.get("exponent")
        if exponent is not None and (name != "zipf" or not isinstance(exponent, int | float) or not 0 < exponent <= 10):
            raise KeybenchError(f"--columns file {path}: {column}: exponent is for zipf only, a number above 0 "
                                "and at most 10")
        stated[column] = Distribution(name, f"stated in {path.name}", values if name in WITH_VALUES else 0,
                                      exponent)
    return stated


def _flatten(spec: dict):
    """`Orders.CustomerId = ...` arrives as {"Orders": {"CustomerId": ...}}: a table of
    tables is a table's columns, a table with `distribution` is one column's entry."""
    for key, value in spec.items():
        if isinstance(value, dict) and "distribution" not in value:
            for column, entry in value.items():
                yield f"{key}.{column}", entry
        else:
            yield key, value


def infer(schema: Schema, table: Table, column: Column, stated: dict[str, Distribution]) -> Distribution:
    """A column's distribution: the user's statement first, then its default and options,
    then an interleaved child's parent key, then its type and name; else unknown."""
    for key in (f"{table.name}.{column.name}", column.name):
        if key in stated:
            return stated[key]
    def written(googlesql_type: str) -> str:
        return to_postgresql_type(googlesql_type) if schema.dialect == POSTGRESQL else googlesql_type

    sequence = sequence_of(column)
    if sequence is not None:
        found = schema.sequence(sequence)
        if found is not None and found.bit_reversed:
            return Distribution("bit_reversed", f"DEFAULT from sequence {found.name}, bit_reversed_positive",
                                sequence=found.name)
        return Distribution("sequential", f"DEFAULT from sequence {sequence}, not bit-reversed")
    if column.bit_reversed_identity:
        return Distribution("bit_reversed", f"{column.identity}: a bit-reversed sequence of its own")
    if UUID_DEFAULT.fullmatch(column.default or ""):
        return Distribution("uuid4", f"DEFAULT ({(column.default or '').strip()}): version-4 UUIDs")
    if column.commit_timestamp:
        marked = POSTGRESQL_COMMIT_TIMESTAMP if schema.dialect == POSTGRESQL else "allow_commit_timestamp"
        return Distribution("time", f"{marked}: the commit time, which only grows")
    if column.generated is not None:
        shard = FINGERPRINT_SHARD.match(column.generated)
        if shard:
            count = int(shard.group(2))
            # MOD keeps the fingerprint's sign: -count < value < count.
            return Distribution("categorical", f"stored AS (MOD(FARM_FINGERPRINT(...), {count})): a hash, "
                                               f"{2 * count - 1} values", 2 * count - 1)
        return Distribution(UNKNOWN, f"generated AS ({column.generated}): keybench cannot tell its values")
    parent_key = _parent_key_column(schema, table, column)
    if parent_key is not None:
        parent, parent_column = parent_key
        inherited = infer(schema, parent, parent_column, stated)
        if inherited.known:
            return Distribution(inherited.name, f"the key of parent {parent.name} ({inherited.reason})",
                                inherited.values, inherited.exponent, inherited.sequence)
    if column.base_type in ("TIMESTAMP", "DATE") and TIME_NAME.search(column.name):
        return Distribution("time", f"{_article(written(column.base_type))} named like the write's time")
    if column.base_type == "INT64" and EPOCH_NAME.search(column.name):
        return Distribution("time", f"an {written('INT64')} named like a time since the epoch")
    if column.base_type == "BOOL":
        return Distribution("categorical", f"{written('BOOL')}: two values", 2)
    return Distribution(UNKNOWN,
                        f"{_article(column.type_in(schema.dialect))} with no default or option that tells its values")


def _article(noun: str) -> str:
    """ "an INT64", "a TIMESTAMP": the article a type's name takes when read aloud."""
    return ("an " if noun[:1].upper() in "AEIOU" else "a ") + noun


def _parent_key_column(schema: Schema, table: Table, column: Column) -> tuple[Table, Column] | None:
    """An interleaved child's column that is its parent's key column at the same position."""
    if not table.parent:
        return None
    parent = schema.table(table.parent)
    position = next((i for i, k in enumerate(table.key) if k.name == column.name), None)
    if position is None or position >= len(parent.key) or parent.key[position].name != column.name:
        return None
    return parent, parent.column(column.name)
