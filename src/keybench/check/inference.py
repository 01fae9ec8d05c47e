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
    Sequence,
    Table,
    sequence_of,
    to_postgresql_type,
)
from keybench.design.keys import MAX_CATEGORY_VALUES
from keybench.errors import KeybenchError
from keybench.textfiles import read_text

# What a user may state in the --columns file.
STATED = ("sequential", "random", "uuid4", "uuid1", "uuid7", "time", "categorical", "zipf", "bit_reversed")
UNKNOWN = "unknown"
STATED_REASON = "stated in "  # the reason of a column the --columns file states, before the file's name
MONOTONIC = ("sequential", "time", "uuid1", "uuid7")  # new values at one end of the key space
SPREAD = ("random", "uuid4", "bit_reversed")  # new values anywhere in the key space
WITH_VALUES = ("categorical", "zipf")  # these need `values`: how many distinct values there are

# Facts say how a column is filled (its default, an option, a sequence). A name only suggests
# it: what keybench takes from a name is a guess, printed as one, and `--strict` leaves such a
# column unknown.
# The write's own time: named for the write (CreatedAt, inserted_ts, LastAccess, UpdateTime) or
# for the record's time (OrderTs, EventTime, ReadAt, timestamp) ...
WRITE_TIME_NAME = re.compile(r"(creat|insert|updat|modif|written|record|logged|receiv|ingest|access|commit|seen)",
                             re.IGNORECASE)
RECORD_TIME_NAME = re.compile(r"(ts$|time$|timestamp$|^when$|_at$|^at$)|[a-z]At$", re.IGNORECASE)
# ... and not another moment the row describes (a concert's StartTime, an EventDate, an
# ExpiryTime, a partition's StartTimestamp), whose order the application decides.
OTHER_MOMENT = re.compile(r"(start|begin|end|finish|expir|due|birth|schedul|valid|until|deadline|plan|open|clos|"
                          r"depart|arriv|publish|effective|renew|date)", re.IGNORECASE)
EPOCH_NAME = re.compile(r"(time|timestamp|epoch|millis|micros|nanos|_ts$|[a-z]Ts$)", re.IGNORECASE)
# A 36-character string or 16 bytes named as an id or a UUID: a UUID, as the documents'
# examples (and GENERATE_UUID) write them.
UUID_NAME = re.compile(r"(uuid|guid|id$|key$)", re.IGNORECASE)
UUID_TYPES = ("STRING(36)", "BYTES(16)")
# People's names, e-mail addresses, logins: many values, arriving in no key order. Not any
# column ending in "name": a TableName, MetricName or TreeName often takes a handful of values.
NAME_LIKE = re.compile(r"(e_?mail|login|handle|slug|^name$|(first|last|full|given|family|middle|display|user|player|"
                       r"customer|nick|screen|account|person|member|contact|author|artist|singer|real)_?name$)",
                       re.IGNORECASE)
# A remainder: MOD(x, N) takes N values (0 to N-1 for the positive ids it is used on), in turn
# as x counts up, so it spreads whether x is a counter or random.
REMAINDER = re.compile(r"^\s*MOD\s*\((?!\s*(SPANNER\.)?FARM_FINGERPRINT)(.*),\s*'?(\d+)'?(::bigint)?\s*\)\s*$",
                       re.IGNORECASE | re.DOTALL)
# GoogleSQL: MOD(FARM_FINGERPRINT(x), 16); PostgreSQL: mod(spanner.farm_fingerprint(x), '16'::bigint).
# Either may take the absolute value, of the hash or of the remainder: ABS(MOD(FARM_FINGERPRINT(x), 16)).
FINGERPRINT_SHARD = re.compile(r"^\s*(?P<outer>ABS\s*\(\s*)?MOD\s*\(\s*(?P<inner>ABS\s*\(\s*)?(SPANNER\.)?"
                               r"FARM_FINGERPRINT\s*\(.*\)\s*,\s*'?(?P<count>\d+)'?(::bigint)?\s*\)\s*(?(outer)\)\s*)$",
                               re.IGNORECASE | re.DOTALL)
UUID_DEFAULT = re.compile(r"\s*(SPANNER\.)?GENERATE_UUID\s*\(\s*\)\s*",
                          re.IGNORECASE)  # PostgreSQL: spanner.generate_uuid()


def fingerprint_shard(generated: str) -> tuple[int, bool, str] | None:
    """A generated FARM_FINGERPRINT shard's count, whether an ABS drops the hash's sign, and its
    shape as a reason names it; None for any other expression."""
    shard = FINGERPRINT_SHARD.match(generated)
    if shard is None:
        return None
    count = int(shard.group("count"))
    shape = (f"ABS(MOD(FARM_FINGERPRINT(...), {count}))" if shard.group("outer") else
             f"MOD(ABS(FARM_FINGERPRINT(...)), {count})" if shard.group("inner") else
             f"MOD(FARM_FINGERPRINT(...), {count})")
    return count, bool(shard.group("outer") or shard.group("inner")), shape


@dataclass(frozen=True)
class Distribution:
    """How a key column's values arrive, and why keybench believes so."""

    name: str  # one of STATED, or UNKNOWN
    reason: str
    values: int = 0  # categorical / zipf: distinct values
    exponent: float | None = None  # zipf
    sequence: str | None = None  # bit_reversed from a sequence: its name, whose options set the values
    guessed: bool = False  # from a name, not a fact of the schema: --strict leaves it unknown

    @property
    def known(self) -> bool:
        return self.name != UNKNOWN

    def describe(self) -> str:
        detail = f" ({self.values:,} values)" if self.name in WITH_VALUES else ""
        guess = " (a guess from its name: state it with --columns if it is wrong)" if self.guessed else ""
        return f"{self.name}{detail}: {self.reason}{guess}"

    def strictly(self) -> Distribution:
        """Under --strict: a guess from a name is no fact, so the column is unknown."""
        if not self.guessed:
            return self
        return Distribution(UNKNOWN, f"--strict takes no guess from a name (it reads as {self.name}: {self.reason})")


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
        if name in WITH_VALUES and (not isinstance(values, int) or isinstance(values, bool)
                                    or not 1 <= values <= MAX_CATEGORY_VALUES):
            raise KeybenchError(f"--columns file {path}: {column}: {name} needs values = N, how many distinct "
                                f"values the column takes (a whole number from 1 to {MAX_CATEGORY_VALUES:,}), "
                                f"got {values!r}")
        exponent = entry.get("exponent")
        if exponent is not None and (name != "zipf" or not isinstance(exponent, int | float) or not 0 < exponent <= 10):
            raise KeybenchError(f"--columns file {path}: {column}: exponent is for zipf only, a number above 0 "
                                "and at most 10")
        stated[column] = Distribution(name, f"{STATED_REASON}{path.name}", values if name in WITH_VALUES else 0,
                                      exponent)
    return stated


def _flatten(spec: dict, within: str = ""):
    """`Orders.CustomerId = ...` arrives as {"Orders": {"CustomerId": ...}}: a table of
    tables is a table's columns (a schema's tables', `sales.Orders.CustomerId`), a table with
    `distribution` is one column's entry."""
    for key, value in spec.items():
        if isinstance(value, dict) and "distribution" not in value:
            yield from _flatten(value, f"{within}{key}.")
        else:
            yield f"{within}{key}", value


def infer(schema: Schema, table: Table, column: Column, stated: dict[str, Distribution],
          strict: bool = False) -> Distribution:
    """A column's distribution: the user's statement first, then its default and options,
    then an interleaved child's parent key, then its type and name (a guess, which `strict`
    refuses); else unknown."""
    for key in (f"{table.name}.{column.name}", column.name):
        if key in stated:
            return stated[key]
    found = _inferred(schema, table, column, stated)
    return found.strictly() if strict else found


def _inferred(schema: Schema, table: Table, column: Column, stated: dict[str, Distribution]) -> Distribution:
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
        shard = fingerprint_shard(column.generated)
        if shard is not None:
            count, positive, shape = shard
            # MOD keeps the fingerprint's sign: -count < value < count, unless an ABS drops it
            # (0 to count-1). A hash of a column with fewer values takes no more than the column.
            values, why = (count if positive else 2 * count - 1), ""
            for source in columns_in(table, column.generated, column.name):
                hashed = infer(schema, table, source, stated)
                if hashed.name in WITH_VALUES and hashed.values < values:
                    values, why = hashed.values, f", no more than {source.name}'s {hashed.values:,}"
            return Distribution("categorical", f"{'stored ' if column.stored else ''}AS ({shape}): a hash, "
                                               f"{values:,} values{why}", values)
        remainder = REMAINDER.match(column.generated)
        if remainder:
            count = int(remainder.group(3))
            return Distribution("categorical", f"generated AS ({' '.join(column.generated.split())}): a remainder, "
                                               f"{count:,} values taken in turn", count)
        if not (column.base_type == "STRING" and NAME_LIKE.search(column.name)):
            return Distribution(UNKNOWN, f"generated AS ({column.generated}): keybench cannot tell its values")
    parent_key = _parent_key_column(schema, table, column)
    if parent_key is not None:
        parent, parent_column = parent_key
        inherited = infer(schema, parent, parent_column, stated)
        if inherited.known:
            return Distribution(inherited.name, f"the key of parent {parent.name} ({inherited.reason})",
                                inherited.values, inherited.exponent, inherited.sequence, inherited.guessed)
    for clause in column.checks:
        listed = checked_values(clause, column.name)
        if listed is not None:
            return Distribution("categorical", f"CHECK ({clause}): {listed:,} values", listed)
    typed = _article(column.type_in(schema.dialect))
    if column.base_type in ("TIMESTAMP", "DATE") or (column.base_type == "INT64" and EPOCH_NAME.search(column.name)):
        epoch = " since the epoch" if column.base_type == "INT64" else ""
        if WRITE_TIME_NAME.search(column.name) or (RECORD_TIME_NAME.search(column.name) or epoch) \
                and not OTHER_MOMENT.search(column.name):
            return Distribution("time", f"{typed} named for the write's time{epoch}, which only grows", guessed=True)
        if column.base_type != "INT64":
            named = ("named for another moment than the write" if OTHER_MOMENT.search(column.name)
                     else "whose name does not say it is the write's time")
            return Distribution(UNKNOWN, f"{typed} {named}: the application decides the order its values "
                                         "arrive in")
    if column.type.upper() in UUID_TYPES and UUID_NAME.search(column.name):
        return Distribution("uuid4", f"{typed} named as an id: a version-4 UUID", guessed=True)
    if column.base_type == "INT64":
        found = _sequence_beside(schema, table, column)
        if found is not None:
            return Distribution("bit_reversed" if found.bit_reversed else "sequential",
                                f"filled by the application, from sequence {found.name} (no DEFAULT uses it"
                                f"{', bit_reversed_positive' if found.bit_reversed else ', not bit-reversed'})",
                                sequence=found.name if found.bit_reversed else None, guessed=True)
    if column.base_type == "STRING" and NAME_LIKE.search(column.name):
        return Distribution("random", f"{typed} named like a name or an address: many values, in no key order",
                            guessed=True)
    if column.base_type == "BOOL":
        return Distribution("categorical", f"{written('BOOL')}: two values", 2)
    return Distribution(UNKNOWN, f"{typed} with no default or option that tells its values")


# A literal of a CHECK clause as the emulator writes it: 'text' (PostgreSQL adds ::text), "text"
# in GoogleSQL, a number, a boolean.
_LITERAL = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\""
                      r"|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])|\b(?:TRUE|FALSE)\b", re.IGNORECASE)
_CAST = r"(?:\s*::\s*[\w ]+(?:\[\])?)?"  # PostgreSQL's cast of a literal or an array


def checked_values(clause: str, name: str) -> int | None:
    """How many values a CHECK clause on one column lets it take, where the clause lists them:
    `Kind IN ('a', 'b')`, PostgreSQL's `(kind = ANY (ARRAY['a'::text, 'b'::text]))`, `N = 1 OR
    N = 2`, `N BETWEEN 1 AND 5`; None for any other clause (a bound, a pattern, other columns)."""
    text = clause.strip()
    while text.startswith("(") and _closes_at_end(text):
        text = text[1:-1].strip()
    column = rf"\(?[`\"]?{re.escape(name)}[`\"]?\)?{_CAST}"
    listed = (re.fullmatch(rf"{column}\s+IN\s*\((.*)\)", text, re.IGNORECASE | re.DOTALL)
              or re.fullmatch(rf"{column}\s*=\s*ANY\s*\(\s*\(?\s*ARRAY\s*\[(.*?)\]\s*\)?{_CAST}\s*\)", text,
                              re.IGNORECASE | re.DOTALL))
    if listed:
        items = _LITERAL.findall(listed.group(1))
        rest = re.sub(rf"(?:{_LITERAL.pattern}){_CAST}|[\s,]", "", listed.group(1), flags=re.IGNORECASE)
        return len(set(items)) if items and not rest else None
    between = re.fullmatch(rf"{column}\s+BETWEEN\s+(-?\d+)\s+AND\s+(-?\d+)", text, re.IGNORECASE)
    if between:
        count = int(between.group(2)) - int(between.group(1)) + 1
        return count if count > 0 else None
    terms = re.split(r"\s+OR\s+", text, flags=re.IGNORECASE)
    equal = re.compile(rf"\(?\s*{column}\s*=\s*((?:{_LITERAL.pattern}){_CAST})\s*\)?", re.IGNORECASE)
    found = [equal.fullmatch(term.strip()) for term in terms]
    return len({m.group(1) for m in found if m}) if all(found) else None


def _closes_at_end(text: str) -> bool:
    """Whether the parenthesis that opens `text` closes at its end (quotes aside)."""
    depth, quote = 0, ""
    for at, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return at == len(text) - 1
    return False


def columns_in(table: Table, expression: str, own: str) -> list[Column]:
    """The table's columns an expression names (a generated column's sources)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", expression)}
    return [c for c in table.columns if c.name.lower() in words and c.name != own]


def _sequence_beside(schema: Schema, table: Table, column: Column) -> Sequence | None:
    """A sequence no column's DEFAULT uses, named for this column (venue_id_sequence for
    VenueId): the application's likely source of its values."""
    used = {sequence_of(c) for t in schema.tables for c in t.columns} - {None}

    def plain(name: str) -> str:
        return re.sub(r"[^a-z0-9]", "", name.lower())

    # A column named only `id` is known by its table's name: ticket_sale_seq for ticket_sales.id.
    own = [plain(column.name)] if len(plain(column.name)) > 2 else [plain(table.name), plain(table.name).rstrip("s")]
    return next((s for s in schema.sequences if s.name not in used
                 and any(len(o) > 2 and o in plain(s.name) for o in own)), None)


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
