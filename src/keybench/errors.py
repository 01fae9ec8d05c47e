"""The one exception type the CLI turns into a one-line message and an exit code, and the
range check every option's validation uses."""

from __future__ import annotations

import math
import re

# Known client messages made readable. google-cloud-bigtable's data client builds its timeout
# text as f"operation_timeout{'of 2.0s '} exceeded" (data/_helpers.py), which reads
# "operation_timeoutof 2.0s  exceeded"; keybench prints and records it with the space.
_CLIENT_TEXT = ((re.compile(r"\boperation_timeoutof\b"), "operation_timeout of"),)


def readable(text: str) -> str:
    """A message as one line: runs of whitespace (newlines too) one space, known client glitches fixed."""
    text = " ".join(str(text).split())
    for pattern, replacement in _CLIENT_TEXT:
        text = pattern.sub(replacement, text)
    return text


class KeybenchError(Exception):
    """A problem the user can fix: bad input, a missing emulator, a bad fixture.

    The message is one line and says what to do; exit_code 2 means bad input or
    environment, 1 means the run itself found a problem (failures, lost writes).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(readable(message))
        self.exit_code = exit_code


class FixtureError(KeybenchError):
    """A strategy's fixture that keybench or the database refuses (malformed, or DDL the
    emulator rejects): bad input, exit 2. It ends the run rather than one stage, since every
    later comparison would lack that design; README "Strategies" documents it so."""

    @classmethod
    def malformed(cls, path: object, what: str) -> FixtureError:
        return cls(f"malformed schema fixture {path}: {what}")


def one_line(exc: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    text = readable(str(exc).split("\n")[0])
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def check_range(flag: str, value, low, high) -> None:
    """A finite number within [low, high] (None: not given), or one line naming the option
    and its bounds. Every number keybench takes is checked so before anything is allocated."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise KeybenchError(f"{flag} must be a finite number, got {value!r}")
    if not low <= value <= high:
        # An int too large for a float (a 400-digit --users) cannot take :g; say how long it is.
        shown = f"{value:g}" if abs(value) < 1e300 else f"a number of {len(str(abs(value)))} digits"
        raise KeybenchError(f"{flag} must be between {low:,g} and {high:,g}, got {shown}")
