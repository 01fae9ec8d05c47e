"""The one exception type the CLI turns into a one-line message and an exit code, and the
range check every option's validation uses."""

import math


class KeybenchError(Exception):
    """A problem the user can fix: bad input, a missing emulator, a bad fixture.

    The message is one line and says what to do; exit_code 2 means bad input or
    environment, 1 means the run itself found a problem (failures, lost writes).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(" ".join(message.split()))
        self.exit_code = exit_code


def one_line(exc: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    text = " ".join(str(exc).split("\n")[0].split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def check_range(flag: str, value, low, high) -> None:
    """A finite number within [low, high] (None: not given), or one line naming the option
    and its bounds. Every number keybench takes is checked so before anything is allocated."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise KeybenchError(f"{flag} must be a finite number, got {value!r}")
    if not low <= value <= high:
        raise KeybenchError(f"{flag} must be between {low:,g} and {high:,g}, got {value:g}")
