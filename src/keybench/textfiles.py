"""A user's text files (DDL, columns files, strategy folders) as editors and tools write them:
read with a size cap, so a path to /dev/zero or a huge file is one line and not the machine's
memory, and decoded by their byte-order mark (UTF-8, UTF-16 or UTF-32) or else as UTF-8."""

from __future__ import annotations

import codecs
from pathlib import Path

from keybench.errors import KeybenchError

MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024  # far above any schema's history; a DDL file of 64 MiB is no schema

# Longest mark first: UTF-32's little-endian mark starts with UTF-16's.
_MARKS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
          (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def read_text(path: Path, what: str = "file", limit: int = MAX_TEXT_FILE_BYTES) -> str:
    """The text of `path`, or one KeybenchError line that names it and says why not."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise KeybenchError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise KeybenchError(f"{what} {path}: is a folder, not a file") from None
    except OSError as exc:
        raise KeybenchError(f"{what} {path}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise KeybenchError(f"{what} {path}: larger than {limit // 2**20} MiB, too large to be one")
    encoding = next((name for mark, name in _MARKS if data.startswith(mark)), "utf-8")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise KeybenchError(f"{what} {path}: not {encoding.upper()} text (byte {exc.start}: "
                            f"{data[exc.start:exc.start + 1]!r}); save it as UTF-8") from None
    if "\x00" in text:
        raise KeybenchError(f"{what} {path}: holds NUL characters, so it is no text file")
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
