"""The key spaces of a check: each distinct stream modelled once, two at a time on a schema of
many, with the figures a plain model gives; a helper that dies leaves the work to the check."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from keybench.check.inference import Distribution, infer
from keybench.check.keyspaces import (
    HELPER_SPACES,
    SpaceModeller,
    check_schema,
    check_table,
    key_distributions,
    table_strategy,
)
from keybench.check.schema import Column, Index, KeyColumn, Schema, Table
from keybench.model.memo import SpaceMemo
from keybench.model.simulate import simulate_stream

UUID, TIME, SEQ = (Distribution(n, "stated") for n in ("uuid4", "time", "sequential"))


def table(name: str, *key: str) -> Table:
    return Table(name, tuple(Column(c, "STRING(36)", False) for c in key), tuple(KeyColumn(c) for c in key))


# Six tables keyed by a UUID (one stream: modelled once), one by time; indexes by time and by
# an unknown column (two cases).
SCHEMA = Schema(
    (*(table(f"T{n}", f"Id{n}") for n in range(6)), table("Events", "At", "Id6")),
    (Index("T0ByAt", "T0", (KeyColumn("Id0"),)), Index("T1ByOwner", "T1", (KeyColumn("Owner"),))),
)
SCHEMA = Schema(tuple(t if t.name != "T1" else Table("T1", (*t.columns, Column("Owner", "STRING(36)", False)), t.key)
                      for t in SCHEMA.tables), SCHEMA.indexes)
STATED = {**{f"Id{n}": UUID for n in range(7)}, "At": TIME}


def checked(helper: bool, monkeypatch) -> list:
    if not helper:
        monkeypatch.setattr("keybench.check.keyspaces.HELPER_SPACES", 10**9)
    return check_schema(SCHEMA, STATED, Path("schema.sql"), 4000, 8, memo=SpaceMemo())  # nothing modelled before


def test_a_schema_of_many_spaces_gets_the_same_checks_with_the_helper_as_without(monkeypatch):
    assert sum(1 + len(SCHEMA.indexes_of(t.name)) for t in SCHEMA.tables) >= HELPER_SPACES
    helped = checked(True, monkeypatch)
    alone = checked(False, monkeypatch)
    assert helped == alone
    verdicts = {c.name: c.verdict.verdict for c in helped}
    assert verdicts["Events"] == "hotspot" and verdicts["T3"] == "spread"
    assert verdicts["T1.T1ByOwner"] == "inconclusive"  # Owner unknown: hotspot as sequential, spread as random


def test_each_distinct_stream_is_modelled_once():
    modeller = SpaceModeller(8, SpaceMemo())
    try:
        for t in SCHEMA.tables[:6]:
            distributions = key_distributions(SCHEMA, t, lambda tb, c: infer(SCHEMA, tb, c, STATED))
            check_table(SCHEMA, t, distributions, Path("schema.sql"), 4000, modeller)()
    finally:
        modeller.close()
    # Ten spaces submitted: T0's key and its index (an index entry is its own stream), T1's key
    # and its index under each case of Owner (sequential, random), T2..T5's keys. Four distinct
    # streams: a UUID key, an index on a UUID, and Owner's two cases; the other six are hits.
    assert modeller.modelled == len(modeller.memo.spaces) == 4
    assert modeller.reused == 6
    # a later check in the same process models none of it again
    again = SpaceModeller(8, modeller.memo)
    check_table(SCHEMA, SCHEMA.tables[0], {"Id0": UUID}, Path("other.sql"), 4000, again)()
    assert again.modelled == 0 and again.reused == 2


def test_a_helper_that_dies_leaves_its_space_to_the_check(capsys):
    modeller = SpaceModeller(8, SpaceMemo(), helper=True)
    try:
        first = modeller.submit(simulate_stream(table_strategy(SCHEMA, SCHEMA.tables[6],
                                                               {"At": TIME, "Id6": UUID}, Path("s.sql")),
                                                4000, reads_per_operation=0))
        assert modeller.helper is not None and modeller.helper.busy
        os.kill(modeller.helper.proc.pid, signal.SIGKILL)
        verdicts = modeller.verdicts(first)
    finally:
        modeller.close()
    assert verdicts["table"].verdict == "hotspot"
    assert "helper process failed" in capsys.readouterr().err
