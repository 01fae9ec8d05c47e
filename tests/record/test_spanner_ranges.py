"""The key ranges a Spanner read asks for: a query's WHERE, its literals encoded as their
columns' types (the reads through the emulator are in test_spanner_tap.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from keybench.design.byteorder import encode_value, prefix_successor
from keybench.record.spanner_keys import KeyColumnType, KeyLayout
from keybench.record.spanner_ranges import query_intervals
from keybench.record.spanner_sql import query_keys


def _intervals(where: str, *columns: tuple[str, str]):
    layout = KeyLayout("table", tuple(KeyColumnType(name, base_type, False) for name, base_type in columns))
    found = query_keys(f"SELECT * FROM T WHERE {where}", "googlesql")
    assert found is not None
    return query_intervals(layout, found.columns, {})


@pytest.mark.parametrize(("where", "column"), [
    ("Id > 5.5", ("Id", "INT64")),  # no INT64 is 5.5: the database compares as FLOAT64
    ("Id > 5 AND Id < 3", ("Id", "INT64")),  # a range that holds no key
    ("Id IN (NULL)", ("Id", "INT64")),
    ("Name = 5", ("Name", "STRING")),  # a number fixes no STRING key
])
def test_a_where_whose_key_range_its_literals_do_not_fix_is_not_placed(where, column):
    assert _intervals(where, column) is None


def test_literals_are_encoded_as_their_columns_type_and_null_matches_nothing():
    point = _intervals("X = 5", ("X", "FLOAT64"))
    assert point == [(encode_value(5.0), prefix_successor(encode_value(5.0)))]
    assert _intervals("Id IN (1, NULL)", ("Id", "INT64")) == [(encode_value(1), prefix_successor(encode_value(1)))]
    at = dt.datetime(2020, 1, 1, 8, tzinfo=dt.UTC)
    assert _intervals("Ts >= '2020-01-01 00:00:00-08:00'", ("Ts", "TIMESTAMP")) == [(encode_value(at), b"")]
    # a time without its zone is read in the database's default zone, America/Los_Angeles
    assert _intervals("Ts >= '2020-01-01 00:00:00'", ("Ts", "TIMESTAMP")) == [(encode_value(at), b"")]
