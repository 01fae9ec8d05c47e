"""Files written whole or not at all, by every layer: through a temporary name renamed into
place, so a reader sees the old file or the new one, never a truncated one. A write error (a
full disk, a read-only mount) is one KeybenchError with exit code 1."""

from __future__ import annotations

import io
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
        tmp.unlink(missing_ok=True)
        raise KeybenchError(f"cannot write {path}: {exc.strerror or exc}", exit_code=1) from None
    return path


def figure_png(fig, **savefig_options) -> bytes:
    """A matplotlib figure as PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", **savefig_options)
    return buffer.getvalue()


def save_figure(fig, path: Path, **savefig_options) -> Path:
    """A matplotlib figure as a PNG file, written whole or not at all."""
    return write_atomically(path, figure_png(fig, **savefig_options))
