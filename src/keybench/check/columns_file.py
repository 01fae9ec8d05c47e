"""`keybench check --write-columns FILE`: the key columns the verdicts depend on, as the
--columns file the user edits and passes back. Each column a verdict rests on is written: an
unknown one as its worst case (a counter), a guessed one as guessed, a stated one as stated;
each with the reason as a comment, so that the file says what keybench believed and why."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from keybench.atomic import write_atomically
from keybench.check.inference import STATED, STATED_REASON, WITH_VALUES, Distribution
from keybench.check.keyspaces import UNKNOWN_CASES, SpaceCheck
from keybench.check.schema import Schema
from keybench.errors import KeybenchError
from keybench.terminal import Verbatim

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def check_destination(path: Path, columns: Path | None) -> None:
    """Before any work: FILE may be the --columns file it updates, or a new file in a folder
    that exists; never a file the user wrote for something else."""
    if columns is not None and path.resolve() == columns.resolve():
        return
    if path.exists() or path.is_symlink():
        raise KeybenchError(f"--write-columns {path}: the file exists; name a new file, or the --columns file "
                            "to update it")
    if not path.parent.is_dir():
        raise KeybenchError(f"--write-columns {path}: no folder {path.parent}")


def _key(table: str, column: str) -> str:
    return ".".join(part if BARE_KEY.match(part) else '"' + part.replace('"', '\\"') + '"'
                    for part in (table, column))


def _value(distribution: Distribution) -> str:
    if distribution.name in WITH_VALUES:
        extra = f", exponent = {distribution.exponent}" if distribution.exponent is not None else ""
        return f'{{ distribution = "{distribution.name}", values = {distribution.values}{extra} }}'
    return f'"{distribution.name}"'


def depended_on(schema: Schema, checks: list[SpaceCheck]) -> dict[tuple[str, str], tuple[Distribution, list[str]]]:
    """(table, column) -> its distribution and the key spaces whose verdict rests on it: every key
    column that is unknown (where its cases differ), guessed from its name, or stated. An
    interleaved child's copy of its root's key is the root's entry: stating the root's states both."""
    found: dict[tuple[str, str], tuple[Distribution, list[str]]] = {}
    for check in checks:
        table = schema.table(check.table)
        root_key = {k.name for k in schema.table(check.parents[-1]).key} if check.parents else set()
        differs = len({v.verdict for v in check.cases.values()}) > 1
        for column, distribution in check.assumptions:
            stated = distribution.reason.startswith(STATED_REASON)
            if distribution.known and not distribution.guessed and not stated:
                continue  # a fact of the schema: nothing to state
            if not distribution.known and not differs:
                continue  # the verdict is the same whatever it holds
            owner = check.parents[-1] if column in root_key and not stated else table.name
            entry = found.setdefault((owner, column), (distribution, []))
            entry[1].append(check.name)
    return found


def columns_text(source: str, schema: Schema, checks: list[SpaceCheck], written_to: Path) -> tuple[str, int]:
    """The file's content, and how many columns it states; `source`: the check's inputs as
    shell arguments."""
    columns = depended_on(schema, checks)
    lines = [f"# keybench check {source}: the key columns its verdicts depend on.",
             "# Edit each to what your application writes, then run:",
             f"#   keybench check {source} --columns {shlex.quote(str(written_to))}",
             f"# Distributions: {', '.join(STATED)}; categorical and zipf take values = N.", ""]
    for (table, column), (distribution, spaces) in sorted(columns.items()):
        decides = ", ".join(spaces)
        if not distribution.known:
            lines.append(f"# unknown: {distribution.reason}")
            lines.append(f"# written as {UNKNOWN_CASES[0]}, the case that hotspots; random or uuid4 if the "
                         "application draws it at random")
            stated = Distribution(UNKNOWN_CASES[0], "")
        else:
            how = "assumed from its name" if distribution.guessed else "as stated"
            lines.append(f"# {how}: {distribution.name}: {distribution.reason}")
            stated = distribution
        lines += [f"# decides: {decides}", f"{_key(table, column)} = {_value(stated)}", ""]
    return "\n".join(lines), len(columns)


def write_columns(path: Path, source: str, schema: Schema, checks: list[SpaceCheck]) -> list[str]:
    """Write the file; the lines the check prints about it, ending with the command to run next."""
    text, count = columns_text(source, schema, checks, path)
    write_atomically(path, text)
    return [f"wrote {path}: {count} key column(s) the verdicts depend on; edit it, then run:",
            Verbatim(f"  keybench check {source} --columns {shlex.quote(str(path))}")]


def next_step(source: str, schema: Schema, checks: list[SpaceCheck], columns: Path | None = None) -> list[str]:
    """Without --write-columns: the command that writes the file (the --columns file, updated,
    when there is one), when some verdict rests on a column that is unknown or guessed."""
    open_columns = [d for d, _ in depended_on(schema, checks).values()
                    if not d.known or d.guessed]
    if not open_columns:
        return []
    target = shlex.quote(str(columns)) if columns is not None else "columns.toml"
    given = f" --columns {target}" if columns is not None else ""
    return [f"next: {len(open_columns)} key column(s) are unknown or guessed; to state them, run:",
            Verbatim(f"  keybench check {source}{given} --write-columns {target}")]
