"""Byte-matrix columns: every vectorised form gives the bytes its one-row-at-a-time reference
gives (Python's formatting, byteorder's encoders, events' Spanner timestamp text)."""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from keybench.design.byteorder import encode_bytes
from keybench.model.textcolumns import (
    Ragged,
    date_time_text,
    digits,
    distinct_inverse,
    escaped,
    first_bytes,
    fraction_text,
    from_bytes,
    hex_text,
    inverted,
    join,
    lookup,
    take,
    unpadded_digits,
    utc_offsets_us,
    zero_past,
    zone_text,
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



@pytest.mark.parametrize("distinct_lengths", [3, 40])  # by slices, or past 32 lengths by one mask
def test_zero_past_clears_each_rows_bytes_after_its_length(distinct_lengths):
    rng = np.random.default_rng(5)
    matrix = rng.integers(1, 256, size=(600, 48), dtype=np.uint8)  # no zero byte to begin with
    lengths = rng.choice(rng.permutation(60)[:distinct_lengths], 600)  # some past the width
    before = matrix.copy()
    zero_past(matrix, lengths)
    for row, length, was in zip(matrix, lengths.tolist(), before, strict=True):
        assert bytes(row) == bytes(was[:length]) + bytes(max(0, 48 - length))


def test_first_bytes_are_each_keys_leading_bytes():
    keys = np.array([b"abcdef", b"xy", b"\x00\x01\x02\x03\x04"], dtype="S6")
    assert [bytes(r) for r in first_bytes(keys, 4)] == [b"abcd", b"xy\x00\x00", b"\x00\x01\x02\x03"]


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


@pytest.mark.parametrize("width", [1, 3, 4, 5, 8, 16, 19])
def test_digits_are_each_number_zero_padded_to_the_width(width):
    rng = np.random.default_rng(width)
    top = min(10**width - 1, 2**63 - 1)  # 19 digits: every int64
    values = np.concatenate([[0, 1, top, top // 10_000 * 10_000], rng.integers(0, top, 500, endpoint=True)])
    assert _rows(digits(values, width), len(values)) == [f"{v:0{width}d}".encode() for v in values.tolist()]


def test_digits_and_hex_text_are_pythons_own_for_every_value_their_tables_hold():
    every_group = np.arange(10_000)
    assert _rows(digits(every_group, 4), 10_000) == [f"{v:04d}".encode() for v in range(10_000)]
    every_pair = np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2)
    for raw in (every_pair, every_pair[:, :1], np.random.default_rng(1).integers(0, 256, (500, 16), dtype=np.uint8)):
        text = hex_text(raw)
        assert [bytes(row) for row in text] == [bytes(row).hex().encode() for row in raw]


@pytest.mark.parametrize("values", [[1, 10**4], [5, -1]])
def test_digits_refuse_a_number_the_width_cannot_hold(values):
    assert digits(np.array(values, dtype=np.int64), 4) is None


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


def test_fraction_text_is_none_milliseconds_or_microseconds():
    micros = np.array([0, 1, 120_000, 123_000, 123_456, 999_999, 1000, 999_000])
    assert _rows(fraction_text(micros), len(micros)) == [
        b"", b".000001", b".120", b".123", b".123456", b".999999", b".001", b".999"]


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu",
                                  "Europe/London", "Africa/Monrovia"])  # whole hours, :30, :45, zero, a 1972 -0:44:30
def test_zone_text_is_each_offsets_hours_and_minutes(zone):
    ts = np.linspace(-1_000_000_000_000_000, 1_800_000_000_000_000, 5000, dtype=np.int64)  # 1938 to 2027
    offsets = utc_offsets_us(ts, ZoneInfo(zone))

    def one(offset: int) -> bytes:
        minutes = abs(offset) // 60_000_000
        return (("-" if offset < 0 else "+") + f"{minutes // 60:02d}" + (f":{minutes % 60:02d}" if minutes % 60 else "")
                ).encode()

    assert _rows(zone_text(offsets), len(ts)) == [one(int(o)) for o in offsets]
    assert len(set(offsets.tolist())) >= 2, "the times must span more than one offset"


@pytest.mark.parametrize("values", [
    [3, 1, 3, 7, 1, 0],  # small entities: one pass, no sort
    [5],
    [],
    [10**12, 4, 10**12],  # too sparse for a table of every value: np.unique itself
    [-2, 5, -2],
])
def test_distinct_inverse_is_numpys_unique_with_its_inverse(values):
    values = np.array(values, dtype=np.int64)
    distinct, where = distinct_inverse(values)
    expected, expected_where = np.unique(values, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert where.tolist() == expected_where.tolist()
    assert (distinct[where] == values).all()
