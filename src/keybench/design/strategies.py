"""Strategy folders: one folder under `schemas/<backend>/<name>/` is one key design.

A folder holds the schema fixture (Spanner: `googlesql.sql` and `postgresql.sql`, a user's
design one of them; Bigtable: `table.toml` with column families and GC rules) and
`strategy.toml`, which declares the key as an ordered list of parts (see `keys.py`). The
read plan follows from the key (see `plans.py`). Adding a strategy means adding one folder.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keybench.design.ddl import INDEX_KIND, TABLE_KIND, creates, split_ddl
from keybench.design.events import WriteEvent
from keybench.design.keys import (
    PRELOAD_KINDS,
    KeyGenerator,
    Part,
    bigtable_part,
    spanner_part,
)
from keybench.design.provenance import (
    DISTRIBUTIONS,
    YOUR_OWN_DESIGN,
    Provenance,
    _provenance,
)
from keybench.errors import FixtureError, KeybenchError
from keybench.textfiles import read_text

BACKENDS = ("spanner", "bigtable")
DIALECTS = {"spanner": ("googlesql", "postgresql"), "bigtable": ("",)}
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
MAX_PRELOAD_ROWS = 1_000_000  # a migration's source rows, written before the load


def schemas_root() -> Path:
    """The strategy catalogue: KEYBENCH_SCHEMAS, else the copy an installed wheel carries
    (keybench/schemas), else the repository's schemas/ beside src/ (a checkout or an editable install)."""
    configured = os.environ.get("KEYBENCH_SCHEMAS")
    if configured:
        return Path(configured)
    package = Path(__file__).resolve().parents[1]
    packaged = package / "schemas"
    return packaged if packaged.is_dir() else package.parents[1] / "schemas"


@dataclass(frozen=True)
class Index:
    """A Spanner secondary index a strategy declares, to serve reads its table key cannot."""

    name: str
    parts: tuple[Part, ...]  # the index key, in the same vocabulary as a table key
    stores: tuple[str, ...] = ()  # STORING / INCLUDE columns
    # NULL_FILTERED (PostgreSQL: WHERE ... IS NOT NULL): rows with a NULL key column have no entry
    null_filtered: bool = False

    def holds(self, values: tuple) -> bool:
        """Whether a row whose index key columns take `values` has an entry in this index."""
        return not (self.null_filtered and any(v is None for v in values))

    def key_values(self, event: WriteEvent) -> tuple:
        """The index key columns' values one write gives its row (index key parts draw nothing
        random, so no generator is needed)."""
        return tuple(p.compute(event, _INDEX_RNG) for p in self.parts)

    def holds_write(self, event: WriteEvent) -> bool:
        """Whether the row one write makes has an entry in this index."""
        return self.holds(self.key_values(event))


_INDEX_RNG = random.Random(0)  # index key parts (time, user, shard, ...) never draw from it


@dataclass(frozen=True)
class ParentRows:
    """A user's table interleaved in a parent: each insert upserts, in its commit, the parent
    row its leading key columns name, so that the database accepts the child row."""

    table: str
    key_columns: int  # the child's leading key columns, which are the parent's key
    columns: tuple[Part, ...] = ()  # the parent's NOT NULL columns outside its key, filled by type


DEFAULT_PAYLOAD_QUALIFIER = "p"
# Spanner: the NOT NULL column that holds each write's time, which every read returns.
DEFAULT_TIME_COLUMN = "LastAccess"
# Spanner: the columns that hold each write's user, its WriteId (the audit counts them) and its payload.
DEFAULT_USER_COLUMN, DEFAULT_WRITE_ID_COLUMN, DEFAULT_PAYLOAD_COLUMN = "UserId", "WriteId", "Payload"
# The same columns a user's own design holds them in (ALTER TABLE ... ADD COLUMN in its fixture): names
# of keybench's own, so they never take the place of a column of the user's.
USER_DESIGN_COLUMNS = {"time_column": "KeybenchTime", "user_column": "KeybenchUserId",
                       "write_id_column": "KeybenchWriteId", "payload_column": "KeybenchPayload"}


@dataclass(frozen=True)
class Strategy:
    backend: str
    name: str
    dialect: str
    directory: Path
    summary: str
    claim: str  # the expected key distribution, one of DISTRIBUTIONS, which verdicts are checked against
    table: str
    parts: tuple[Part, ...]
    separator: str | None = None
    ddl: tuple[str, ...] = ()  # Spanner statements, in order
    column_families: dict = field(default_factory=dict)  # Bigtable: family -> GC rule spec
    order: int = 1000
    expect_wrong_rows: bool = False  # the design's documented trap: range reads return wrong rows
    parent_table: str | None = None  # Spanner: an interleaving parent keyed by UserId, upserted with each insert
    parent_rows: ParentRows | None = None  # Spanner, a user's design: its interleaving parent, keyed as it declares
    preload: dict | None = None  # a migration's source rows: {rows: N, keys: one of PRELOAD_KINDS, with_keys?: [...]}
    indexes: tuple[Index, ...] = ()  # Spanner secondary indexes the reads may use
    extra_parts: tuple[Part, ...] = ()  # Spanner: non-key columns the application computes (an index's ShardId)
    note: str = ""  # where this dialect's fixture departs from the documented design, and why
    payload_qualifier: str = DEFAULT_PAYLOAD_QUALIFIER  # Bigtable: the column the payload cell is written to
    # Spanner: where each write's time is kept. Another column than LastAccess when a design
    # needs LastAccess nullable (index_monotonic, as the page writes it).
    time_column: str = DEFAULT_TIME_COLUMN
    user_column: str = DEFAULT_USER_COLUMN
    write_id_column: str = DEFAULT_WRITE_ID_COLUMN
    payload_column: str = DEFAULT_PAYLOAD_COLUMN
    source: Provenance = Provenance()
    advice: str = ""  # the documents' advice beyond hotspots, e.g. "avoid: loses scan order"
    table_per_tenant: bool = False  # Bigtable: one table per tenant (the first key part), which the row key leaves out

    @property
    def tables(self) -> int:
        """Tables the design needs in the instance: one, or one per tenant."""
        return len(self.parts[0].buckets) if self.table_per_tenant else 1

    @property
    def documented(self) -> bool:
        """A document states this design's key distribution (not only advice about it)."""
        return self.source.cited and self.source.states_distribution

    @property
    def expectation(self) -> str:
        """The expected distribution and whose expectation it is, in a few words."""
        if self.source.user:
            return f"none claimed ({YOUR_OWN_DESIGN})"
        if self.documented:
            return f"{self.claim} (documented)"
        return f"{self.claim} (keybench's expectation: {self.source.expected_because or self.source.reason})"

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.name}" + (f"[{self.dialect}]" if self.dialect not in ("", "googlesql") else "")

    def key_generator(self, seed: int) -> KeyGenerator:
        return KeyGenerator(self.parts, seed=seed, separator=self.separator)


def _read_toml(path: Path) -> dict:
    if not path.is_file():
        raise FixtureError.malformed(path, "file is missing")
    try:
        return tomllib.loads(read_text(path, "strategy file"))
    except tomllib.TOMLDecodeError as exc:
        raise FixtureError.malformed(path, f"not valid TOML ({exc})") from None


GC_KEYS = {"max_versions", "max_age", "union", "intersection"}


def _check_gc_rule(path: Path, family: str, rule: dict) -> None:
    if not isinstance(rule, dict) or len(rule) != 1 or not set(rule) <= GC_KEYS:
        raise FixtureError.malformed(
            path, f"column family {family!r}: gc must be one of {sorted(GC_KEYS)}, got {rule!r}"
        )
    (kind, value), = rule.items()
    if kind in ("union", "intersection"):
        if not isinstance(value, list) or not value:
            raise FixtureError.malformed(path, f"column family {family!r}: {kind} needs a list of rules")
        for sub in value:
            _check_gc_rule(path, family, sub)
    elif kind == "max_versions" and (not isinstance(value, int) or value < 1):
        raise FixtureError.malformed(path, f"column family {family!r}: max_versions must be a positive integer")
    elif kind == "max_age" and not re.fullmatch(r"\d+[smhd]", str(value)):
        raise FixtureError.malformed(path, f"column family {family!r}: max_age must look like 30s, 10m, 12h or 7d")


def _with_buckets(spec, buckets: int | None):
    """A key part declaration with its bucket count replaced (`--buckets`)."""
    if buckets is None or not isinstance(spec, dict) or "buckets" not in spec:
        return spec
    return {**spec, "buckets": buckets}


def _parent_rows(path: Path, spec, parts: tuple[Part, ...], ddl: tuple[str, ...]) -> ParentRows | None:
    """[parent_rows]: table = "<parent>", key_columns = N (the key's first N columns are the
    parent's key), column = [parts of the parent's NOT NULL columns]."""
    if spec is None:
        return None
    try:
        rows = ParentRows(str(spec["table"]), spec["key_columns"], tuple(spanner_part(p) for p in spec.get("column",
                                                                                                           [])))
    except (KeyError, TypeError, ValueError) as exc:
        raise FixtureError.malformed(path, f"[parent_rows] needs table, key_columns and column: {exc}") from None
    if not isinstance(rows.key_columns, int) or not 1 <= rows.key_columns <= len(parts):
        raise FixtureError.malformed(path,
                                     f"[parent_rows]: key_columns must be from 1 to the key's {len(parts)} columns")
    if any(p.generated for p in parts):
        raise FixtureError.malformed(path,
                                     "[parent_rows]: keys the database generates are inserted by DML, without parent "
                                     "rows")
    if not any(creates(TABLE_KIND, rows.table).match(st) for st in ddl):
        raise FixtureError.malformed(path, f"[parent_rows]: the fixture has no CREATE TABLE {rows.table}")
    return rows


# The type of each strategy.toml setting that has one fixed type (a dialect's own table may
# override them): a wrong one is one line naming it, never a traceback further on.
SETTING_TYPES: dict[str, tuple[type, str]] = {
    "summary": (str, "a string"), "claim": (str, "a string"), "advice": (str, "a string"), "note": (str, "a string"),
    "order": (int, "a whole number"), "key": (list, "a list of parts"), "expect_wrong_rows": (bool, "true or false"),
    "table": (str, "a table name"), "parent_table": (str, "a table name"), "column": (list, "a list of tables"),
    "index": (list, "a list of tables"), "separator": (str, "a string"), "source": (dict, "a table"),
    "preload": (dict, "a table"), "parent_rows": (dict, "a table"),
}
MAX_ORDER = 10**6  # `order` sorts the catalogue's listing


def _check_setting_types(path: Path, meta: dict) -> None:
    for setting, (kind, words) in SETTING_TYPES.items():
        value = meta.get(setting)
        if value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            raise FixtureError.malformed(path, f"{setting} must be {words}, got {value!r}")
    if not -MAX_ORDER <= meta.get("order", 0) <= MAX_ORDER:
        raise FixtureError.malformed(path, f"order must be a whole number from {-MAX_ORDER:,} to {MAX_ORDER:,}, "
                                           f"got {meta['order']!r}")


def load_strategy(directory: Path, backend: str, dialect: str, buckets: int | None = None) -> Strategy:
    meta_path = directory / "strategy.toml"
    meta = _read_toml(meta_path)
    # A dialect may override parts of the design, e.g. where the emulator refuses a form.
    meta = {**meta, **meta.get(dialect, {})} if dialect in DIALECTS["spanner"] else meta
    _check_setting_types(meta_path, meta)
    name = directory.name
    if not NAME_RE.match(name):
        raise FixtureError.malformed(directory, "a strategy folder name is lower_snake_case")
    make_part = spanner_part if backend == "spanner" else bigtable_part
    for number, part in enumerate(meta.get("key", []), 1):
        if not isinstance(part, str | dict):
            raise FixtureError.malformed(meta_path, f"key part {number} must be a name or a table, got {part!r}")
    try:
        parts = tuple(make_part(_with_buckets(p, buckets)) for p in meta.get("key", []))
    except (ValueError, TypeError, AttributeError) as exc:
        raise FixtureError.malformed(meta_path, str(exc)) from None
    if not parts:
        raise FixtureError.malformed(meta_path, "'key' lists no parts")
    source = _provenance(meta_path, meta.get("source"))
    # A user's own design claims nothing: no document states what it does.
    if meta.get("claim") not in DISTRIBUTIONS and not (source.user and "claim" not in meta):
        raise FixtureError.malformed(meta_path,
                                     f"claim must be one of {', '.join(DISTRIBUTIONS)}, got {meta.get('claim')!r}")
    common: dict[str, Any] = dict(
        backend=backend, name=name, dialect=dialect, directory=directory,
        summary=str(meta.get("summary", "")), claim=str(meta.get("claim", "")),
        parts=parts, order=int(meta.get("order", 1000)),
        expect_wrong_rows=bool(meta.get("expect_wrong_rows", False)),
        note=" ".join(str(meta.get("note", "")).split()),
        source=source, advice=" ".join(str(meta.get("advice", "")).split()),
    )
    if backend == "spanner":
        ddl_path = directory / f"{dialect}.sql"
        if not ddl_path.exists():
            raise FixtureError.malformed(ddl_path, "file is missing")
        ddl = tuple(split_ddl(read_text(ddl_path, "strategy DDL")))
        table = str(meta.get("table", ""))
        parent = meta.get("parent_table")
        for named, role in ((table, "table"), (parent, "parent_table")):
            if (named or role == "table") and not any(creates(TABLE_KIND, named or "").match(st) for st in ddl):
                raise FixtureError.malformed(ddl_path,
                                             f"no CREATE TABLE {named or '<table>'} (strategy.toml names {role} "
                                             f"{named!r})")
        preload = meta.get("preload")
        if preload is not None and (
            not isinstance(preload, dict) or not isinstance(preload.get("rows"), int)
            or not 1 <= preload["rows"] <= MAX_PRELOAD_ROWS
            or preload.get("keys") not in PRELOAD_KINDS or len(parts) != 1
            or not isinstance(preload.get("with_keys", []), list)
            or not all(isinstance(k, int) and k > 0 for k in preload.get("with_keys", []))
        ):
            raise FixtureError.malformed(meta_path,
                                         f"[preload] needs rows = N from 1 to {MAX_PRELOAD_ROWS:,} and keys = one of "
                                            f"{', '.join(PRELOAD_KINDS)}, optionally with_keys = [positive integers], "
                                            "on a one-column key")
        try:
            extra = tuple(spanner_part(p) for p in meta.get("column", []))
            indexes = tuple(
                Index(str(i["name"]), tuple(spanner_part(p) for p in i["key"]), tuple(i.get("stores", ())))
                for i in meta.get("index", [])
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise FixtureError.malformed(meta_path, f"[[column]] / [[index]]: {exc}") from None
        found = {}
        for index in indexes:
            statement = next((st for st in ddl if creates(INDEX_KIND, index.name).match(st)), None)
            if statement is None:
                raise FixtureError.malformed(ddl_path, f"no CREATE INDEX {index.name} (strategy.toml declares it)")
            found[index.name] = bool(re.match(r"CREATE\s+(?:UNIQUE\s+)?NULL_FILTERED\b", statement, re.IGNORECASE)
                                     or re.search(r"\bWHERE\b.*\bIS\s+NOT\s+NULL\b", statement, re.IGNORECASE))
        indexes = tuple(dataclasses.replace(i, null_filtered=found[i.name]) for i in indexes)
        row_columns: dict[str, Any] = {"time_column": DEFAULT_TIME_COLUMN, "user_column": DEFAULT_USER_COLUMN,
                       "write_id_column": DEFAULT_WRITE_ID_COLUMN, "payload_column": DEFAULT_PAYLOAD_COLUMN}
        for setting, default in row_columns.items():
            row_columns[setting] = meta.get(setting, default)
            if not isinstance(row_columns[setting], str) or not re.fullmatch(r"[A-Za-z]\w*", row_columns[setting]):
                raise FixtureError.malformed(meta_path,
                                             f"{setting} must be a column name, got {row_columns[setting]!r}")
        time_column = row_columns["time_column"]
        parent_rows = _parent_rows(meta_path, meta.get("parent_rows"), parts, ddl)
        if any(p.column == time_column and p.when_set for p in (*parts, *extra)):
            raise FixtureError.malformed(meta_path, f"{time_column} holds each write's time, which every read returns: "
                                            "a nullable part cannot fill it; name another time_column")
        return Strategy(table=table, ddl=ddl, parent_table=parent, preload=preload, indexes=indexes,
                        extra_parts=extra, parent_rows=parent_rows, **row_columns, **common)
    table_path = directory / "table.toml"
    table_spec = _read_toml(table_path)
    families = table_spec.get("column_families")
    if not isinstance(families, dict) or not families:
        raise FixtureError.malformed(table_path, "needs at least one [column_families.<name>] table")
    for family, spec in families.items():
        unknown = set(spec) - {"gc"}
        if unknown:
            raise FixtureError.malformed(table_path, f"column family {family!r}: unknown option(s) {sorted(unknown)}")
        _check_gc_rule(table_path, family, spec.get("gc", {"max_versions": 1}))
    separator = str(meta.get("separator", "#"))
    qualifier = table_spec.get("payload_qualifier", DEFAULT_PAYLOAD_QUALIFIER)
    if not isinstance(qualifier, str) or not qualifier:
        raise FixtureError.malformed(table_path, "payload_qualifier must be a non-empty string")
    table_per = table_spec.get("table_per")
    if table_per not in (None, "tenant") or (table_per and parts[0].name != "tenant"):
        raise FixtureError.malformed(table_path,
                                     'table_per may only be "tenant", on a key whose first part is the tenant')
    return Strategy(table=name, separator=separator, column_families=families, payload_qualifier=qualifier,
                    table_per_tenant=table_per == "tenant", **common)


def catalogue(backend: str, dialect: str | None = None, buckets: int | None = None) -> dict[str, Strategy]:
    """Every strategy of a backend, in catalogue order; `buckets` overrides every shard or salt count."""
    if backend not in BACKENDS:
        raise KeybenchError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}, all")
    dialect = DIALECTS[backend][0] if dialect is None else dialect
    if dialect not in DIALECTS[backend]:
        raise KeybenchError(f"unknown {backend} dialect {dialect!r}; valid: {', '.join(DIALECTS[backend])}")
    root = schemas_root() / backend
    if not root.is_dir():
        raise KeybenchError(f"schema fixtures not found at {root}; set KEYBENCH_SCHEMAS to the schemas/ folder")
    found = [load_strategy(d, backend, dialect,
                           buckets) for d in sorted(root.iterdir()) if (d / "strategy.toml").exists()]
    return {s.name: s for s in sorted(found, key=lambda s: (s.order, s.name))}


def user_strategies(folders, backend: str, dialect: str | None = None, buckets: int | None = None) -> dict[str,
                                                                                                           Strategy]:
    """Strategies of a backend in a user's own folders (`keybench run --strategy-dir`): a folder
    that is one strategy (FOLDER/strategy.toml, of this backend), or holds backend folders as
    schemas/ does (FOLDER/<backend>/<name>/strategy.toml). A name given twice is refused."""
    dialect = DIALECTS[backend][0] if dialect is None else dialect
    found: dict[str, Strategy] = {}
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise KeybenchError(f"--strategy-dir {folder}: no such folder")
        if folder.resolve() == schemas_root().resolve():
            continue  # the catalogue itself, which runs anyway
        if (folder / "strategy.toml").exists():
            folders = [folder] if _backend_of(folder) == backend else []
        else:
            root = folder / backend
            folders = [d for d in sorted(root.iterdir()) if (d / "strategy.toml").exists()] if root.is_dir() else []
        for folder in folders:
            if not (folder / f"{dialect}.sql").exists() and backend == "spanner":
                continue  # a design written in one dialect runs in that dialect only
            strategy = load_strategy(folder.resolve(), backend, dialect, buckets)
            if strategy.name in found:
                raise KeybenchError(f"--strategy-dir: two strategies named {backend}:{strategy.name} "
                                    f"({found[strategy.name].directory} and {folder}); rename one folder")
            found[strategy.name] = strategy
    return found


def _backend_of(folder: Path) -> str:
    """A lone strategy folder's backend: Spanner's fixture is SQL, Bigtable's a table.toml."""
    return "bigtable" if (folder / "table.toml").exists() else "spanner"


def select(backend: str, names: list[str] | None, dialect: str | None = None) -> list[Strategy]:
    """The chosen strategies of one backend, or all of them; unknown names are an error."""
    available = catalogue(backend, dialect)
    if not names:
        return list(available.values())
    unknown = [n for n in names if n not in available]
    if unknown:
        raise KeybenchError(
            f"unknown {backend} strategy {', '.join(map(repr, unknown))}; valid: {', '.join(available)}"
        )
    return [available[n] for n in names]


BIGTABLE_ROW_BYTES, BIGTABLE_MAX_ROW_BYTES = 100 * 1024 * 1024, 256 * 1024 * 1024  # keep under / hard limit
