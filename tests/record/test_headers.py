"""record.headers decodes what an HPACK encoder (the `hpack` package's, as a gRPC peer's) sends,
block after block against the same table, Huffman or not, across evictions and size updates;
a block it has seen gives the same fields only while the table is unchanged."""

from __future__ import annotations

import random

import pytest
from hpack import Decoder, Encoder, NeverIndexedHeaderTuple

from keybench.record.headers import HeaderBlockError, HeaderDecoder

REQUEST = [(":method", "POST"), (":scheme", "http"), (":path", "/google.bigtable.v2.Bigtable/MutateRow"),
           (":authority", "127.0.0.1:8086"), ("te", "trailers"), ("content-type", "application/grpc"),
           ("user-agent", "grpc-python/1.85.3 grpc-c/51.0.0 (linux; chttp2)"), ("grpc-timeout", "59999m"),
           ("x-goog-request-params", "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Ft")]


def _pairs(headers) -> list[tuple[bytes, bytes]]:
    return [(bytes(n), bytes(v)) for n, v in headers]


def test_blocks_of_a_grpc_like_call_sequence_decode_as_the_hpack_package_decodes_them():
    encoder, reference, decoder = Encoder(), Decoder(), HeaderDecoder()
    rng = random.Random(7)
    for call in range(300):
        headers = list(REQUEST)
        headers[7] = ("grpc-timeout", f"{rng.choice([59999, 59998, 30000, call])}m")
        if call % 5 == 0:
            headers.append((f"x-custom-{call % 40}", "v" * rng.randrange(0, 300)))  # evicts older entries
        if call % 7 == 0:
            headers.append(NeverIndexedHeaderTuple("authorization", f"Bearer {call}"))
        block = encoder.encode(headers, huffman=call % 3 != 0)
        assert decoder.decode(block) == _pairs(reference.decode(block, raw=True)), call
    assert decoder.entries == [(bytes(n), bytes(v)) for n, v in reference.header_table.dynamic_entries]


def test_a_table_size_update_evicts_as_the_peer_does():
    encoder, reference, decoder = Encoder(), Decoder(), HeaderDecoder()
    for size in (4096, 100, 0, 256, 4096):
        encoder.header_table_size = size  # the next block starts with the size update
        block = encoder.encode(REQUEST + [("x-big", "x" * 90)])
        assert decoder.decode(block) == _pairs(reference.decode(block, raw=True))
        assert decoder.max_size == size
        assert decoder.size == reference.header_table._current_size
        assert len(decoder.entries) == len(reference.header_table.dynamic_entries)


def test_an_entry_larger_than_the_table_empties_it():
    decoder = HeaderDecoder()
    decoder.decode(b"\x40\x01a\x01b")  # literal with indexing: a: b (34 bytes)
    assert decoder.entries == [(b"a", b"b")]
    decoder.max_size = 100
    decoder.decode(b"\x40\x01c\x7f\x2a" + b"x" * 169)  # 32 + 1 + 169 > 100
    assert decoder.entries == [] and decoder.size == 0


def test_a_repeated_block_is_decoded_again_once_the_table_has_changed():
    decoder = HeaderDecoder()
    decoder.decode(b"\x40\x01a\x01b")
    assert decoder.decode(b"\xbe") == [(b"a", b"b")]  # index 62: the newest entry
    decoder.decode(b"\x40\x01c\x01d")
    assert decoder.decode(b"\xbe") == [(b"c", b"d")]
    assert decoder.decode(b"\xbf") == [(b"a", b"b")]


def test_a_repeated_literal_that_the_table_keeps_is_added_again_each_time():
    decoder = HeaderDecoder()
    for count in (1, 2, 3):
        assert decoder.decode(b"\x40\x01a\x01b") == [(b"a", b"b")]
        assert len(decoder.entries) == count


@pytest.mark.parametrize("block, says", [
    (b"\xc0", "beyond the table"),  # index 64 of an empty dynamic table
    (b"\x80", "beyond the table"),  # index 0
    (b"\x40\x05ab", "runs past its block"),
    (b"\x40", "ends inside a field"),
    (b"\xff", "ends inside an integer"),
    (b"\xff" + b"\xff" * 9 + b"\x01", "longer than any"),
    (b"\x00\x81\xff\x81\xff", "does not decode"),  # Huffman: an EOS-length padding of ones
])
def test_a_block_that_is_not_hpack_is_refused_with_the_reason(block, says):
    with pytest.raises(HeaderBlockError, match=says):
        HeaderDecoder().decode(block)
