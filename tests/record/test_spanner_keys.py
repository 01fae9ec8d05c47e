"""record.spanner_keys.SchemaCache: a database's layouts read once, and a failed read not retried at every call."""

from __future__ import annotations

import pytest

from keybench.check.schema import Schema
from keybench.record.spanner_keys import RETRY_SCHEMA_S, SchemaCache


class _Reader:
    """Fails as long as `refusing`, else reads an empty schema; notes every read."""

    def __init__(self):
        self.reads: list[str] = []
        self.refusing = True

    def __call__(self, database: str) -> Schema:
        self.reads.append(database)
        if self.refusing:
            raise ValueError("the emulator refuses")
        return Schema(tables=())


def test_a_failed_schema_read_is_not_retried_until_its_wait_is_over_and_a_good_one_is_kept():
    now = [0.0]
    reader = _Reader()
    cache = SchemaCache(reader, clock=lambda: now[0])
    for _ in range(3):  # every call of the application meanwhile: one read, its error raised again
        with pytest.raises(ValueError, match="refuses"):
            cache.keys("db")
    assert reader.reads == ["db"]
    now[0] = RETRY_SCHEMA_S
    reader.refusing = False
    first = cache.keys("db")
    assert cache.keys("db") is first and reader.reads == ["db", "db"]


def test_a_schema_change_reads_again_at_once_even_after_a_failure():
    reader = _Reader()
    cache = SchemaCache(reader, clock=lambda: 0.0)
    with pytest.raises(ValueError):
        cache.keys("db")
    cache.forget("db")  # the application changed the schema: what failed before may not now
    reader.refusing = False
    cache.keys("db")
    assert reader.reads == ["db", "db"]
