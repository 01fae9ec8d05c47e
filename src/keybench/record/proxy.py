"""A proxy in front of an emulator: every connection relayed byte for byte, each call shown to a tap.

The proxy is a TCP relay. Each connection an application opens gets one to the emulator, and
what either side sends is passed on as it arrives, untouched: the HTTP/2 frames, the gRPC
messages, metadata, deadlines, status, pings and flow control are the two sides' own. So any
method of any service goes through (a newer API's as well), and the application behaves as it
does without the proxy, at the cost of one extra hop.

Each chunk is read (record.wire) just after it is passed on, by the pump that relayed it: the
tap sees a call's method, its request and response messages and how it ended, and reads a
request while the database serves it, an answer while the application takes it in. Reading
before passing on put the tap's work in every call's path (benchmarks/record_overhead.py
measures what is left of it). A connection's chunks are read one at a time, in the order the
pumps took them (each is taken before it is sent, so a request before any answer to it), by
whichever pump is free. One wait keeps the tap's view of the database true: an answer is
passed on only once every chunk before it is read, so the tap has read a call's request, and
looked up what it needs for it (the Spanner tap: the database's keys), before the
application sees the call answered and can, say, drop the table it wrote. A request is read
while the database serves it, so an answer seldom waits. A tap that needs nothing as of a
request (Tap.request_before_answer False: the Bigtable tap) has its requests read by the
pump that relays the emulator's bytes, once it has passed the next of them on (the call's
answer; on a new connection, the emulator's settings): a fast emulator answers before a
request is read, and the reading, holding the interpreter's lock, held the answer back.
Otherwise a pump waits for the other's reading only when its connection's unread bytes pass
BACKLOG_BYTES. So a write is recorded a moment after the application sees it acknowledged,
and whoever looks at the recording calls `settle()` first (the Recorder does, for those
registered with it): it returns once every chunk relayed until then is read.
A tap that raises is counted, never passed to the application, and so are connections whose
bytes are not HTTP/2; they are still relayed.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from typing import Protocol

import grpc

from keybench.record.wire import Connection

CHUNK_BYTES = 256 * 1024  # read from a socket at a time
CONNECT_S = 10.0  # to reach the emulator for a new connection
ACCEPT_POLL_S = 0.25  # how soon the listener notices close()
BACKLOG_BYTES = 64 * 1024 * 1024  # of a connection, relayed and unread: past it, a pump waits to read
LAZY_BYTES = 1024 * 1024  # of requests a tap reads after their answers, relayed and unread: past it, read now


class CallTap(Protocol):
    def request(self, message: bytes) -> None: ...

    def response(self, message: bytes) -> None: ...

    def end(self, code: grpc.StatusCode) -> None: ...


class Tap(Protocol):
    # True: a call's request is read before its answer is passed on, for a tap that looks
    # something up as of the request (the Spanner tap: the database's keys). False: a request
    # is read just after its answer is passed on, in the application's time between calls
    # rather than the database's (shorter than the reading, for a fast emulator). A tap
    # without it is read as True.
    request_before_answer: bool

    def call(self, method: str) -> CallTap | None:
        """What watches one call of `method` ("/package.Service/Method"); None: nothing does."""


class _Relayed:
    """One application connection and its connection to the emulator, and the chunks either
    side sent that are relayed and not yet read, in the order the pumps took them."""

    def __init__(self, client: socket.socket, upstream: socket.socket, wire: Connection | None):
        self.client, self.upstream, self.wire = client, upstream, wire
        self.pumps_left = 2
        self.lock = threading.Lock()
        self.unread: deque[tuple[bool | None, bytes]] = deque()  # (from_client, chunk); None: closed
        self.unread_bytes = 0
        self.reading = threading.Lock()  # held by the pump reading the chunks
        self.taken = self.read = 0  # chunks handed over, chunks read

    def cut(self) -> None:
        """Both sockets shut: the pumps of this connection stop."""
        for s in (self.client, self.upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ForwardingProxy:
    """Listens on `host` and a free port (or `port`); relays every connection to `upstream`
    (HOST:PORT, plaintext, as the emulators speak) and shows each call to `tap`."""

    def __init__(self, upstream: str, tap: Tap | None = None, host: str = "127.0.0.1", port: int = 0):
        self.upstream, self.tap = upstream, tap
        self._requests_first = getattr(tap, "request_before_answer", True)  # no tap: True
        self._tap_errors = 0
        self._undecodable = 0
        self._counts = threading.Lock()
        self._relayed: set[_Relayed] = set()
        self._relayed_changed = threading.Condition()
        self._settling = 0  # callers of settle() waiting
        self._closing = threading.Event()
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        try:
            self._listener = socket.create_server((host.strip("[]"), port), family=family, backlog=128)
        except OSError as exc:
            raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self._listener.settimeout(ACCEPT_POLL_S)
        self.address = f"{_bracketed(host)}:{self._listener.getsockname()[1]}"
        up_host, _, up_port = upstream.rpartition(":")
        self._upstream = (up_host.strip("[]"), int(up_port))
        self._acceptor = threading.Thread(target=self._accept, name="kb-proxy-accept", daemon=True)
        self._acceptor.start()

    @property
    def tap_errors(self) -> int:
        """Steps of the tap that raised: their calls went through unrecorded."""
        self.settle()
        return self._tap_errors

    @property
    def undecodable(self) -> int:
        """Connections whose bytes are not HTTP/2, and messages of an unknown compression."""
        self.settle()
        return self._undecodable

    # --- the relay -------------------------------------------------------------------------

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._closing.is_set():
                    return
                time.sleep(ACCEPT_POLL_S)  # out of descriptors, say: the next connection may fit
                continue
            threading.Thread(target=self._open, args=(client,), name="kb-proxy-conn", daemon=True).start()

    def _open(self, client: socket.socket) -> None:
        """The application's new connection, relayed until either side closes it."""
        client.settimeout(None)
        try:
            upstream = socket.create_connection(self._upstream, timeout=CONNECT_S)
        except OSError:
            client.close()  # the application sees the emulator unreachable, as it would directly
            return
        upstream.settimeout(None)
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        relayed = _Relayed(client, upstream, Connection(self.tap, self._tap_failed) if self.tap is not None else None)
        with self._relayed_changed:
            if self._closing.is_set():
                client.close()
                upstream.close()
                return
            self._relayed.add(relayed)
        threading.Thread(target=self._pump, args=(relayed, upstream, client, False), name="kb-proxy-down",
                         daemon=True).start()
        self._pump(relayed, client, upstream, True)

    def _pump(self, relayed: _Relayed, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = source.recv(CHUNK_BYTES)
                if not data:
                    break
                if self.tap is None:
                    sink.sendall(data)
                    continue
                position = self._take(relayed, from_client, data)  # before it is sent, so before any answer to it
                if from_client:
                    sink.sendall(data)
                    if self._requests_first or relayed.unread_bytes > LAZY_BYTES:
                        self._read_taken(relayed)
                elif not self._requests_first or relayed.read >= position - 1:
                    sink.sendall(data)
                    self._read_taken(relayed)
                else:  # an answer whose request is not read yet: read first (see the module's docstring)
                    self._read_taken(relayed, wait=True)
                    sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)  # a side that finished sending: so does its stand-in
        except OSError:
            relayed.cut()  # one side failed: the other pump must not wait on it
        with relayed.lock:
            relayed.pumps_left -= 1
            last = relayed.pumps_left == 0
        if last:
            relayed.client.close()
            relayed.upstream.close()
            if self.tap is not None:
                self._take(relayed, None, b"")  # its calls still open end
                self._read_taken(relayed, wait=True)
            with self._relayed_changed:
                self._relayed.discard(relayed)
                self._relayed_changed.notify_all()

    # --- reading the calls -----------------------------------------------------------------

    def _take(self, relayed: _Relayed, from_client: bool | None, data: bytes) -> int:
        """Hands a chunk over to be read; returns its place in the connection's chunks (from 1)."""
        with relayed.lock:
            relayed.unread.append((from_client, data))
            relayed.unread_bytes += len(data)
            relayed.taken += 1
            return relayed.taken

    def _read_taken(self, relayed: _Relayed, wait: bool = False) -> None:
        """The connection's chunks read, in the order taken, by this pump unless the other one
        is reading them (it reads this one too). A pump waits for the other only when its
        connection's backlog is past BACKLOG_BYTES, or (`wait`) when the connection closed."""
        while relayed.unread:
            if not relayed.reading.acquire(blocking=wait or relayed.unread_bytes > BACKLOG_BYTES):
                return  # the other pump reads: it looks again for chunks taken before it let go
            try:
                while relayed.unread:
                    from_client, data = relayed.unread.popleft()
                    self._read(relayed, from_client, data)
                    with relayed.lock:
                        relayed.unread_bytes -= len(data)
                        relayed.read += 1
            finally:
                relayed.reading.release()
            if self._settling:
                with self._relayed_changed:
                    self._relayed_changed.notify_all()

    def _read(self, relayed: _Relayed, from_client: bool | None, data: bytes) -> None:
        """The next chunk one side sent (None: the connection closed), shown to the tap."""
        wire = relayed.wire
        if wire is None:
            return
        try:
            if from_client is None:
                wire.close()
            else:
                wire.feed(from_client, data)
        except Exception:
            relayed.wire = None  # not HTTP/2, or broken: relayed on, no longer read
            self._unread()
            if from_client is not None:
                try:
                    wire.close()  # its calls still open end now: no trailers will be read for them
                except Exception:
                    self._tap_failed()
        unknown = wire.take_undecodable()
        if unknown:
            self._unread(unknown)

    def _tap_failed(self) -> None:
        with self._counts:
            self._tap_errors += 1

    def _unread(self, count: int = 1) -> None:
        with self._counts:
            self._undecodable += count

    def settle(self) -> None:
        """Returns once every chunk relayed until now has been read: whatever the application
        saw acknowledged is recorded."""
        with self._relayed_changed:
            marks = [(relayed, relayed.taken) for relayed in self._relayed]
        for relayed, _ in marks:  # a request no answer has followed yet is read here
            self._read_taken(relayed, wait=True)
        with self._relayed_changed:
            self._settling += 1
            try:
                for relayed, taken in marks:
                    while relayed.read < taken and relayed in self._relayed:
                        self._relayed_changed.wait(0.05)
            finally:
                self._settling -= 1

    # --- the end -----------------------------------------------------------------------------

    def close(self, grace_s: float = 2.0) -> None:
        """Stop listening; connections still open get `grace_s` to end, then are cut. Returns
        once every connection has closed and all it relayed is read: the tap has seen every
        call end."""
        self._closing.set()
        self._listener.close()
        self._acceptor.join(ACCEPT_POLL_S + 5)
        deadline = time.monotonic() + grace_s
        with self._relayed_changed:
            while self._relayed and time.monotonic() < deadline:
                self._relayed_changed.wait(max(deadline - time.monotonic(), 0.01))
            for relayed in list(self._relayed):
                relayed.cut()
            while self._relayed:
                self._relayed_changed.wait(5)


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
