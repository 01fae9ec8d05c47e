"""What keybench prints goes to a terminal, and a design's summary, a file name or a server's
message may hold control characters: an escape sequence would set the title, clear the screen
or colour what follows. Every control character keybench prints is shown as its escape
(`\\x1b`), and so are the bidirectional overrides that reorder what a reader sees; newlines and
tabs stay."""

from __future__ import annotations

import io
import re
import sys
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
