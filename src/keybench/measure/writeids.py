"""A set of WriteIds that costs about a bit per id, for the write ledger.

keybench's own WriteIds are `<prefix>-<n>`, n counting up from 1 for each prefix: a user's
writes (`UserWorkload.next_write_id`), a preload's rows. Each prefix then keeps a bitmap
indexed by n, so a stage of millions of writes holds its ledger in a few hundred kilobytes;
as Python strings in a set the same ledger took about 110 bytes an id. An id of any other
form, or whose number lies far beyond its prefix's bitmap, is kept as it is.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator

SPARSE_BITS = 1 << 16  # a number may extend its prefix's bitmap by this many bits, or double it, at most


class WriteIdSet:
    __slots__ = ("_bits", "_other", "_count")

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._bits: dict[str, bytearray] = {}
        self._other: set[str] = set()
        self._count = 0
        self.update(ids)

    def _place(self, write_id: str, grow: bool) -> tuple[bytearray, int, int] | None:
        """(the prefix's bitmap, byte, mask) of an id of the form `<prefix>-<n>`; None for
        another id, or when `grow` is False and the bitmap does not reach n."""
        prefix, _, number = write_id.rpartition("-")
        if (not prefix or not number.isascii() or not number.isdigit() or (number[0] == "0" and number != "0")
                or len(number) > 12):
            return None
        n = int(number)
        bits = self._bits.get(prefix)
        size = 0 if bits is None else len(bits)
        if n >> 3 >= size:
            if not grow or n >= max(SPARSE_BITS, 2 * 8 * size):
                return None
            if bits is None:
                bits = self._bits[prefix] = bytearray()
            bits.extend(bytes(max((n >> 3) + 1, 2 * size) - size))
        assert bits is not None  # found or made above
        return bits, n >> 3, 1 << (n & 7)

    def add(self, write_id: str) -> None:
        if write_id in self._other:
            return
        place = self._place(write_id, grow=True)
        if place is None:
            self._other.add(write_id)
            self._count += 1
            return
        bits, byte, mask = place
        if not bits[byte] & mask:
            bits[byte] |= mask
            self._count += 1

    def discard(self, write_id: str) -> None:
        place = self._place(write_id, grow=False)
        if place is not None and place[0][place[1]] & place[2]:
            place[0][place[1]] &= ~place[2] & 0xFF
            self._count -= 1
        elif write_id in self._other:
            self._other.discard(write_id)
            self._count -= 1

    def update(self, ids: Iterable[str] | WriteIdSet) -> None:
        if isinstance(ids, WriteIdSet):  # bitmaps are joined whole, not an id at a time
            for prefix, bits in ids._bits.items():
                mine = self._bits.get(prefix, bytearray())
                joined = int.from_bytes(mine, "little") | int.from_bytes(bits, "little")
                self._bits[prefix] = bytearray(joined.to_bytes(max(len(mine), len(bits)), "little"))
            # an id this set kept as it was, beyond its bitmap then, may be in the joined bitmap now
            self._other = {w for w in self._other if not self._holds_bit(w)}
            self._count = sum(_ones(bits) for bits in self._bits.values()) + len(self._other)
            ids = ids._other
        for write_id in ids:
            self.add(write_id)

    def to_plain(self) -> dict:
        """The set in plain types, for a worker's report: each prefix's bitmap in base64."""
        return {"bits": {prefix: base64.b64encode(bytes(bits)).decode() for prefix, bits in self._bits.items()},
                "other": sorted(self._other)}

    @classmethod
    def from_plain(cls, plain: dict) -> WriteIdSet:
        made = cls()
        made._bits = {prefix: bytearray(base64.b64decode(bits)) for prefix, bits in plain["bits"].items()}
        made._other = set(plain["other"])
        made._count = sum(_ones(bits) for bits in made._bits.values()) + len(made._other)
        return made

    def _holds_bit(self, write_id: str) -> bool:
        place = self._place(write_id, grow=False)
        return place is not None and bool(place[0][place[1]] & place[2])

    def __contains__(self, write_id: object) -> bool:
        if not isinstance(write_id, str):
            return False
        return self._holds_bit(write_id) or write_id in self._other

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        for prefix, bits in self._bits.items():
            for byte, value in enumerate(bits):
                if value:
                    for bit in range(8):
                        if value >> bit & 1:
                            yield f"{prefix}-{byte * 8 + bit}"
        yield from self._other

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WriteIdSet | set | frozenset):
            return len(self) == len(other) and all(w in self for w in other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a set

    def __repr__(self) -> str:
        return f"WriteIdSet({len(self)} ids)"


def _ones(bits: bytearray) -> int:
    return int.from_bytes(bits, "little").bit_count()

