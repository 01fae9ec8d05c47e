"""gRPC calls read from the bytes of one HTTP/2 connection as they pass, without taking part in it.

The proxy relays a connection's bytes as they are and hands each chunk, in the order the
two sides sent them, to a `Connection`. It reassembles the HTTP/2 frames (RFC 9113), decodes
every header block in order (HPACK keeps a table per direction that each block changes), and
cuts each stream's DATA into gRPC's length-prefixed messages (gRPC over HTTP/2: one flag
byte, a 4-byte big-endian length, the message). Each call is shown to a tap as the proxy
always showed it: its method when its headers pass, each request and response message, and
how it ended (the grpc-status of its trailers; CANCELLED if it was reset, or if the
connection closed before it ended).

Nothing here answers either side: flow control, settings and pings are the two sides'
business, and the relay passes them on. Bytes that are not HTTP/2 raise `Undecodable`; the
proxy stops reading that connection and still relays it.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from keybench.record.headers import HeaderBlockError, HeaderDecoder

CLIENT_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, CONTINUATION = 0x0, 0x1, 0x3, 0x9
END_STREAM, END_HEADERS, PADDED, PRIORITY = 0x1, 0x4, 0x8, 0x20
_READ_FRAMES = frozenset((DATA, HEADERS, RST_STREAM, CONTINUATION))  # the rest (settings, pings, window
# updates, priority, goaway, push promises) says nothing of a call's messages or its end
FRAME_HEADER = struct.Struct(">BHBBI")  # RFC 9113 4.1: a 24-bit length, the type, the flags, the stream
MESSAGE_HEADER = struct.Struct(">BI")  # gRPC: the compressed flag and the message's length
STATUS = {code.value[0]: code for code in grpc.StatusCode}
_DECOMPRESS: dict[bytes, Callable[[bytes], bytes]] = {
    b"identity": lambda b: b, b"gzip": gzip.decompress, b"deflate": zlib.decompress}


class Undecodable(Exception):
    """The bytes are not HTTP/2 as RFC 9113 frames it."""


@dataclass
class _Call:
    """One stream: its tap, and the message bytes of each direction not yet cut."""

    watcher: Any  # a CallTap, or None: nothing watches this call, its messages are not cut
    pending: dict[bool, bytearray] = field(default_factory=lambda: {True: bytearray(), False: bytearray()})
    encoding: dict[bool, bytes] = field(default_factory=lambda: {True: b"identity", False: b"identity"})


class _Direction:
    """One direction of the connection: its unread bytes, its HPACK table, a header block
    still arriving in CONTINUATION frames."""

    def __init__(self, from_client: bool):
        self.from_client = from_client
        self.unread = bytearray()
        self.preface = len(CLIENT_PREFACE) if from_client else 0  # preface bytes still to skip
        self.hpack = HeaderDecoder()
        self.block: bytearray | None = None
        self.block_stream, self.block_ends_stream = 0, False


class Connection:
    """Reads one connection's calls out of its bytes, and shows each to `tap` (see proxy.Tap).
    `failed()` is called for each step of a tap that raised; the call goes on regardless."""

    def __init__(self, tap, failed: Callable[[], None]):
        self.tap, self.failed = tap, failed
        self.sides = {True: _Direction(True), False: _Direction(False)}
        self.calls: dict[int, _Call] = {}
        self.undecodable_messages = 0  # compressed with an encoding gRPC does not define

    def feed(self, from_client: bool, data: bytes) -> None:
        """The next bytes one side sent."""
        side = self.sides[from_client]
        if side.preface:
            expected = CLIENT_PREFACE[len(CLIENT_PREFACE) - side.preface:][:len(data)]
            if data[:len(expected)] != expected:
                raise Undecodable("no HTTP/2 client preface")
            side.preface -= len(expected)
            data = data[len(expected):]
        # A chunk usually holds whole frames: it is read as it came, and only a frame cut
        # off at its end waits, copied, for the next chunk.
        buffer = _joined(side.unread, data, FRAME_HEADER.size, _frame_size) if side.unread else data
        if buffer is None:
            return
        at, size = 0, len(buffer)
        while size - at >= FRAME_HEADER.size:
            high, low, kind, flags, stream = FRAME_HEADER.unpack_from(buffer, at)
            end = at + FRAME_HEADER.size + (high << 16 | low)
            if end > size:
                break
            if side.block is not None and kind != CONTINUATION:
                raise Undecodable("a header block broken off before its END_HEADERS")
            if kind in _READ_FRAMES:
                self._frame(side, kind, flags, stream & 0x7FFFFFFF,  # the reserved bit dropped
                            buffer[at + FRAME_HEADER.size:end])
            at = end
        side.unread = _rest(buffer, at)

    def take_undecodable(self) -> int:
        """Messages in an unknown compression since last asked."""
        count, self.undecodable_messages = self.undecodable_messages, 0
        return count

    def close(self) -> None:
        """The connection closed: a call still open ended without its trailers."""
        for stream in list(self.calls):
            self._end(stream, grpc.StatusCode.CANCELLED)

    # --- frames ----------------------------------------------------------------------------

    def _frame(self, side: _Direction, kind: int, flags: int, stream: int, payload: bytes) -> None:
        if kind == DATA:
            self._data(side.from_client, stream, _unpadded(payload, flags) if flags & PADDED else payload)
        elif kind == HEADERS:
            fragment = _unpadded(payload, flags)
            if flags & PRIORITY:
                fragment = fragment[5:]  # the stream dependency and weight
            side.block_stream, side.block_ends_stream = stream, bool(flags & END_STREAM)
            if flags & END_HEADERS:
                self._headers(side, fragment)
            else:
                side.block = bytearray(fragment)
        elif kind == CONTINUATION:
            if side.block is None or stream != side.block_stream:
                raise Undecodable("CONTINUATION without the HEADERS it continues")
            side.block += payload
            if flags & END_HEADERS:
                block, side.block = bytes(side.block), None
                self._headers(side, block)
        elif kind == RST_STREAM:
            self._end(stream, grpc.StatusCode.CANCELLED)

    def _headers(self, side: _Direction, block: bytes) -> None:
        stream, ends_stream = side.block_stream, side.block_ends_stream
        try:
            headers = dict(side.hpack.decode(block))  # every block, in order: the table depends on it
        except HeaderBlockError as exc:
            raise Undecodable(str(exc)) from None
        if side.from_client:
            if stream not in self.calls and b":path" in headers:
                method = headers[b":path"].decode("latin-1")
                self.calls[stream] = _Call(self._step(self.tap.call, method))
            call = self.calls.get(stream)
            if call is not None:
                call.encoding[True] = headers.get(b"grpc-encoding", b"identity")
            return
        call = self.calls.get(stream)
        if call is None:
            return
        if b"grpc-encoding" in headers:
            call.encoding[False] = headers[b"grpc-encoding"]
        if ends_stream:  # trailers, or a trailers-only answer
            status = headers.get(b"grpc-status")
            self._end(stream, STATUS.get(int(status), grpc.StatusCode.UNKNOWN) if status and status.isdigit()
                      else grpc.StatusCode.UNKNOWN)

    def _data(self, from_client: bool, stream: int, payload: bytes) -> None:
        call = self.calls.get(stream)
        if call is None or call.watcher is None:
            return
        pending = call.pending[from_client]
        buffer = _joined(pending, payload, MESSAGE_HEADER.size, _message_size) if pending else payload
        if buffer is None:
            return
        at, size = 0, len(buffer)
        while size - at >= MESSAGE_HEADER.size:
            compressed, length = MESSAGE_HEADER.unpack_from(buffer, at)
            end = at + MESSAGE_HEADER.size + length
            if end > size:
                break
            message: bytes | None = buffer[at + MESSAGE_HEADER.size:end]
            if compressed:
                message = self._decompressed(call.encoding[from_client], bytes(message or b""))
            if message is not None:
                self._step(call.watcher.request if from_client else call.watcher.response, message)
            at = end
        call.pending[from_client] = _rest(buffer, at)

    def _decompressed(self, encoding: bytes, message: bytes) -> bytes | None:
        try:
            return _DECOMPRESS[encoding](message)
        except (KeyError, OSError, zlib.error, EOFError):
            self.undecodable_messages += 1
            return None

    def _end(self, stream: int, code: grpc.StatusCode) -> None:
        call = self.calls.pop(stream, None)
        if call is not None and call.watcher is not None:
            self._step(call.watcher.end, code)

    def _step(self, step: Callable[..., Any], *args: Any) -> Any:
        """One step of a tap; a tap that raises is counted and the connection read on."""
        try:
            return step(*args)
        except Exception:
            self.failed()
            return None


def _joined(pending: bytearray, data: bytes, header_size: int, whole_size: Callable[[bytearray], int]) -> bytes | None:
    """The bytes still pending (a frame, or a message, cut off) with `data` after them, to cut
    into whole ones; None while the first is still incomplete: a large one is copied once, when whole."""
    pending += data
    if header_size <= len(pending) < whole_size(pending):
        return None
    return bytes(pending)


def _rest(buffer: bytes, at: int) -> bytearray:
    """What is left of `buffer` after the whole ones cut from it, to wait for the next bytes."""
    return bytearray(buffer[at:]) if at < len(buffer) else bytearray()


def _frame_size(buffer: bytearray) -> int:
    return FRAME_HEADER.size + (buffer[0] << 16 | buffer[1] << 8 | buffer[2])


def _message_size(buffer: bytearray) -> int:
    return MESSAGE_HEADER.size + MESSAGE_HEADER.unpack_from(buffer)[1]


def _unpadded(payload: bytes, flags: int) -> bytes:
    if not flags & PADDED:
        return payload
    if not payload or payload[0] >= len(payload):
        raise Undecodable("padding longer than its frame")
    return payload[1:len(payload) - payload[0]]
