"""Where the check's statements come from: a DDL file, a folder of migrations as the migration
tools lay it out (which files, in which order, what undoes a migration), or a Terraform
configuration's google_spanner_database resources; each statement with its file and line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from keybench.check.terraform import terraform_databases
from keybench.design.ddl import split_ddl_lines
from keybench.errors import KeybenchError
from keybench.textfiles import read_text


def ddl_files(path: Path) -> list[Path]:
    """A DDL file, or a folder of migrations: its `.sql` files (where it has none, its `.ddl`
    and `.sdl` files, as Spanner's own tools name them, else its Terraform files) in the order the migration tools apply
    them (applied_order), the files that undo a migration left out: golang-migrate's and sqlx's
    `*.down.sql`, Diesel's `down.sql`, Flyway's undo `U2__x.sql`, yoyo's `*.rollback.sql`."""
    if not path.is_dir():
        return [path]
    for suffixes in ((".sql",), (".ddl", ".sdl"), (".tf",)):
        # (a link that leads nowhere is kept, and its read says so: left out, the check would pass without it)
        found = sorted((f for f in path.rglob("*") if f.suffix.lower() in suffixes and not f.is_dir()
                        and not _UNDOES.search(f.name)), key=lambda f: applied_order(f.relative_to(path).as_posix()))
        if found:
            return found
    raise KeybenchError(f"{path}: a folder with no .sql, .ddl, .sdl or .tf file in it")


_UNDOES = re.compile(r"(?:^|\.)(?:down|rollback)\.sql$|^U\d+(?:[._]\d+)*__", re.IGNORECASE)
_FLYWAY_VERSIONED = re.compile(r"^V(\d+(?:[._]\d+)*)__", re.IGNORECASE)


def applied_order(relative: str) -> list:
    """A migration file's place (its path in the folder): names in order with numbers compared
    as numbers (`2_x.sql` before `10_y.sql`); Flyway's versions by their parts (`V1__` before
    `V1.1__` and `V1_2__`, before `V2__`), its repeatable `R__x.sql` after every versioned one."""
    folder, _, name = relative.rpartition("/")
    versioned = _FLYWAY_VERSIONED.match(name)
    if versioned:  # `!` sorts before the `.` or `_` of a longer version
        name = "v" + re.sub(r"[._]", ".", versioned.group(1)) + "!" + name[versioned.end():]
    elif name[:3].upper() == "R__":
        name = "\x7f" + name
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", f"{folder}/{name}")]


@dataclass
class Statements:
    """The statements in the order they are applied; where each comes from (None for a single
    DDL file: its number says it); each one's file and first line; notes on what was not read."""

    statements: list[str]
    labels: list[str] | None
    places: list[tuple[str, int]]
    notes: list[str]


def read_statements(path: Path, more: tuple[Path, ...] = ()) -> Statements:
    """The statements of a DDL file, a migration folder or a Terraform file (and of the further
    ones, after it)."""
    statements: list[str] = []
    labels: list[str] = []
    places: list[tuple[str, int]] = []
    notes: list[str] = []
    for given in (path, *more):
        for file in ddl_files(given):
            # (a lone file is named by the error's own prefix; a folder's by its place in it)
            where = "" if given == path and not more and not given.is_dir() else (
                file.relative_to(given).as_posix() if given.is_dir() and not more else str(file))
            for database, found in _file_statements(file, notes):
                statements += [statement for statement, _ in found]
                places += [(str(file), line) for _, line in found]
                labels += [" ".join(filter(None, (where, database, f"statement {n}")))
                           for n in range(1, len(found) + 1)]
    if not statements:
        raise KeybenchError(f"{' '.join(map(str, (path, *more)))}: no DDL statement in it"
                            + (f" ({'; '.join(notes)})" if notes else ""))
    single = not (path.is_dir() or more or path.suffix.lower() == ".tf")
    return Statements(statements, None if single else labels, places, notes)


def _file_statements(file: Path, notes: list[str]) -> list[tuple[str, list[tuple[str, int]]]]:
    """A file's statements with their lines, by database ("google_spanner_database.NAME" in a
    Terraform file, "" in a DDL file); what a Terraform file does not write out goes to `notes`."""
    text = read_text(file, "DDL file")
    if file.suffix.lower() != ".tf":
        return [("", split_ddl_lines(text))]
    databases = terraform_databases(text, str(file))
    for database in databases:
        if database.unread is not None:
            notes.append(f"{file}: google_spanner_database.{database.name} left out: its ddl is {database.unread}, "
                         "not written in the file (check the DDL it is built from)")
    if not databases:
        notes.append(f"{file}: no google_spanner_database with a ddl list in it")
    return [(f"google_spanner_database.{d.name}", d.statements) for d in databases if d.unread is None]
