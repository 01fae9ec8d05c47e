"""Byte-matrix columns: every vectorised form gives the bytes its one-row-at-a-time reference
gives (Python's formatting, byteorder's encoders, events' Spanner timestamp text)."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from keybench.design.byteorder import encode_bytes
from keybench.design.events import spanner_timestamp_text as one_text
from keybench.model.keycolumns import spanner_timestamp_text
from keybench.model.textcolumns import (
    Ragged,
    date_time_text,
    escaped,
    from_bytes,
    inverted,
    join,
    lookup,
    take,
    unpadded_digits,
    utc_offsets_us,
)

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _rows(column, rows: int) -> list[bytes]:
    matrix = column.matrix if isinstance(column, Ragged) else column
    widths = column.widths if isinstance(column, Ragged) else [matrix.shape[1]] * rows
    return [bytes(matrix[i, :w]) for i, w in enumerate(widths)]


def _joined(keys, lengths) -> list[bytes]:
    return [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)]


def _random_pieces(rng: random.Random, rows: int, widths: tuple[int, ...]) -> list[bytes]:
    return [bytes(rng.choice((0, 1, 97, 255)) for _ in range(rng.choice(widths))) for _ in range(rows)]


@pytest.mark.parametrize("many_offsets", [False, True])
def test_joined_columns_are_each_rows_pieces_one_after_another(many_offsets):
    rng = random.Random(7)
    rows = 400
    widths = tuple(range(0, 60)) if many_offsets else (0, 3, 5)  # past 32 distinct offsets: the scatter path
    pieces = [_random_pieces(rng, rows, widths), [b"#"] * rows, _random_pieces(rng, rows, (4,)),
              _random_pieces(rng, rows, widths), _random_pieces(rng, rows, (2, 9))]
    columns = [from_bytes(p) for p in pieces]
    assert any(isinstance(c, Ragged) for c in columns) and any(isinstance(c, np.ndarray) for c in columns)
    assert _joined(*join(columns, rows)) == [b"".join(row) for row in zip(*pieces, strict=True)]


def test_a_key_ending_in_zero_bytes_keeps_them_in_its_length_and_pads_with_zeros():
    keys, lengths = join([from_bytes([b"ab\x00\x00", b"a"]), from_bytes([b"", b"\x00"])], 2)
    assert list(lengths) == [4, 2]
    assert keys.dtype.itemsize == 4 and bytes(keys.view(np.uint8)[4:]) == b"a\x00\x00\x00"


def test_take_lookup_and_inversion_keep_each_rows_bytes():
    column = lookup([b"com.example", b"org.a", b""], np.array([1, 0, 2, 1]))
    assert _rows(column, 4) == [b"org.a", b"com.example", b"", b"org.a"]
    assert _rows(take(column, np.array([True, False, False, True])), 2) == [b"org.a", b"org.a"]
    assert _rows(inverted(column), 4)[0] == bytes(255 - b for b in b"org.a")


def test_escaped_bytes_are_byteorders_encoding():
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 4, size=(2000, 16), dtype=np.uint8)  # many zeros, runs of them too
    raw[0] = 0
    raw[1] = 5  # a row without a zero
    assert _rows(escaped(raw), len(raw)) == [encode_bytes(bytes(r)) for r in raw]
    no_zero = escaped(np.full((3, 4), 9, dtype=np.uint8))
    assert isinstance(no_zero, np.ndarray) and _rows(no_zero, 3) == [encode_bytes(b"\x09" * 4)] * 3


def test_unpadded_digits_are_str_of_each_number():
    values = np.array([0, 7, 10, 99, 100, 12345, 10**18, 2**62], dtype=np.int64)
    assert _rows(unpadded_digits(values), len(values)) == [str(v).encode() for v in values]


@pytest.mark.parametrize("fields", ["YmdHMSf", "Y-m-d H:M:S", "YmdHMS", "Y-m-d H:M:S.f"])
def test_date_time_text_is_strftime(fields):
    rng = np.random.default_rng(5)
    ts = np.concatenate([rng.integers(-2 * 10**15, 4 * 10**15, 3000), [0, -1, 951_782_400_000_000]])  # 2000-02-29
    form = "".join(f"%{c}" if c.isalpha() else c for c in fields)
    expected = [(EPOCH + dt.timedelta(microseconds=int(t))).strftime(form).encode() for t in ts]
    assert _rows(date_time_text(ts, fields), len(ts)) == expected
    # many times over a few days (a run's): each day's date is worked out once, the same
    few_days = 951_696_000_000_000 + np.sort(rng.integers(0, 3 * 86_400_000_000, 3000))  # 2000-02-28 to 03-01
    expected = [(EPOCH + dt.timedelta(microseconds=int(t))).strftime(form).encode() for t in few_days]
    assert _rows(date_time_text(few_days, fields), len(few_days)) == expected
    # many times a second (a simulation's): each second's text is worked out once, across a
    # day's, a month's and a year's end
    for second in (951_782_399, 954_547_199, 978_307_199):
        many = second * 1_000_000 - 200_000_000 + np.sort(rng.integers(0, 400_000_000, 3000))
        expected = [(EPOCH + dt.timedelta(microseconds=int(t))).strftime(form).encode() for t in many]
        assert _rows(date_time_text(many, fields), len(many)) == expected


def test_utc_offsets_follow_the_zone_across_its_changes():
    zone = ZoneInfo("America/Los_Angeles")
    # a day around each 2026 change of US Pacific time, a microsecond apart at the edges
    changes = [dt.datetime(2026, 3, 8, 10, tzinfo=dt.UTC), dt.datetime(2026, 11, 1, 9, tzinfo=dt.UTC)]
    ts = np.concatenate([np.arange(-86_400, 86_400, 997) * 1_000_000 + int((c - EPOCH) / dt.timedelta(microseconds=1))
                         for c in changes] + [np.array([int((c - EPOCH) / dt.timedelta(microseconds=1)) + d
                                                        for c in changes for d in (-1, 0, 1)])])
    expected = [(EPOCH + dt.timedelta(microseconds=int(t))).astimezone(zone).utcoffset() // dt.timedelta(microseconds=1)
                for t in ts]
    assert utc_offsets_us(ts, zone).tolist() == expected
    assert len(set(expected)) == 2, "the times must span a change, or the test proves nothing"


def test_spanner_timestamp_text_of_many_times_is_cast_as_string():
    rng = np.random.default_rng(11)
    base = 1_790_000_000_000_000
    ts = np.concatenate([base + rng.integers(0, 400 * 86_400_000_000, 3000),  # both offsets, µs fractions
                         base + rng.integers(0, 10**6, 500) * 1000,  # whole milliseconds
                         base + rng.integers(0, 10**6, 500) * 1_000_000])  # whole seconds
    keys, lengths = join(spanner_timestamp_text(ts), len(ts))
    assert [k.decode() for k in _joined(keys, lengths)] == [one_text(int(t)) for t in ts]
    assert len(set(lengths.tolist())) == 3  # no fraction, milliseconds, microseconds
