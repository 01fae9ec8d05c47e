"""The services' documented limits a design must keep, checked before anything runs: Bigtable's
row key, column family, qualifier and cell sizes and its tables per instance; Spanner's index
key columns and bytes."""

from __future__ import annotations

import random

from keybench.design.events import NUMBER, OPAQUE, TIME, WriteEvent
from keybench.design.keys import (
    Part,
)
from keybench.design.strategies import (
    BIGTABLE_MAX_ROW_BYTES,
    BIGTABLE_ROW_BYTES,
    Strategy,
)
from keybench.errors import KeybenchError

# Bigtable's limits, as "Bigtable: Schema design best practices" gives them.
BIGTABLE_MAX_ROW_KEY_BYTES = 4 * 1024
BIGTABLE_MAX_COLUMN_FAMILIES = 100
BIGTABLE_MAX_CELL_BYTES = 10 * 1024 * 1024


BIGTABLE_MAX_QUALIFIER_BYTES = 16 * 1024
BIGTABLE_MAX_TABLES = 1000  # per instance ("Multi-tenancy")
# Spanner's index key limits, as "Optimizing schema design for Cloud Spanner" gives them
# (section "STORING index clause": "Indexschlüssel auf 16 in der Anzahl und 8 KiB in der
# Gesamtgröße beschränkt", index keys are limited to 16 in number and 8 KiB in total size).
SPANNER_MAX_INDEX_KEY_COLUMNS = 16
SPANNER_MAX_INDEX_KEY_BYTES = 8 * 1024
# Sizes of Spanner key values by type, for the index key estimate: INT64 8 bytes, TIMESTAMP 12.
SPANNER_VALUE_BYTES = {int: 8, bool: 1}
SPANNER_TIMESTAMP_BYTES = 12


def _probe_event(population: int):
    """The write with the longest key the workload can make: the largest entity, a late time,
    a big insert number."""
    return WriteEvent(entity=population, ts_us=9_999_999_999_999_999, write_id="", seq=10**12)


def _spanner_value_bytes(part: Part, value) -> int:
    if value is None:  # made by the database: a sequence's INT64 or GENERATE_UUID's 36 characters
        return 36 if part.name == "generated_uuid" else 8
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes):
        return len(value)
    return SPANNER_VALUE_BYTES.get(type(value), SPANNER_TIMESTAMP_BYTES)


def _check_spanner_indexes(strategy: Strategy, population: int) -> None:
    """An index's key is its own columns plus the table's key columns it carries to find the row."""
    probe, rng = _probe_event(population), random.Random(0)
    for index in strategy.indexes:
        own = {p.column for p in index.parts}
        parts = (*index.parts, *(p for p in strategy.parts if p.column not in own))
        if len(parts) > SPANNER_MAX_INDEX_KEY_COLUMNS:
            raise KeybenchError(
                f"{strategy.label}: index {index.name} has {len(parts)} key columns (with the table's key); "
                f"Spanner's rule is at most {SPANNER_MAX_INDEX_KEY_COLUMNS} index key columns"
            )
        size = sum(_spanner_value_bytes(p, p.value_when_set(probe, rng)) for p in parts)
        if size > SPANNER_MAX_INDEX_KEY_BYTES:
            raise KeybenchError(
                f"{strategy.label}: index {index.name} has keys of {size:,} bytes; "
                f"Spanner's rule is an index key of at most 8 KiB"
            )


def _versions_kept(rule: dict) -> int | None:
    """How many versions of a cell a GC rule keeps at most; None: no version bound (age only)."""
    (kind, value), = rule.items()
    if kind == "max_versions":
        return value
    if kind == "max_age":
        return None
    bounds = [_versions_kept(r) for r in value]
    if kind == "union":  # collected when any rule says so: the tightest bound holds
        return min((b for b in bounds if b is not None), default=None)
    known = [b for b in bounds if b is not None]
    return None if len(known) < len(bounds) else max(known)  # intersection: collected only when all say so


def _check_bigtable_rows(strategy: Strategy, payload_bytes: int) -> None:
    """A row rewritten at every write (no part of its key is new per write) holds as many
    versions of the payload as its GC rule keeps; so does a row per interval (an interval
    part), for the writes of its interval."""
    if any(p.role in (TIME, NUMBER, OPAQUE) and not p.interval_us for p in strategy.parts):
        return  # a new row per write: one version each
    for family, spec in strategy.column_families.items():
        versions = _versions_kept(spec.get("gc", {"max_versions": 1}))
        if versions is None:
            continue  # kept by age: the size depends on the write rate, which no rule here knows
        size = versions * payload_bytes
        if size > BIGTABLE_ROW_BYTES:
            raise KeybenchError(
                f"{strategy.label}: rows of up to {size / 2**20:,.0f} MB ({versions} versions of a "
                f"{payload_bytes:,}-byte cell in family {family!r}); Bigtable's rule is a row under 100 MB "
                f"({BIGTABLE_MAX_ROW_BYTES // 2**20} MB at most)"
            )


def check_rules(strategy: Strategy, population: int, payload_bytes: int) -> None:
    """Refuse, before any load, a design that breaks a documented limit."""
    if strategy.backend == "spanner":
        _check_spanner_indexes(strategy, population)
        return
    where = strategy.directory
    families = len(strategy.column_families)
    if families > BIGTABLE_MAX_COLUMN_FAMILIES:
        raise KeybenchError(
            f"{where}: {families} column families; Bigtable's rule is about "
            f"{BIGTABLE_MAX_COLUMN_FAMILIES} at most (Bigtable: Schema design best practices)"
        )
    if payload_bytes > BIGTABLE_MAX_CELL_BYTES:
        raise KeybenchError(
            f"{strategy.label}: a {payload_bytes:,}-byte payload cell; Bigtable's rule is a cell under 10 MB"
        )
    qualifier = len(strategy.payload_qualifier.encode())
    if qualifier > BIGTABLE_MAX_QUALIFIER_BYTES:
        raise KeybenchError(
            f"{where}: a column qualifier of {qualifier:,} bytes; Bigtable's rule is a qualifier of at most 16 KB"
        )
    if strategy.tables > BIGTABLE_MAX_TABLES:
        raise KeybenchError(
            f"{strategy.label}: one table per tenant needs {strategy.tables:,} tables; Bigtable's rule is at most "
            f"{BIGTABLE_MAX_TABLES:,} tables per instance (Bigtable: Schema design best practices, \"Multi-tenancy\")"
        )
    _check_bigtable_rows(strategy, payload_bytes)
    check_row_key(strategy, population, str(where))


def check_row_key(strategy: Strategy, population: int, where: str) -> None:
    """The longest row key the workload can write is within Bigtable's 4 KB."""
    generator = strategy.key_generator(0)
    size = len(generator.row_key(generator.key(_probe_event(population))))
    if size > BIGTABLE_MAX_ROW_KEY_BYTES:
        raise KeybenchError(
            f"{where}: row keys of {size:,} bytes; Bigtable's rule is a row key of at most 4 KB"
        )
