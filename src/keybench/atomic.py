"""Files written whole or not at all, by every layer: through a temporary name renamed into
place, so a reader sees the old file or the new one, never a truncated one. A write error (a
full disk, a read-only mount) is one KeybenchError with exit code 1."""

from __future__ import annotations

from pathlib import Path

from keybench.errors import KeybenchError


def write_atomically(path: Path, content: str | bytes) -> Path:
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            tmp.write_bytes(content)
        else:
            tmp.write_text(content)
        tmp.replace(path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass  # (a read-only mount refuses the unlink as it refused the write: nothing was left)
        raise KeybenchError(f"cannot write {path}: {exc.strerror or exc}", exit_code=1) from None
    return path

