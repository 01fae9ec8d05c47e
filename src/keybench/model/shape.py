"""What a design's key says about its rows that a short key stream cannot show.

A modelled stream lasts seconds; a production table lasts years. Two facts of a Bigtable row
key decide what happens past the stream's end, and both are in the key itself:

- a time bucket closes its rows: `{device}#{interval:86400}` takes one device's writes for a
  day, then never again. The row's size at the bucket's end is its write rate times the
  bucket's length, to be held against the documented row size, however short the stream that
  showed the rate;
- a time part behind a few values (`{device_type}#{interval:3600}#{device}`) starts every
  bucket's writes at those few places, whatever the values behind it: one tablet each until
  the service splits it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from keybench.design.events import BUCKET, DERIVED, NUMBER, TIME


@dataclass(frozen=True)
class KeyShape:
    row_life_s: float | None = None  # the longest a row takes writes (its time bucket); None: the key sets no end
    bucket_prefixes: int | None = None  # values the key takes ahead of its first time part, when all are few
    bucket_prefix: str = ""  # those parts and the time part, as the verdict's reason names them
    payload_bytes: float = 0.0  # what one write adds to its row besides its key
    row_rate_per_s: float | None = None  # a row's writes per second as the user states it; None: as modelled


def key_shape(strategy, payload_bytes: float, device_rate: float | None = None) -> KeyShape:
    """The shape of a Bigtable strategy's row key; a Spanner row takes one insert, and no such shape.
    `device_rate`: one device's writes per second, as the user states it (a row takes one device's)."""
    if strategy.backend != "bigtable":
        return KeyShape()
    times = [p for p in strategy.parts if p.role == TIME]
    # A time part to the microsecond makes each write a row of its own: no bucket bounds a row then.
    life = min(p.interval_us for p in times) / 1e6 if times and all(p.interval_us for p in times) else None
    prefixes, prefix = None, ""
    # The first part whose values only grow (a time or an insert number): new keys start behind it.
    first_time = next((i for i, p in enumerate(strategy.parts) if p.role in (TIME, NUMBER)), 0)
    ahead = strategy.parts[:first_time]
    if ahead and all(p.role in (BUCKET, DERIVED) and p.buckets for p in ahead):
        prefixes = math.prod(len(p.buckets) for p in ahead)
        prefix = (strategy.separator or "#").join(p.buckets[0] if p.name == "label" else f"{{{p.name}}}"
                                                  for p in strategy.parts[:first_time + 1])
    return KeyShape(life, prefixes, prefix, payload_bytes, device_rate)


NO_SHAPE = KeyShape()


def size_text(size: float) -> str:
    """A row's size as a person reads it: 17.2 MB, 3.1 KB, 420 bytes."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit}"
    return f"{size:,.0f} bytes"  # a key that says nothing past the stream: a Spanner row, a stream from a file
