"""Settings a team keeps with its code, as pytest and ruff read theirs: `[tool.keybench]` in
pyproject.toml, or a keybench.toml, found from the current folder up to the project's root
(the first folder holding either file, or a `.git`). Options given on the command line win.

    [tool.keybench]                 # every command that has the option
    results-dir = "ci-results"
    nodes = 16

    [tool.keybench.check]           # one command's
    fail-on-verdict = ["hotspot", "hot_row"]
    strict = true

A key is a long option's name (`fail-on-verdict` or `fail_on_verdict`); a list is the
comma-separated value (or the repeated option); a relative path is taken from the file's folder.
keybench.toml holds the same tables without the `tool.keybench` prefix."""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Mapping
from pathlib import Path

from keybench.errors import KeybenchError

FILE_NAMES = ("keybench.toml", "pyproject.toml")
# Options that name files or folders: relative to the settings file, not to where keybench runs.
PATH_OPTIONS = {"results_dir", "strategy_dirs", "columns", "schema", "save_strategy", "write_columns"}


def find(start: Path) -> tuple[Path, dict] | None:
    """The settings file that governs `start` and its keybench table; None: there is none."""
    for folder in (start, *start.parents):
        for name in FILE_NAMES:
            path = folder / name
            if path.is_file():
                table = read(path)
                if table is not None:
                    return path, table
                return None  # a pyproject.toml without [tool.keybench]: the project's root, with no settings
        if (folder / ".git").exists():
            return None
    return None


def read(path: Path) -> dict | None:
    """keybench's table of a settings file (None: a pyproject.toml without one)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise KeybenchError(f"settings file {path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise KeybenchError(f"settings file {path}: not valid TOML ({exc})") from None
    if path.name == "keybench.toml":
        return data
    table = data.get("tool", {}).get("keybench") if isinstance(data.get("tool"), dict) else None
    if table is not None and not isinstance(table, dict):
        raise KeybenchError(f"settings file {path}: [tool.keybench] must be a table")
    return table


def _action(sub: argparse.ArgumentParser, key: str) -> argparse.Action | None:
    flag = "--" + key.replace("_", "-")
    for action in sub._actions:  # argparse keeps no public index of its options
        if flag in action.option_strings or (not action.option_strings and action.dest == key.replace("-", "_")):
            return action
    return None


def _value(action: argparse.Action, value, where: str, base: Path):
    """`value` as the option's default: the text the command line would give, checked as it would be."""
    if action.nargs == 0:  # a flag
        if not isinstance(value, bool):
            raise KeybenchError(f"{where}: true or false, not {value!r}")
        return value
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in items):
        raise KeybenchError(f"{where}: a text, a number or a list of them, not {value!r}")
    texts = [str(v) for v in items]
    if action.dest in PATH_OPTIONS:
        texts = [str(base / t) if not Path(t).is_absolute() else t for t in texts]
    if action.choices is not None:
        wrong = [t for t in texts if t not in action.choices]
        if wrong:
            raise KeybenchError(f"{where}: {wrong[0]!r} is not one of {', '.join(map(str, action.choices))}")
    if callable(action.type):  # as the command line checks it, but naming the file, not the option
        for text in texts:
            try:
                action.type(text)
            except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
                reason = (str(exc) if isinstance(exc, argparse.ArgumentTypeError) else "not a whole number"
                          if action.type is int else "not a number" if action.type is float else "not valid")
                raise KeybenchError(f"{where}: {text!r}: {reason}") from None
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
        return texts
    return ",".join(texts)


def apply(commands: Mapping[str, argparse.ArgumentParser], path: Path, table: dict) -> list[str]:
    """Set each command's defaults from `table`; the commands it changed."""
    shared = {k: v for k, v in table.items() if not isinstance(v, dict)}
    sections = {k: v for k, v in table.items() if isinstance(v, dict)}
    unknown = [k for k in sections if k not in commands]
    if unknown:
        raise KeybenchError(f"settings file {path}: no command {unknown[0]!r}; the commands: {', '.join(commands)}")
    for key in shared:
        if not any(_action(sub, key) for sub in commands.values()):
            raise KeybenchError(f"settings file {path}: no command has an option {key!r}")
    changed = []
    for name, sub in commands.items():
        defaults = {}
        for key, value in {**shared, **sections.get(name, {})}.items():
            action = _action(sub, key)
            if action is None:
                if key in sections.get(name, {}):
                    raise KeybenchError(f"settings file {path}: keybench {name} has no option {key!r} "
                                        f"(see keybench {name} --help)")
                continue
            defaults[action.dest] = _value(action, value, f"settings file {path}: {name}.{key}", path.parent)
        if defaults:
            sub.set_defaults(**defaults)
            changed.append(name)
    return changed


def chosen(argv: list[str], start: Path) -> tuple[Path, dict] | None:
    """The settings file for this command line: `--config FILE` or none with `--no-config`
    (both before the command), else the one found from `start`."""
    command_at = next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))
    top = argv[:command_at]
    if "--no-config" in top:
        return None
    for i, arg in enumerate(top):
        if arg == "--config" or arg.startswith("--config="):
            given = arg.split("=", 1)[1] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
            path = Path(given)
            if not path.is_file():
                raise KeybenchError(f"--config {given}: no such file")
            table = read(path)
            if table is None:
                raise KeybenchError(f"--config {given}: no [tool.keybench] table in it")
            return path, table
    return find(start)
