"""What keybench prints goes to a terminal, and a design's summary, a file name or a server's
message may hold control characters: an escape sequence would set the title, clear the screen
or colour what follows. Every control character keybench prints is shown as its escape
(`\\x1b`), and so are the bidirectional overrides that reorder what a reader sees; newlines and
tabs stay."""

from __future__ import annotations

import io
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control character but newline and tab shown as its escape."""
    return _HIDDEN.sub(_escape, text)


class VisibleText(io.TextIOBase):
    """A text stream that writes what it is given through `visible`."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding


@contextmanager
def visible_output() -> Iterator[None]:
    """stdout and stderr through `visible` for as long as the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(saved[0]), VisibleText(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


# Verdicts in colour on a terminal: the answer a reader looks for first.
VERDICT_COLOURS = {"hotspot": "1;31", "hot_row": "1;35", "spread": "32", "inconclusive": "33"}
# A verdict where a table or a report gives one (a cell after two spaces, or after "verdict: "),
# not the word in a sentence.
_VERDICT_WORD = re.compile(r"(?:^|(?<=  )|(?<=: ))(" + "|".join(VERDICT_COLOURS) + r")(?![\w\]])", re.M)


def underlying(stream: TextIO) -> TextIO:
    """The stream beneath `visible_output`'s filter, for what keybench itself draws (colour,
    a progress bar) after filtering the text it holds."""
    return stream.stream if isinstance(stream, VisibleText) else stream


def colour_wanted(stream: TextIO) -> bool:
    """Whether `stream` is a terminal that takes colour (NO_COLOR, TERM=dumb: no)."""
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def print_verdicts_coloured(text: str) -> None:
    """`text` on stdout, each verdict word in its colour on a terminal, plain elsewhere (a CI
    log, a pipe). Control characters in the text are escaped before any colour is added."""
    if not colour_wanted(sys.stdout):
        print(text)
        return
    out = underlying(sys.stdout)
    out.write(_VERDICT_WORD.sub(lambda m: f"\x1b[{VERDICT_COLOURS[m.group()]}m{m.group()}\x1b[0m", visible(text))
              + "\n")
    out.flush()


class Verbatim(str):
    """A line of a report that must reach the reader as it is, never wrapped: DDL to apply (a
    break inside a quoted literal would change it), a command to copy."""


class Sql(Verbatim):
    """A line of SQL: broken only at a space outside quotes, where a newline means the same."""


def wrapped(lines: list[str], width: int) -> list[str]:
    """Report lines in `width` columns: each longer line broken at spaces (SQL outside its
    quotes), its continuation indented 4 more than the line; a word longer than the width, and
    a Verbatim line, stay whole."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width or (isinstance(line, Verbatim) and not isinstance(line, Sql)):
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip(" ")))
        if isinstance(line, Sql):
            out += _sql_lines(line, width, indent + "    ")
            continue
        out += textwrap.wrap(line, width, initial_indent="", subsequent_indent=indent + "    ",
                             break_long_words=False, break_on_hyphens=False) or [line]
    return out


def _sql_lines(line: str, width: int, indent: str) -> list[str]:
    """`line` broken at spaces outside quoted strings and identifiers (a backslash escapes the
    next character inside '...' and "..."), as few times as `width` needs."""
    breaks, quote, i = [], None, len(line) - len(line.lstrip(" "))
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and quote != "`":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == " ":
            breaks.append(i)
        i += 1
    out: list[str] = []
    start, room = 0, width
    while len(line) - start > room:
        fitting = [b for b in breaks if start < b <= start + room]
        cut = fitting[-1] if fitting else next((b for b in breaks if b > start), None)
        if cut is None:
            break
        out.append(line[start:cut].rstrip() if not out else indent + line[start:cut].strip())
        start, room = cut + 1, width - len(indent)
    out.append(line[start:] if not out else indent + line[start:].strip())
    return out
