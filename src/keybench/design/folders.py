"""Strategy folders written from a description: a user's own drafts (`keybench check
--save-strategy`, `--load`) in the catalogue's format, DIR/<backend>/<name>/ as under schemas/,
all of them or none, never over an existing folder's files."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from keybench.atomic import write_atomically
from keybench.design.strategies import NAME_RE
from keybench.errors import KeybenchError


@dataclass(frozen=True)
class StrategyDraft:
    """One design to save: its folder's files, or why it is not saved."""

    backend: str
    name: str
    what: str  # `table Orders`, `row key {device}#{ts}`
    files: dict[str, str] = field(default_factory=dict)  # file name -> text
    skipped: str = ""  # why the design cannot be saved (then no files)
    notes: tuple[str, ...] = ()  # what the saved design assumes beyond the check


def folder_name(text: str) -> str:
    """A strategy folder's name (lower_snake_case) from a table name or a template."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    name = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    name = name if name[:1].isalpha() else f"d_{name}"
    return name[:41].rstrip("_")


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"


def toml_table_list(name: str, items: list) -> str:
    if not items:
        return ""
    return f"{name} = [\n" + "".join(f"  {toml_value(i)},\n" for i in items) + "]\n"


def check_save_folder(folder: Path) -> None:
    """Saving never overwrites: the folder is new or empty."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise KeybenchError(f"--save-strategy {folder}: exists and is not an empty folder; choose a new one")


def save_strategies(drafts: list[StrategyDraft], folder: Path) -> list[str]:
    """Every saved design in folder/<backend>/<name>/, built under a hidden name and renamed
    into place, so the folder holds all of them or none. An existing non-empty folder is refused."""
    folder = Path(folder)
    check_save_folder(folder)
    _check_names(drafts)
    if all(d.skipped for d in drafts):
        raise KeybenchError(f"--save-strategy {folder}: no design to save: "
                            + "; ".join(f"{d.what} {d.skipped}" for d in drafts))
    building = folder.with_name(f".{folder.name}.partial")
    shutil.rmtree(building, ignore_errors=True)
    lines = []
    try:
        for draft in drafts:
            if draft.skipped:
                lines.append(f"not saved: {draft.what}: {draft.skipped}")
                continue
            for file, text in draft.files.items():
                write_atomically(building / draft.backend / draft.name / file, text)
            lines.append(f"saved: {draft.what} as {folder / draft.backend / draft.name}")
            lines += [f"  note: {n}" for n in draft.notes]
    except KeybenchError:
        shutil.rmtree(building, ignore_errors=True)  # (a full disk: nothing half-saved is left)
        raise
    try:
        if folder.exists():
            folder.rmdir()
        building.rename(folder)
    except OSError as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise KeybenchError(f"cannot write {folder}: {exc.strerror or exc}", exit_code=1) from None
    return lines


def _check_names(drafts: list[StrategyDraft]) -> None:
    """Two tables whose folder names coincide (Orders, orders) cannot both be saved."""
    seen: dict[tuple, str] = {}
    for d in drafts:
        if not d.skipped and (d.backend, d.name) in seen:
            raise KeybenchError(f"--save-strategy: {seen[(d.backend, d.name)]} and {d.what} would share folder "
                                f"{d.name}")
        seen[(d.backend, d.name)] = d.what
        if not NAME_RE.match(d.name):
            raise KeybenchError(f"--save-strategy: {d.what} gives no usable folder name ({d.name!r})")
