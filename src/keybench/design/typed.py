"""Spanner column values by the column's type, for a user's own table (`keybench check
--save-strategy`, `--load`): a key part's value in the type its column declares, and a value
for each NOT NULL column that is neither key nor bookkeeping, so that an insert is accepted.

A key part computes an int, a string, bytes or a timestamp whatever its column; a user's
column may be a STRING holding a sequence or an INT64 holding a time. The conversions keep
the order of the values (a zero-padded number, microseconds since the epoch), so the key
design the database sees is the one the part describes."""

from __future__ import annotations

import datetime as dt
import decimal
import re

from keybench.design.events import EPOCH, TIME, WriteEvent, ts_us_of

MAX_LENGTH = 2_621_440  # STRING(MAX) holds up to this many characters
NUMBER_DIGITS = 19  # an INT64's decimal digits: a zero-padded number sorts as the number
DAY_US = 86_400 * 1_000_000
SCALARS = ("INT64", "STRING", "BYTES", "BOOL", "FLOAT64", "FLOAT32", "DATE", "TIMESTAMP", "NUMERIC", "JSON")
_TYPE = re.compile(r"^\s*(ARRAY\s*<\s*(?P<element>.+?)\s*>|(?P<base>[A-Z0-9]+)\s*(\(\s*(?P<length>\d+|MAX)\s*\))?)\s*$",
                   re.IGNORECASE)


def parse_type(sql_type: str) -> tuple[str, int | None, str | None]:
    """(base, length, element): `STRING(20)` is ("STRING", 20, None), `ARRAY<INT64>` is
    ("ARRAY", None, "INT64"). A type keybench cannot write a value of raises ValueError."""
    found = _TYPE.match(str(sql_type))
    if found and found.group("element"):
        element = parse_type(found.group("element"))
        if element[0] == "ARRAY":
            raise ValueError(f"cannot generate values of type {sql_type}: an array of arrays")
        return "ARRAY", None, found.group("element").upper()
    base = found.group("base").upper() if found else ""
    if base not in SCALARS:
        raise ValueError(f"cannot generate values of type {sql_type}; keybench writes {', '.join(SCALARS)} and "
                         "ARRAY of them")
    assert found is not None  # a base of SCALARS came from the match
    length = found.group("length")
    return base, None if length is None or length.upper() == "MAX" else int(length), None


def _text(value, length: int | None) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):  # sign first, then the zero-padded magnitude: order kept for one sign
        text = ("-" if value < 0 else "") + f"{abs(value):0{NUMBER_DIGITS}d}"
    elif isinstance(value, dt.datetime):
        text = value.strftime("%Y%m%d%H%M%S%f")  # 20 digits, as Bigtable's date_ts: a short column keeps the date
    elif isinstance(value, bytes):
        text = value.hex()
    else:
        text = str(value)
    return text if length is None else text[-length:] if isinstance(value, int) else text[:length]


def _micros(value) -> int:
    if isinstance(value, dt.datetime):
        return ts_us_of(value)
    if isinstance(value, str | bytes):
        return int.from_bytes((value.encode() if isinstance(value, str) else value)[:7], "big")
    return int(value)


def convert(value, sql_type: str):
    """A key part's value as a value of the column's type; None stays NULL."""
    if value is None:
        return None
    base, length, _ = parse_type(sql_type)
    if base == "STRING":
        return _text(value, length)
    if base == "BYTES":
        raw = value if isinstance(value, bytes) else (
            (value & (2**64 - 1)).to_bytes(8, "big") if isinstance(value, int) and not isinstance(value, bool)
            else _text(value, None).encode())
        return raw if length is None else raw[:length]
    if base == "INT64":
        return int(value) if isinstance(value, bool | int) else _micros(value)
    if base == "TIMESTAMP":
        return value if isinstance(value, dt.datetime) else EPOCH + dt.timedelta(microseconds=_micros(value) % 2**52)
    if base == "DATE":
        return (value if isinstance(value,
                                    dt.datetime) else EPOCH + dt.timedelta(days=_micros(value) % 2_900_000)).date()
    if base in ("FLOAT64", "FLOAT32"):
        return float(_micros(value))
    if base == "NUMERIC":
        return decimal.Decimal(_micros(value))
    if base == "BOOL":
        return bool(_micros(value) % 2)
    raise ValueError(f"a {sql_type} column cannot be in a key")


def interval_of(sql_type: str, role: str) -> int:
    """A time part stored in a DATE keeps one value per day: the writes of a day share it."""
    return DAY_US if role == TIME and parse_type(sql_type)[0] == "DATE" else 0


def fill(event: WriteEvent, sql_type: str):
    """A value of the type for a NOT NULL column the design says nothing about: the write's
    insert number or time, so that every row's value is its own."""
    base, length, element = parse_type(sql_type)
    if base == "ARRAY":
        assert element is not None  # parse_type gives an ARRAY its element
        return [fill(event, element)]
    if base == "JSON":  # the backend sends a dict as the client's JSON value
        return {"seq": event.seq, "write_id": event.write_id}
    if base == "STRING":
        return _text(event.write_id or str(event.seq), length)
    if base in ("DATE", "TIMESTAMP"):
        return convert(EPOCH + dt.timedelta(microseconds=event.ts_us), sql_type)
    return convert(event.seq, sql_type)
