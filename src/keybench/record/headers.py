"""HPACK header blocks (RFC 7541) decoded as a bystander reads them, at little cost per call.

A gRPC client sends nearly the same header block on every call, and HPACK makes the repeats
short: indexes into a table that both sides keep and each block may change. The `hpack`
package decodes every block field by field, its Huffman strings bit by bit, and logs as it
goes; that was half of what the recording proxy spent on a one-row write. This decoder keeps
the same table, decodes each distinct Huffman string once, and gives a block it has already
decoded against the same table for a dictionary lookup.
"""

from __future__ import annotations

from hpack.exceptions import HPACKDecodingError
from hpack.huffman_table import decode_huffman
from hpack.table import HeaderTable

STATIC = HeaderTable.STATIC_TABLE  # RFC 7541 appendix A: indexes 1 to 61
STATIC_SIZE = len(STATIC)
ENTRY_OVERHEAD = 32  # RFC 7541 4.1: an entry's size is its name and value lengths plus 32
DEFAULT_TABLE_SIZE = 4096  # RFC 9113 SETTINGS_HEADER_TABLE_SIZE's initial value
MEMO_LIMIT = 1024  # remembered blocks, and remembered strings, per direction before the memo starts again
MAX_INTEGER_BYTES = 8  # continuation bytes of an integer: more than any length or index a peer can mean


class HeaderBlockError(Exception):
    """A header block that is not HPACK, or refers to an entry the table does not hold."""


class HeaderDecoder:
    """One direction's decoding context: decode() every header block of that direction, in order."""

    def __init__(self) -> None:
        self.entries: list[tuple[bytes, bytes]] = []  # the dynamic table, newest first
        self.size = 0
        self.max_size = DEFAULT_TABLE_SIZE  # the sides agree it in SETTINGS; a bystander takes what they chose
        self.version = 0  # counts the table's changes
        self._blocks: dict[bytes, list[tuple[bytes, bytes]]] = {}  # blocks decoded against the table as it is
        self._strings: dict[bytes, bytes] = {}  # Huffman-coded string: its text

    def decode(self, block: bytes) -> list[tuple[bytes, bytes]]:
        """The block's header fields, (name, value) in the order sent; the table changed as the block says."""
        known = self._blocks.get(block)
        if known is not None:
            return known
        version = self.version
        headers = self._decode(block)
        if self.version == version:
            # The block left the table as it found it: the same bytes decode to the same fields until it changes.
            if len(self._blocks) >= MEMO_LIMIT:
                self._blocks.clear()
            self._blocks[block] = headers
        return headers

    def _decode(self, block: bytes) -> list[tuple[bytes, bytes]]:
        headers: list[tuple[bytes, bytes]] = []
        at, end = 0, len(block)
        while at < end:
            first = block[at]
            if first & 0x80:  # an indexed field
                index = first & 0x7F
                if index < 0x7F:  # the index fits its first byte, as nearly every one does
                    at += 1
                else:
                    index, at = _integer(block, at, 7)
                headers.append(STATIC[index - 1] if 0 < index <= STATIC_SIZE else self._entry(index))
            elif first & 0x40:  # a literal the table keeps
                name, value, at = self._literal(block, at, 6)
                headers.append((name, value))
                self._add(name, value)
            elif first & 0x20:  # a table size update
                size, at = _integer(block, at, 5)
                self.max_size = size
                self._evict()
            else:  # a literal without indexing, or never indexed
                name, value, at = self._literal(block, at, 4)
                headers.append((name, value))
        return headers

    def _entry(self, index: int) -> tuple[bytes, bytes]:
        if 0 < index <= STATIC_SIZE:
            return STATIC[index - 1]
        dynamic = index - STATIC_SIZE - 1
        if index == 0 or dynamic >= len(self.entries):
            raise HeaderBlockError(f"header index {index} beyond the table")
        return self.entries[dynamic]

    def _literal(self, block: bytes, at: int, prefix_bits: int) -> tuple[bytes, bytes, int]:
        index, at = _integer(block, at, prefix_bits)
        if index:
            name = self._entry(index)[0]
        else:
            name, at = self._string(block, at)
        value, at = self._string(block, at)
        return name, value, at

    def _string(self, block: bytes, at: int) -> tuple[bytes, int]:
        if at >= len(block):
            raise HeaderBlockError("a header block ends inside a field")
        huffman = block[at] & 0x80
        length = block[at] & 0x7F
        if length < 0x7F:
            at += 1
        else:
            length, at = _integer(block, at, 7)
        end = at + length
        if end > len(block):
            raise HeaderBlockError("a header string runs past its block")
        raw = bytes(block[at:end])
        if not huffman:
            return raw, end
        text = self._strings.get(raw)
        if text is None:
            try:
                text = decode_huffman(raw)
            except HPACKDecodingError as exc:
                raise HeaderBlockError(f"a Huffman string that does not decode: {exc}") from None
            if len(self._strings) >= MEMO_LIMIT:
                self._strings.clear()
            self._strings[raw] = text
        return text, end

    def _add(self, name: bytes, value: bytes) -> None:
        self.entries.insert(0, (name, value))
        self.size += len(name) + len(value) + ENTRY_OVERHEAD
        self._evict()

    def _evict(self) -> None:
        """The table changed: the oldest entries dropped until it fits its size (an entry larger
        than the whole table empties it: RFC 7541 4.4), and the blocks decoded against it forgotten."""
        while self.size > self.max_size and self.entries:
            name, value = self.entries.pop()
            self.size -= len(name) + len(value) + ENTRY_OVERHEAD
        self.version += 1
        self._blocks.clear()


def _integer(block: bytes, at: int, prefix_bits: int) -> tuple[int, int]:
    """RFC 7541 5.1: an integer in the low `prefix_bits` of block[at], continued in the bytes after."""
    mask = (1 << prefix_bits) - 1
    value = block[at] & mask
    at += 1
    if value < mask:
        return value, at
    for shift in range(0, 7 * MAX_INTEGER_BYTES, 7):
        if at >= len(block):
            raise HeaderBlockError("a header block ends inside an integer")
        byte = block[at]
        at += 1
        value += (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
    raise HeaderBlockError("an integer longer than any a header block holds")
