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
    to lower case). A name in a named schema is qualified with it (`sales.Orders`), each part
    quoted or not; with no `name`, created_name(match) reads it."""
    named = rf"((?:\w+{_DOT})?\w+)" if name is None else name_pattern(name)
    if kind == INDEX_KIND and name is not None and "." in name:
        # PostgreSQL names an index without its schema (it is its table's): either way
        named = rf"(?:{_DOT.join(map(re.escape, name.split('.')[:-1]))}{_DOT})?{re.escape(name.split('.')[-1])}"
    return re.compile(rf"^\s*CREATE\s+(?:{kind})\s+(?:IF\s+NOT\s+EXISTS\s+)?[`\"]?{named}(?![\w`\"]*\w)", re.I)


_DOT = r"[`\"]?\.[`\"]?"  # between a schema's name and its object's, either quoted or not


def name_pattern(name: str) -> str:
    """A regular expression of the name as DDL writes it, within its quotes: `sales.Orders`
    also as sales.`Orders` or "sales"."orders" (a Spanner name holds no dot)."""
    return _DOT.join(map(re.escape, name.split(".")))


def created_name(match: re.Match) -> str:
    """The name a `creates(kind)` match found, qualified with its schema, without quotes."""
    return unquoted(match.group(1))


def unquoted(name: str) -> str:
    """A name as INFORMATION_SCHEMA gives it: `sales`."Orders" as sales.Orders."""
    return re.sub(r"[`\"]", "", name)


# A name as a statement writes it, qualified with its schema or not, each part quoted or not
# (unquoted() reads it).
QUALIFIED_NAME = r"(?:[`\"]?\w+[`\"]?\.)?[`\"]?\w+[`\"]?"


def last_creating(statements: list[str], kind: str, name: str) -> int | None:
    """The index of the last statement that creates the `kind` named `name` (a migration may
    drop and create it again: the last one stands); None: none does."""
    found = creation(statements, kind, name)
    return found[0] if found else None


_RENAMES = (re.compile(rf"^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?({QUALIFIED_NAME})\s+RENAME\s+TO\s+"
                       rf"({QUALIFIED_NAME})", re.IGNORECASE),
            re.compile(rf"(?:^\s*RENAME\s+TABLE\s+|,\s*)({QUALIFIED_NAME})\s+TO\s+({QUALIFIED_NAME})", re.IGNORECASE))


def creation(statements: list[str], kind: str, name: str) -> tuple[int, str] | None:
    """The index of the last statement that creates the `kind` named `name`, and the name it
    gave: a table renamed since (`ALTER TABLE Mixtapes RENAME TO Playlists`, GoogleSQL's
    `RENAME TABLE a TO b, c TO d`) was created under its earlier name. None: none creates it,
    or no table has that name after the statements (one was renamed away)."""
    current = name
    for at in range(len(statements) - 1, -1, -1):
        statement = statements[at]
        if creates(kind, current).match(statement):
            return at, current
        for before, after in _renames(statement) if kind == TABLE_KIND else ():
            if before.lower() == current.lower():
                return None  # renamed away: the table of that name now was never created
            if after.lower() == current.lower():
                current = before  # before this statement, the table had that name
                break
    return None


def declaring_foreign_key(statements: list[str], table: str, key: tuple[str, ...] = ()) -> int | None:
    """The index of the last statement that declares the foreign key from or to `table` that an
    index Spanner creates on `table` backs: its CREATE TABLE, an ALTER TABLE ... ADD, or another
    table's REFERENCES it. `key`: the index's key columns, which begin with the foreign key's
    columns on `table` (its own, or those it references), and tell one foreign key from another;
    where none matches them, the last statement with any foreign key from or to `table`. None:
    none does."""
    named = name_pattern(table)
    own = re.compile(rf"^\s*(?:CREATE|ALTER)\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:ONLY\s+)?"
                     rf"[`\"]?{named}[`\"]?\s", re.IGNORECASE)
    about = re.compile(rf"{own.pattern}|\bREFERENCES\s+[`\"]?{named}[`\"]?\s*\(", re.IGNORECASE)
    wanted = [unquoted(c).lower() for c in key]

    def backed(statement: str) -> bool:
        for found in _FOREIGN_KEY.finditer(statement):
            columns = found.group(1) if own.match(statement) else None
            to_table = re.fullmatch(rf"[`\"]?{named}[`\"]?", found.group(2), re.IGNORECASE)
            referenced = found.group(3) if to_table else None
            for listed in (columns, referenced):
                names = [unquoted(c.strip()).lower() for c in (listed or "").split(",") if c.strip()]
                if names and names == wanted[:len(names)]:
                    return True
        return False

    declaring = [at for at in range(len(statements) - 1, -1, -1)
                 if re.search(r"\bFOREIGN\s+KEY\b", statements[at], re.IGNORECASE) and about.search(statements[at])]
    return next((at for at in declaring if backed(statements[at])), declaring[0] if declaring else None)


# A foreign key: its columns (1), the table it references (2) and their columns there (3).
_FOREIGN_KEY = re.compile(rf"\bFOREIGN\s+KEY\s*\(([^)]*)\)\s*REFERENCES\s+({QUALIFIED_NAME})\s*\(([^)]*)\)",
                          re.IGNORECASE)


def _renames(statement: str) -> list[tuple[str, str]]:
    """The (before, after) names of the tables a statement renames."""
    if not re.match(r"^\s*(?:ALTER|RENAME)\b", statement, re.IGNORECASE):
        return []
    return [(unquoted(before), unquoted(after))
            for pattern in _RENAMES for before, after in (m.groups() for m in pattern.finditer(statement))]


def split_ddl(text: str) -> list[str]:
    """Statements of a DDL file as editors and tools write it: a byte-order mark, CRLF, `--`, `#`
    and `/* */` comments dropped (the emulator refuses some comments, and they define no key),
    split on `;` outside quoted strings and identifiers. Inside GoogleSQL's quotes a backslash
    escapes the next character (`'it\\'s'`); a doubled quote (PostgreSQL's `'it''s'`) closes and
    reopens, which reads the same. Each statement's whitespace is folded to single spaces."""
    return [statement for statement, _ in split_ddl_lines(text)]


def split_ddl_lines(text: str) -> list[tuple[str, int]]:
    """split_ddl's statements, each with the line (from 1) of the file where it starts: where a
    finding about it points (SARIF, an error). A migration tool's file of up and down sections
    gives the statements of its up sections (up_sections)."""
    text = up_sections(text.removeprefix("\ufeff"))
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
        elif text.startswith("--", i) or ch == "#":  # GoogleSQL comments (`#` is an XOR in PostgreSQL, not in keys)
            newline = text.find("\n", i)
            end = n if newline < 0 else newline
            if _STATEMENT_END.match(text, i, end):  # a statement a migration tool ends without `;`
                finish()
            i = end
            continue
        elif text.startswith("/*", i):
            i = _comment_end(text, i)
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


# The comment lines by which goose (`-- +goose Up`), sql-migrate (`-- +migrate Down`), dbmate
# (`-- migrate:up`) and tern (`---- create above / drop below ----`, down below it) mark a file's
# sections: the up section migrates, the down one undoes it.
_SECTION = re.compile(r"^[ \t]*--[ \t]*(?:(?:\+goose[ \t]+|\+migrate[ \t]+|migrate:[ \t]*)(?P<up>up|down)\b"
                      r"|--[ \t]*create[ \t]+above[ \t]*/[ \t]*drop[ \t]+below\b)", re.IGNORECASE | re.MULTILINE)


# goose and sql-migrate end a statement they were told to keep whole by a comment line, not a `;`.
_STATEMENT_END = re.compile(r"--[ \t]*\+(?:goose|migrate)[ \t]+StatementEnd\b", re.IGNORECASE)


def up_sections(text: str) -> str:
    """The text with its down sections blanked (their line ends kept, so lines keep their
    numbers): what the tool applies when it migrates up, the schema the database ends with. A
    text with no section marks is returned as it is."""
    marks = list(_SECTION.finditer(text))
    if not marks:
        return text
    pieces, at, up = [], 0, True  # (the lines before the first mark are the file's header)
    for mark in [*marks, None]:
        end = len(text) if mark is None else mark.start()
        pieces.append(text[at:end] if up else "\n" * text.count("\n", at, end))
        if mark is not None:
            at, up = mark.start(), (mark.group("up") or "down").lower() == "up"
    return "".join(pieces)


def _comment_end(text: str, at: int) -> int:
    """Where the block comment that opens at `at` ends. PostgreSQL nests them (`/* a /* b */
    c */`, as a header that quotes a marker comment writes them), GoogleSQL does not: a nested
    reading that never closes is GoogleSQL's, which ends at the first `*/`."""
    depth, i = 1, at + 2
    while depth:
        opened, closed = text.find("/*", i), text.find("*/", i)
        if closed < 0:
            first = text.find("*/", at + 2)
            return len(text) if first < 0 else first + 2
        depth, i = (depth + 1, opened + 2) if 0 <= opened < closed else (depth - 1, closed + 2)
    return i


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
                found[(created_name(named).lower(), column.group(1).lower())] = column.group(2).upper()
    return found
