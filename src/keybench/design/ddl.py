"""DDL text as keybench's fixtures and checks read it: a file split into statements, and the
statement that creates a table or an index of a given name."""

from __future__ import annotations

import bisect
import re

TABLE_KIND = r"TABLE"
INDEX_KIND = r"(?:UNIQUE\s+)?(?:NULL_FILTERED\s+)?INDEX"
SEQUENCE_KIND = r"SEQUENCE"


def creates(kind: str, name: str | None = None) -> re.Pattern:
    """A statement that creates a `kind` (TABLE_KIND, INDEX_KIND, SEQUENCE_KIND, or several
    joined by `|`) named `name` (any name, as group 1, when None): with or without IF NOT
    EXISTS, the name bare, `quoted` or "quoted", in any case (PostgreSQL folds an unquoted name
    to lower case)."""
    named = r"(\w+)" if name is None else re.escape(name)
    return re.compile(rf"^\s*CREATE\s+(?:{kind})\s+(?:IF\s+NOT\s+EXISTS\s+)?[`\"]?{named}(?![\w`\"]*\w)", re.I)


def last_creating(statements: list[str], kind: str, name: str) -> int | None:
    """The index of the last statement that creates the `kind` named `name` (a migration may
    drop and create it again: the last one stands); None: none does."""
    pattern = creates(kind, name)
    return next((n for n in range(len(statements) - 1, -1, -1) if pattern.match(statements[n])), None)


def split_ddl(text: str) -> list[str]:
    """Statements of a DDL file as editors and tools write it: a byte-order mark, CRLF, `--`
    and `/* */` comments dropped (the emulator refuses some comments, and they define no key),
    split on `;` outside quoted strings and identifiers. Inside GoogleSQL's quotes a backslash
    escapes the next character (`'it\\'s'`); a doubled quote (PostgreSQL's `'it''s'`) closes and
    reopens, which reads the same. Each statement's whitespace is folded to single spaces."""
    return [statement for statement, _ in split_ddl_lines(text)]


def split_ddl_lines(text: str) -> list[tuple[str, int]]:
    """split_ddl's statements, each with the line (from 1) of the file where it starts: where a
    finding about it points (SARIF, an error)."""
    text = text.removeprefix("\ufeff")
    newlines = [m.start() for m in re.finditer("\n", text)]
    statements: list[tuple[str, int]] = []
    out: list[str] = []
    start: int | None = None  # where the statement's first character is
    quote: str | None = None
    i, n = 0, len(text)

    def finish() -> None:
        nonlocal out, start
        statement = " ".join("".join(out).split())
        if statement:
            statements.append((statement, bisect.bisect_right(newlines, start or 0) + 1))
        out, start = [], None

    while i < n:
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and quote != "`" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
            i += 1
            continue
        if ch in "'\"`":
            quote = ch
        elif text.startswith("--", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            out.append(" ")
            continue
        elif ch == ";":
            finish()
            i += 1
            continue
        if start is None and not ch.isspace():
            start = i
        out.append(ch)
        i += 1
    finish()
    return statements


_COLUMN = re.compile(r"^\s*[`\"]?(\w+)[`\"]?\s+([A-Za-z]\w*)")
_NOT_COLUMN = re.compile(r"^\s*(PRIMARY\s+KEY|CONSTRAINT|FOREIGN\s+KEY|CHECK|UNIQUE)\b", re.I)


def column_types(statements: tuple[str, ...] | list[str]) -> dict[tuple[str, str], str]:
    """(table, column) -> the column's type word, upper case (`TIMESTAMP`, `STRING`, `BIGINT`,
    `TIMESTAMPTZ`...), of every CREATE TABLE among `statements`; names in lower case, as
    PostgreSQL folds them. Enough to read a key value written as text in the right type."""
    found: dict[tuple[str, str], str] = {}
    table_pattern = creates(TABLE_KIND)
    for statement in statements:
        named = table_pattern.match(statement)
        opened = statement.find("(", named.end()) if named else -1
        if named is None or opened < 0:
            continue
        depth, item, items = 0, list[str](), list[str]()
        for ch in statement[opened + 1:]:
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            if ch == "," and depth == 0:
                items.append("".join(item))
                item = []
            else:
                item.append(ch)
        items.append("".join(item))
        for text in items:
            column = _COLUMN.match(text)
            if column and not _NOT_COLUMN.match(text):
                found[(named.group(1).lower(), column.group(1).lower())] = column.group(2).upper()
    return found
