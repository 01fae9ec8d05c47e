"""record.wire reads gRPC calls out of HTTP/2 bytes however they are cut: frames split across
chunks, messages across frames, header blocks across CONTINUATION frames, padding, compression,
resets and connections that close mid-call."""

from __future__ import annotations

import gzip

import grpc
import pytest
from hpack import Encoder

from keybench.record.wire import CLIENT_PREFACE, Connection, Undecodable

DATA, HEADERS, RST_STREAM, SETTINGS, PING, CONTINUATION = 0x0, 0x1, 0x3, 0x4, 0x6, 0x9
END_STREAM, END_HEADERS, PADDED, PRIORITY = 0x1, 0x4, 0x8, 0x20
METHOD = "/google.bigtable.v2.Bigtable/MutateRow"


def frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def message(body: bytes, compressed: bool = False) -> bytes:
    return bytes([compressed]) + len(body).to_bytes(4, "big") + body


class Recording:
    """A tap that notes what it is shown, in order."""

    def __init__(self):
        self.events: list[tuple] = []

    def call(self, method):
        self.events.append(("call", method))
        return self

    def request(self, m):
        self.events.append(("request", m))

    def response(self, m):
        self.events.append(("response", m))

    def end(self, code):
        self.events.append(("end", code))


class Sides:
    """The two sides' HPACK encoders: each side's header blocks build on its earlier ones."""

    def __init__(self):
        self.client, self.server = Encoder(), Encoder()

    def request_headers(self, stream: int, path: str = METHOD, extra=(), flags: int = END_HEADERS) -> bytes:
        block = self.client.encode([(":method", "POST"), (":scheme", "http"), (":path", path),
                                    (":authority", "localhost"), ("content-type", "application/grpc"), *extra])
        return frame(HEADERS, flags, stream, block)

    def response_headers(self, stream: int, extra=()) -> bytes:
        return frame(HEADERS, END_HEADERS, stream, self.server.encode([(":status", "200"),
                                                                        ("content-type", "application/grpc"), *extra]))

    def trailers(self, stream: int, status: int = 0) -> bytes:
        return frame(HEADERS, END_HEADERS | END_STREAM, stream, self.server.encode([("grpc-status", str(status))]))


def unary(sides: Sides, stream: int, request: bytes, response: bytes) -> tuple[bytes, bytes]:
    """(what the client sends, what the server answers) for one unary call."""
    return (sides.request_headers(stream) + frame(DATA, END_STREAM, stream, message(request)),
            sides.response_headers(stream) + frame(DATA, 0, stream, message(response)) + sides.trailers(stream))


def feed_in_pieces(conn: Connection, from_client: bool, data: bytes, piece: int) -> None:
    for at in range(0, len(data), piece):
        conn.feed(from_client, data[at:at + piece])


@pytest.mark.parametrize("piece", [1, 7, 10_000])
def test_a_unary_call_is_read_however_its_bytes_are_cut(piece):
    tap, sides = Recording(), Sides()
    conn = Connection(tap, lambda: None)
    feed_in_pieces(conn, True, CLIENT_PREFACE + frame(SETTINGS, 0, 0, b""), piece)
    feed_in_pieces(conn, False, frame(SETTINGS, 0, 0, b"") + frame(PING, 0, 0, b"12345678"), piece)
    for stream in (1, 3):  # the second call's headers refer to the first's in the HPACK table
        sent, answered = unary(sides, stream, b"row-%d" % stream, b"ok")
        feed_in_pieces(conn, True, sent, piece)
        feed_in_pieces(conn, False, answered, piece)
    assert tap.events == [("call", METHOD), ("request", b"row-1"), ("response", b"ok"), ("end", grpc.StatusCode.OK),
                          ("call", METHOD), ("request", b"row-3"), ("response", b"ok"), ("end", grpc.StatusCode.OK)]
    assert not conn.calls


def test_messages_split_across_frames_two_in_one_frame_padding_priority_and_continuation():
    tap, sides = Recording(), Sides()
    conn = Connection(tap, lambda: None)
    conn.feed(True, CLIENT_PREFACE)
    headers = sides.request_headers(1)[9:]
    priority = b"\x00\x00\x00\x00\x10"  # the stream dependency and weight a PRIORITY flag adds
    conn.feed(True, frame(HEADERS, PADDED | PRIORITY, 1, bytes([3]) + priority + headers[:4] + b"\0\0\0")
              + frame(CONTINUATION, END_HEADERS, 1, headers[4:]))
    assert tap.events == [("call", METHOD)]
    first, second = message(b"a" * 40), message(b"b" * 3)
    conn.feed(True, frame(DATA, 0, 1, first[:10]))
    conn.feed(True, frame(DATA, PADDED, 1, bytes([2]) + first[10:] + second + b"\0\0"))
    conn.feed(False, sides.response_headers(1) + sides.trailers(1, status=5))
    assert tap.events[1:] == [("request", b"a" * 40), ("request", b"b" * 3), ("end", grpc.StatusCode.NOT_FOUND)]


def test_a_large_message_in_many_frames_fed_in_small_chunks_is_one_message():
    tap, sides = Recording(), Sides()
    conn = Connection(tap, lambda: None)
    body = bytes(range(256)) * 4096  # 1 MiB
    framed = message(body)
    frames = b"".join(frame(DATA, 0, 1, framed[at:at + 16_384]) for at in range(0, len(framed), 16_384))
    feed_in_pieces(conn, True, CLIENT_PREFACE + sides.request_headers(1) + frames + frame(DATA, END_STREAM, 1, b""),
                   4_000)
    assert tap.events == [("call", METHOD), ("request", body)]
    # A header block broken off by a frame the reader otherwise skips (a PING) is refused too.
    with pytest.raises(Undecodable):
        Connection(Recording(), lambda: None).feed(True, CLIENT_PREFACE + frame(HEADERS, 0, 1, b"")
                                                    + frame(PING, 0, 0, b"12345678"))


def test_a_gzip_message_is_decompressed_and_an_unknown_compression_is_counted_not_shown():
    tap, sides = Recording(), Sides()
    conn = Connection(tap, lambda: None)
    conn.feed(True, CLIENT_PREFACE + sides.request_headers(1, extra=[("grpc-encoding", "gzip")])
              + frame(DATA, END_STREAM, 1, message(gzip.compress(b"zipped"), compressed=True)))
    conn.feed(True, sides.request_headers(3, extra=[("grpc-encoding", "snappy")])
              + frame(DATA, END_STREAM, 3, message(b"??", compressed=True)))
    assert [e for e in tap.events if e[0] == "request"] == [("request", b"zipped")]
    assert conn.take_undecodable() == 1 and conn.take_undecodable() == 0


def test_a_reset_call_and_one_open_when_the_connection_closes_end_cancelled():
    tap, sides = Recording(), Sides()
    conn = Connection(tap, lambda: None)
    conn.feed(True, CLIENT_PREFACE + sides.request_headers(1) + sides.request_headers(3))
    conn.feed(True, frame(RST_STREAM, 0, 1, (8).to_bytes(4, "big")))
    assert tap.events[-1] == ("end", grpc.StatusCode.CANCELLED) and set(conn.calls) == {3}
    conn.close()
    assert tap.events.count(("end", grpc.StatusCode.CANCELLED)) == 2 and not conn.calls


def test_bytes_that_are_not_http2_are_refused_and_a_failing_tap_is_counted():
    with pytest.raises(Undecodable):
        Connection(Recording(), lambda: None).feed(True, b"GET / HTTP/1.1\r\n\r\n")
    failures = []

    class Failing(Recording):
        def request(self, m):
            raise RuntimeError("tap bug")

    tap, sides = Failing(), Sides()
    conn = Connection(tap, lambda: failures.append(1))
    sent, answered = unary(sides, 1, b"x", b"y")
    conn.feed(True, CLIENT_PREFACE + sent)
    conn.feed(False, answered)
    assert len(failures) == 1 and tap.events[-1] == ("end", grpc.StatusCode.OK)
