"""A proxy in front of an emulator: every connection relayed byte for byte, each call shown to a tap.

The proxy is a TCP relay. Each connection an application opens gets one to the emulator, and
what either side sends is passed on as it arrives, untouched: the HTTP/2 frames, the gRPC
messages, metadata, deadlines, status, pings and flow control are the two sides' own. So any
method of any service goes through (a newer API's as well), and the application behaves as it
does without the proxy, at the cost of one extra hop.

Each chunk is read (record.wire) before it is passed on, one chunk of a connection at a time:
the tap sees a call's method, its request and response messages and how it ended, and it has
recorded a write before the application sees it acknowledged (the tap may look up what the
write needs, the table's schema, while the database is as the write found it). A tap that
raises is counted, never passed to the application, and so are connections whose bytes are
not HTTP/2; they are still relayed.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Protocol

import grpc

from keybench.record.wire import Connection

CHUNK_BYTES = 256 * 1024  # read from a socket at a time
CONNECT_S = 10.0  # to reach the emulator for a new connection
ACCEPT_POLL_S = 0.25  # how soon the listener notices close()


class CallTap(Protocol):
    def request(self, message: bytes) -> None: ...

    def response(self, message: bytes) -> None: ...

    def end(self, code: grpc.StatusCode) -> None: ...


class Tap(Protocol):
    def call(self, method: str) -> CallTap | None:
        """What watches one call of `method` ("/package.Service/Method"); None: nothing does."""


class _Relayed:
    """One application connection and its connection to the emulator."""

    def __init__(self, client: socket.socket, upstream: socket.socket, wire: Connection | None):
        self.client, self.upstream, self.wire = client, upstream, wire
        self.pumps_left = 2
        self.lock = threading.Lock()

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
        self.tap_errors = 0  # steps of a tap that raised: their calls went through unrecorded
        self.undecodable = 0  # connections whose bytes are not HTTP/2, and messages of an unknown compression
        self._counts = threading.Lock()
        self._relayed: set[_Relayed] = set()
        self._relayed_changed = threading.Condition()
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
                if relayed.wire is not None:
                    self._read(relayed, from_client, data)  # before it is sent: see above
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
            if relayed.wire is not None:
                self._read(relayed, None, b"")  # its calls still open end
            with self._relayed_changed:
                self._relayed.discard(relayed)
                self._relayed_changed.notify_all()

    # --- reading the calls -----------------------------------------------------------------

    def _read(self, relayed: _Relayed, from_client: bool | None, data: bytes) -> None:
        """The next chunk one side sent (None: the connection closed), shown to the tap."""
        # No lock: each direction has its own pump and its own state in the wire; the calls
        # they share are registered by a request before it is sent, so before any answer.
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
            self.tap_errors += 1

    def _unread(self, count: int = 1) -> None:
        with self._counts:
            self.undecodable += count

    # --- the end -----------------------------------------------------------------------------

    def close(self, grace_s: float = 2.0) -> None:
        """Stop listening; connections still open get `grace_s` to end, then are cut. Returns
        once every connection has closed and the tap has seen every call end."""
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
