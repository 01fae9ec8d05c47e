"""What the check does with a statement before and after the Spanner emulator reads it: which
statements are no DDL (seed data, session commands) or define no key space (graphs, views,
roles), and how a statement this emulator version refuses is rewritten into one it reads the
same way for keys."""

from __future__ import annotations

import re
from collections.abc import Callable

from keybench.check.schema import GOOGLESQL, POSTGRESQL
from keybench.design.ddl import TABLE_KIND, created_name, creates

# A CREATE TABLE and the name it gives, in a named schema too (`CREATE TABLE sales.Orders`).
CREATE_TABLE = creates(TABLE_KIND)


_PRIMARY_KEY = re.compile(r"\bPRIMARY\s+KEY\b", re.IGNORECASE)
ADD_COLUMN = re.compile(r"^\s*ALTER\s+TABLE\s+.*?\bADD\s+COLUMN\b", re.IGNORECASE)


def created_table(statement: str) -> str | None:
    """The table a CREATE TABLE creates, as INFORMATION_SCHEMA names it with its schema
    (`sales.Orders`; no quotes), else None."""
    found = CREATE_TABLE.match(statement)
    return created_name(found) if found else None


# Statements that define no key space: graphs, search and vector indexes, change streams,
# views, models, roles and grants, placements, locality groups, proto bundles, database
# options, statistics. When the emulator refuses one (a feature newer than its version), the
# check notes it and goes on; a refused statement that defines a key is still an error.
KEYLESS = re.compile(
    r"^\s*(?:(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"(?P<object>PROPERTY\s+GRAPH|SEARCH\s+INDEX|VECTOR\s+INDEX|CHANGE\s+STREAM|VIEW|MODEL|ROLE|PLACEMENT"
    r"|LOCALITY\s+GROUP|PROTO\s+BUNDLE|FUNCTION)\b"
    r"|(?P<statement>GRANT|REVOKE|ANALYZE|ALTER\s+DATABASE|ALTER\s+STATISTICS)"
    # a column only a search index reads
    r"|ALTER\s+TABLE\s+\S+\s+ADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+(?:spanner\.)?(?P<column>TOKENLIST)\b)",
    re.IGNORECASE)
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
        # A table that names no key of its own (Spanner keys its rows itself; emulators refuse it)
        return "TABLE WITHOUT PRIMARY KEY" if CREATE_TABLE.match(statement) and not _PRIMARY_KEY.search(
            statement) else None
    if found.group("column"):
        return "TOKENLIST COLUMN"
    return " ".join((found.group("object") or found.group("statement")).upper().split())


_DROP = re.compile(r"^\s*DROP\s+(?P<object>TABLE|INDEX|SEQUENCE|VIEW|CHANGE\s+STREAM|SEARCH\s+INDEX|VECTOR\s+INDEX"
                   r"|SCHEMA|ROLE|MODEL|PROPERTY\s+GRAPH)\b", re.IGNORECASE)
_NOT_FOUND = re.compile(r"\bnot\s+found\b|\bdoes\s+not\s+exist\b", re.IGNORECASE)


def drops_nothing(statement: str, refusal: str) -> str | None:
    """What a DROP drops (`DROP INDEX`) when the emulator refused it for want of anything of that
    name (a script that drops what an earlier run made, before making it again): it leaves the
    schema as it was. None for any other statement or refusal."""
    found = _DROP.match(statement)
    if found is None or not _NOT_FOUND.search(refusal):
        return None
    return "DROP " + " ".join(found.group("object").upper().split())


def _without_ascending(found: re.Match) -> str:
    return re.sub(r"\s+ASC\b", "", found.group(0), flags=re.IGNORECASE)


def _substituting(pattern: re.Pattern, replacement) -> Callable[[str], str]:
    return lambda statement: pattern.sub(replacement, statement)


# Cloud Spanner takes an unnamed key only; a CONSTRAINT name before it is left to be refused.
TABLE_ELEMENT_KEY = re.compile(r"^\s*(PRIMARY\s+KEY\s*\(.*\))\s*$", re.IGNORECASE | re.DOTALL)


def _column_list(statement: str) -> tuple[int, list[tuple[int, int]]] | None:
    """Where a CREATE TABLE's column list opens, and each of its elements (a column, a
    constraint, a key) as (start, end) in the statement; None: no closed list."""
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
                return opened, elements
        elif char == "," and depth == 1:
            elements.append((start, at))
            start = at + 1
    return None


def _with_elements(statement: str, opened: int, elements: list[tuple[int, int]], kept: list[str],
                   after: str = "") -> str:
    """The statement with its column list's elements replaced by `kept`, and `after` past the list."""
    closed = elements[-1][1]
    return f"{statement[:opened]}{','.join(kept)}){after}{statement[closed + 1:]}"


def _key_after_columns(statement: str) -> str:
    """A CREATE TABLE whose PRIMARY KEY (...) is an element of its column list, as Cloud Spanner
    also takes it (`CREATE TABLE t (a INT64, b INT64, PRIMARY KEY (a, b))`), with the key moved
    after the list, where every Spanner version reads it; any other statement as it is."""
    found = _column_list(statement)
    if found is None:
        return statement  # no closed column list: leave it to the emulator's own message
    opened, elements = found
    keys = [(begin, end) for begin, end in elements if TABLE_ELEMENT_KEY.match(statement[begin:end])]
    if len(keys) != 1 or len(elements) < 2:
        return statement
    begin, end = keys[0]
    key = TABLE_ELEMENT_KEY.match(statement[begin:end]).group(1)  # type: ignore[union-attr]
    kept = [statement[b:e] for b, e in elements if (b, e) != (begin, end)]
    return _with_elements(statement, opened, elements, kept, f" {key}")


_TOKENLIST_COLUMN = re.compile(r"^\s*[`\"]?\w+[`\"]?\s+(?:spanner\.)?tokenlist\b", re.IGNORECASE)


def _without_tokenlists(statement: str) -> str:
    """A CREATE TABLE without its TOKENLIST columns, which only a search index reads."""
    found = _column_list(statement)
    if found is None:
        return statement
    opened, elements = found
    kept = [statement[b:e] for b, e in elements if not _TOKENLIST_COLUMN.match(statement[b:e])]
    return statement if len(kept) in (0, len(elements)) else _with_elements(statement, opened, elements, kept)


_PROTO_COLUMN = re.compile(r"^\s*[`\"]?(\w+)[`\"]?\s+(?:ARRAY\s*<\s*)?(?:`[\w.]+`|\w+(?:\.\w+)+)(?=[\s,)>]|$)")
_GENERATED = re.compile(r"\s+AS\s*\(")


def _proto_fields_unread(statement: str) -> str:
    """A CREATE TABLE whose generated columns read a field of a protocol buffer column
    (`Name STRING(MAX) AS (Label.name) STORED`), with those columns plain: the emulator
    cannot read the field, and keybench does not know its values either way."""
    found = _column_list(statement)
    if found is None:
        return statement
    opened, elements = found
    texts = [statement[b:e] for b, e in elements]
    protos = [m.group(1) for m in map(_PROTO_COLUMN.match, texts) if m]
    if not protos:
        return statement
    reads = re.compile(rf"\b(?:{'|'.join(map(re.escape, protos))})\s*\.", re.IGNORECASE)
    kept = []
    for text in texts:
        generated = _GENERATED.search(text)
        if generated and reads.search(text, generated.end()):
            inner = _column_list(text[generated.end() - 1:])  # the expression's parentheses
            if inner is not None:
                close = generated.end() - 1 + inner[1][-1][1]
                text = text[:generated.start()] + re.sub(r"^\s*STORED\b", "", text[close + 1:], flags=re.IGNORECASE)
        kept.append(text)
    return _with_elements(statement, opened, elements, kept)


# Where a column's type is written: after its name, in a CREATE TABLE's column list or an
# ALTER TABLE's ADD COLUMN (group 1: all before the type, an ARRAY< included).
_COLUMN_TYPE_AT = (r"((?:[(,]|\bADD\s+COLUMN(?:\s+IF\s+NOT\s+EXISTS)?)\s*[`\"]?\w+[`\"]?\s+"
                   r"(?:ARRAY\s*<\s*)?)")


def _column_types(type_pattern: str, replacement: str) -> Callable[[str], str]:
    """A rewrite of every column type the pattern matches into `replacement`."""
    pattern = re.compile(_COLUMN_TYPE_AT + type_pattern, re.IGNORECASE)
    return lambda statement: pattern.sub(lambda found: found.group(1) + replacement, statement)


def _chained(*rewrites: Callable[[str], str]) -> Callable[[str], str]:
    def rewrite(statement: str) -> str:
        for each in rewrites:
            statement = each(statement)
        return statement
    return rewrite


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
    # Spanner's UUID type (newer than some emulators): 16 bytes in key order as its 36
    # characters of lower-case hex are, so read as that text, and NEW_UUID() as GENERATE_UUID().
    (GOOGLESQL, _chained(_column_types(r"UUID\b", "STRING(36)"),
                         _substituting(re.compile(r"\bNEW_UUID\s*\(\s*\)", re.IGNORECASE), "GENERATE_UUID()")),
     "its UUID columns read as STRING(36), the same order, and NEW_UUID() as GENERATE_UUID()"),
    (POSTGRESQL, _chained(_column_types(r"uuid\b", "varchar(36)"),
                          _substituting(re.compile(r"\bgen_random_uuid\s*\(\s*\)", re.IGNORECASE),
                                        "spanner.generate_uuid()")),
     "its uuid columns read as varchar(36), the same order, and gen_random_uuid() as spanner.generate_uuid()"),
    # A column of a protocol buffer message or enum type (after CREATE PROTO BUNDLE, which an
    # emulator without proto types skips): its bytes.
    (GOOGLESQL, _chained(_proto_fields_unread, _column_types(r"(?:`[\w.]+`|\w+(?:\.\w+)+)(?=[\s,)>])", "BYTES(MAX)")),
     "its protocol buffer columns read as BYTES(MAX), and columns generated from their fields as plain columns"),
    (POSTGRESQL, _without_tokenlists, "its tokenlist columns left out (only a search index reads them)"),
    # `INTERLEAVE IN t` (no PARENT: the child's rows need no parent row) lays rows out as
    # INTERLEAVE IN PARENT t does, which every emulator reads.
    *((dialect, _substituting(re.compile(r"\bINTERLEAVE\s+IN\s+(?!PARENT\b)", re.IGNORECASE), "INTERLEAVE IN PARENT "),
       "its INTERLEAVE IN read as INTERLEAVE IN PARENT (the same key order; a parent row is not required)")
      for dialect in (GOOGLESQL, POSTGRESQL)),
    (GOOGLESQL, _substituting(re.compile(r"\s+HIDDEN\b", re.IGNORECASE), ""), "HIDDEN left out (no bearing on keys)"),
    (POSTGRESQL, _substituting(re.compile(r"\s+HIDDEN\b", re.IGNORECASE), ""), "HIDDEN left out (no bearing on keys)"),
)


def for_emulator(statement: str, dialect: str) -> tuple[str, list[str]]:
    """The statement with this emulator's known gaps rewritten, and what each rewrite did."""
    done: list[str] = []
    if not (CREATE_TABLE.match(statement) or ADD_COLUMN.match(statement)):
        return statement, done
    for gap_dialect, rewrite, what in EMULATOR_GAPS:
        if gap_dialect == dialect:
            rewritten = rewrite(statement)
            if rewritten != statement:
                statement = rewritten
                done.append(what)
    return statement, done
