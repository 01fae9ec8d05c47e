"""Spanner DDL as a Terraform configuration holds it: the `ddl = [...]` list of each
`resource "google_spanner_database"`, quoted strings and heredocs, read as Terraform reads
them (escapes, `<<-EOT` indentation), each statement with the line of the `.tf` file it
starts on. Only DDL written in the file is read: a list built from variables or files names
what it is built from, in the error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from keybench.errors import KeybenchError

_RESOURCE = re.compile(r'^[ \t]*resource\s+"google_spanner_database"\s+"([\w-]+)"\s*\{', re.MULTILINE)
_HEREDOC = re.compile(r"<<(-?)([A-Za-z_]\w*)[ \t]*\r?\n")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class TerraformDatabase:
    """One google_spanner_database resource with a `ddl`: its name, and the statements written
    in it with their lines, or, where the list is not written in the file, what it is."""

    name: str
    statements: list[tuple[str, int]]
    unread: str | None = None  # `var.ddl`, `file("schema.sql")`: the list is built, not written


def terraform_databases(text: str, source: str) -> list[TerraformDatabase]:
    """The Spanner databases a Terraform file declares with DDL, in the file's order."""
    found = []
    for resource in _RESOURCE.finditer(text):
        body = _top_level(text, resource.end(), _skip_to(text, resource.end()))
        ddl = re.search(r"(?m)^[ \t]*ddl\s*=\s*", body)
        if ddl is None:
            continue
        at, name = resource.end() + ddl.end(), resource.group(1)
        if text.startswith("[", at):
            where = f"{source}: google_spanner_database.{name}"
            found.append(TerraformDatabase(name, _statement_list(text, at + 1, where)))
        else:
            found.append(TerraformDatabase(name, [], text[at:text.find("\n", at)].strip()))
    return found


def _statement_list(text: str, at: int, where: str) -> list[tuple[str, int]]:
    """The strings of the list that opens before `at`, each folded to one line, with its line."""
    statements: list[tuple[str, int]] = []
    while True:
        at = _skip_blank(text, at)
        if at >= len(text):
            raise KeybenchError(f"{where}: its ddl list never closes")
        if text[at] == "]":
            return statements
        if text[at] == ",":
            at += 1
            continue
        line = text.count("\n", 0, at) + 1 + bool(_HEREDOC.match(text, at))  # a heredoc's first line
        value, at = _string_at(text, at, where)
        if "${" in value.replace("$${", ""):
            raise KeybenchError(f"{where}: statement {len(statements) + 1} (line {line}) is built with a Terraform "
                                "interpolation ${...} (keybench reads DDL as written)")
        statement = " ".join(value.replace("$${", "${").split()).rstrip(";").rstrip()
        if statement:
            statements.append((statement, line))


def _string_at(text: str, at: int, where: str) -> tuple[str, int]:
    """The string literal or heredoc at `at`, as Terraform reads it, and where it ends."""
    heredoc = _HEREDOC.match(text, at)
    if heredoc:
        marker = re.compile(rf"^[ \t]*{heredoc.group(2)}[ \t]*\r?$", re.MULTILINE)
        end = marker.search(text, heredoc.end())
        if end is None:
            raise KeybenchError(f"{where}: a heredoc <<{heredoc.group(2)} never closes")
        lines = text[heredoc.end():end.start()].splitlines()
        if heredoc.group(1):  # <<-: the least indentation of the lines is taken off every line
            indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
            lines = [x[indent:] for x in lines]
        return "\n".join(lines), end.end()
    if text[at] != '"':
        expression = text[at:text.find("\n", at)].strip()
        raise KeybenchError(f"{where}: its ddl list holds {expression}, not a statement written in the file "
                            "(keybench reads DDL as written)")
    out, i = [], at + 1
    while i < len(text) and text[i] != '"':
        if text[i] == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            if escaped == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[i + 2:i + 6]):
                out.append(json.loads(f'"\\u{text[i + 2:i + 6]}"'))
                i += 6
                continue
            out.append(_ESCAPES.get(escaped, "\\" + escaped))
            i += 2
            continue
        out.append(text[i])
        i += 1
    if i >= len(text):
        raise KeybenchError(f"{where}: a string never closes")
    return "".join(out), i + 1


def _skip_blank(text: str, at: int) -> int:
    """Past whitespace and comments (`#`, `//`, `/* */`)."""
    while at < len(text):
        if text[at].isspace():
            at += 1
        elif text.startswith(("#", "//"), at):
            newline = text.find("\n", at)
            at = len(text) if newline < 0 else newline
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            at = len(text) if close < 0 else close + 2
        else:
            break
    return at


def _skip_to(text: str, at: int) -> int:
    """Where the block or list opened before `at` closes (strings, heredocs and comments skipped)."""
    depth = 0
    while at < len(text):
        at = _skip_blank(text, at)
        if at >= len(text):
            break
        ch = text[at]
        if ch == '"' or _HEREDOC.match(text, at):
            _, at = _string_at(text, at, "")
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            if depth == 0:
                return at
            depth -= 1
        at += 1
    return len(text)


def _top_level(text: str, start: int, end: int) -> str:
    """The block's text with its nested blocks, lists, strings and comments blanked (their
    length kept): where its own attributes are found."""
    out, at = list(text[start:end]), start
    while at < end:
        skipped = _skip_blank(text, at)
        if skipped > at:
            out[at - start:skipped - start] = re.sub(r"[^\n]", " ", text[at:skipped])
            at = skipped
            continue
        ch = text[at]
        if ch == '"' or _HEREDOC.match(text, at):
            _, after = _string_at(text, at, "")
            out[at - start + 1:after - start - 1] = re.sub(r"[^\n]", " ", text[at + 1:after - 1])
            at = after
            continue
        if ch in "{[(":
            after = _skip_to(text, at + 1)
            out[at - start + 1:after - start] = re.sub(r"[^\n]", " ", text[at + 1:after])
            at = after
        at += 1
    return "".join(out)
