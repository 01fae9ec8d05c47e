"""A user's column types: key values converted in order, and a value of every writable type
for the NOT NULL columns a design says nothing about."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from keybench.design.byteorder import encode_value
from keybench.design.events import WriteEvent, timestamp
from keybench.design.keys import spanner_part
from keybench.design.typed import DAY_US, convert, fill, parse_type

EVENT = WriteEvent(entity=7, ts_us=1_700_000_000_123_456, write_id="w-0001-abcdef", seq=42)


@pytest.mark.parametrize("sql_type", ["STRING(25)", "STRING(MAX)", "BYTES(MAX)", "INT64", "TIMESTAMP", "DATE",
                                      "FLOAT64", "NUMERIC"])
def test_converted_sequences_and_times_keep_their_order(sql_type):
    """The database orders the converted values as the part orders its own: a sequential key
    stays sequential, whatever type the user's column is."""
    for values in ([1, 9, 10, 11, 100, 2**40], [timestamp(t) for t in (0, 5, DAY_US * 3, 1_700_000_000_000_000)]):
        encoded = [encode_value(convert(v, sql_type)) for v in values]
        assert encoded == sorted(encoded), (sql_type, values)
        if sql_type != "DATE":  # a DATE keeps one value per day
            assert len(set(encoded)) == len(encoded)


def test_a_string_column_s_length_is_respected():
    assert convert(12345, "STRING(4)") == "2345"
    assert len(convert("a-36-character-uuid-xxxxxxxxxxxxxxxx", "STRING(8)")) == 8
    assert len(convert(b"\x01" * 20, "BYTES(16)")) == 16
    assert len(fill(EVENT, "STRING(3)")) == 3


@pytest.mark.parametrize("sql_type, kind", [
    ("INT64", int), ("STRING(20)", str), ("BYTES(8)", bytes), ("BOOL", bool), ("FLOAT64", float),
    ("DATE", dt.date), ("TIMESTAMP", dt.datetime), ("NUMERIC", decimal.Decimal), ("JSON", dict),
    ("ARRAY<STRING(10)>", list), ("ARRAY<INT64>", list),
])
def test_a_not_null_column_of_every_writable_type_gets_a_value(sql_type, kind):
    value = fill(EVENT, sql_type)
    assert isinstance(value, kind), (sql_type, value)
    assert value not in (None, "", b"", [])


@pytest.mark.parametrize("sql_type", ["PROTO<a.b.C>", "STRUCT<a INT64>", "INTERVAL", "ARRAY<ARRAY<INT64>>",
                                      "TOKENLIST"])
def test_a_type_keybench_cannot_write_is_named(sql_type):
    with pytest.raises(ValueError, match="cannot generate values of type"):
        parse_type(sql_type)
    with pytest.raises(ValueError, match="cannot generate values of type"):
        spanner_part({"column": "C", "value": "fill", "type": sql_type})


def test_a_typed_time_part_in_a_date_column_keeps_a_day_per_value():
    part = spanner_part({"column": "Day", "value": "ts", "type": "DATE"})
    assert part.interval_us == DAY_US and part.sql_type == "DATE"
    assert part.compute(EVENT, None) == timestamp(EVENT.ts_us).date()
    untyped = spanner_part({"column": "Day", "value": "ts"})
    assert untyped.interval_us == 0 and untyped.compute(EVENT, None) == timestamp(EVENT.ts_us)
