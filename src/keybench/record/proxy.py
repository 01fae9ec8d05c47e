"""A gRPC proxy in front of an emulator: every call forwarded byte for byte, each shown to a tap.

The Spanner and Bigtable APIs' methods (data, admin, long-running operations) are unary but
for the server-streaming ones named in SERVER_STREAMING, and are forwarded as such: a call
then costs no request-iterator thread. A method of any other service (a newer API) is
forwarded as a bidirectional stream: on the wire a unary call is a stream of one message
each way, so that serves every kind of call, only at a higher cost. The request and response messages stay
bytes: the proxy never re-encodes what it forwards. Metadata goes both ways (the client's
headers up; the emulator's headers, trailers and status down), so a client's retry logic
(Spanner's RetryInfo on an aborted transaction) sees what the emulator said.

The tap sees each message as it passes and the call's end. It runs on the call's thread, and
a tap that raises is counted, never passed to the client: the application under test must
behave as it does without the proxy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Protocol

import grpc

# Calls served at once: each holds a thread for as long as it lasts (a streaming read, a
# transaction's open session), and an application's connection pool may keep many open.
MAX_CALLS = 256
# The server-streaming methods of the services below; none of them streams requests.
SERVER_STREAMING = frozenset({"ExecuteStreamingSql", "StreamingRead", "BatchWrite", "ReadRows", "SampleRowKeys",
                              "MutateRows", "ReadChangeStream", "GenerateInitialChangeStreamPartitions",
                              "ExecuteQuery"})
KNOWN_SERVICES = ("/google.spanner.", "/google.bigtable.", "/google.longrunning.")
# Headers the gRPC runtime sets itself: passing them on would duplicate or contradict its own.
_OWN_HEADERS = ("user-agent", "grpc-", ":")


class CallTap(Protocol):
    def request(self, message: bytes) -> None: ...

    def response(self, message: bytes) -> None: ...

    def end(self, code: grpc.StatusCode) -> None: ...


class Tap(Protocol):
    def call(self, method: str) -> CallTap | None:
        """What watches one call of `method` ("/package.Service/Method"); None: nothing does."""


class ForwardingProxy:
    """Listens on `host` and a free port; forwards every call to `upstream` (HOST:PORT,
    plaintext, as the emulators speak) and shows each to `tap`."""

    def __init__(self, upstream: str, tap: Tap | None = None, host: str = "127.0.0.1", port: int = 0):
        self.upstream, self.tap = upstream, tap
        self.tap_errors = 0  # taps that raised: their calls went through unrecorded
        self._lock = threading.Lock()
        # No limit on message size: the proxy must pass whatever the client and emulator accept.
        unlimited = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        self.channel = grpc.insecure_channel(upstream, options=unlimited)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=MAX_CALLS, thread_name_prefix="kb-proxy"),
                                  options=unlimited, maximum_concurrent_rpcs=MAX_CALLS)
        self.server.add_generic_rpc_handlers([_Forward(self)])
        try:
            bound = self.server.add_insecure_port(f"{_bracketed(host)}:{port}")
        except RuntimeError:  # newer gRPC raises where older ones return 0
            bound = 0
        if not bound:
            self.channel.close()
            raise OSError(f"cannot listen on {host}:{port}")
        self.address = f"{_bracketed(host)}:{bound}"
        self.server.start()

    def close(self, grace_s: float = 2.0) -> None:
        """Stop listening; calls still open get `grace_s` to end, then are cancelled."""
        self.server.stop(grace=grace_s).wait(grace_s + 5)
        self.channel.close()

    def _tap_failed(self) -> None:
        with self._lock:
            self.tap_errors += 1

    def watch(self, method: str) -> CallTap | None:
        if self.tap is None:
            return None
        try:
            return self.tap.call(method)
        except Exception:
            self._tap_failed()
            return None

    def forward(self, method: str, requests: Iterator[bytes] | bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        """The responses to `requests` (one request: a server-streaming call), passed on."""
        watcher = self.watch(method)
        metadata, timeout = _passed_on(context.invocation_metadata()), context.time_remaining()
        if isinstance(requests, bytes):
            self._show(watcher, "request", requests)
            call = self.channel.unary_stream(method)(requests, metadata=metadata, timeout=timeout)
        else:
            call = self.channel.stream_stream(method)(self._shown(requests, watcher), metadata=metadata,
                                                      timeout=timeout)
        context.add_callback(call.cancel)  # the client went away: so does the upstream call
        with self._passing_on(watcher, context) as ended:
            context.send_initial_metadata(_passed_on(call.initial_metadata() or ()))
            for message in call:
                self._show(watcher, "response", message)
                yield message
            context.set_trailing_metadata(_passed_on(call.trailing_metadata() or ()))
            ended[0] = grpc.StatusCode.OK

    def forward_unary(self, method: str, request: bytes, context: grpc.ServicerContext) -> bytes:
        """The response to a unary call, passed on."""
        watcher = self.watch(method)
        self._show(watcher, "request", request)
        response = b""
        with self._passing_on(watcher, context) as ended:
            response, call = self.channel.unary_unary(method).with_call(
                request, metadata=_passed_on(context.invocation_metadata()), timeout=context.time_remaining())
            context.send_initial_metadata(_passed_on(call.initial_metadata() or ()))
            self._show(watcher, "response", response)
            context.set_trailing_metadata(_passed_on(call.trailing_metadata() or ()))
            ended[0] = grpc.StatusCode.OK
        return response

    @contextmanager
    def _passing_on(self, watcher: CallTap | None, context: grpc.ServicerContext) -> Iterator[list[grpc.StatusCode]]:
        """Around one call's forwarding: the emulator's refusal passed on as it is, and the tap
        told how the call ended (CANCELLED until the block sets it otherwise)."""
        ended, error = [grpc.StatusCode.CANCELLED], None
        try:
            yield ended
        except grpc.RpcError as exc:
            ended[0], error = self._refused(exc, context)
        finally:
            self._ended(watcher, ended[0])
        if error is not None:
            context.abort(ended[0], error)

    @staticmethod
    def _refused(exc: grpc.RpcError, context: grpc.ServicerContext) -> tuple[grpc.StatusCode, str]:
        """The emulator's own refusal, to pass on as it is: its code, details and trailers."""
        if isinstance(exc, grpc.Call):
            context.set_trailing_metadata(_passed_on(exc.trailing_metadata() or ()))
            return exc.code(), exc.details() or ""
        return grpc.StatusCode.UNKNOWN, str(exc)

    def _shown(self, requests: Iterator[bytes], watcher: CallTap | None) -> Iterator[bytes]:
        for message in requests:
            self._show(watcher, "request", message)
            yield message

    def _show(self, watcher: CallTap | None, what: str, message: bytes) -> None:
        if watcher is None:
            return
        try:
            getattr(watcher, what)(message)
        except Exception:
            self._tap_failed()

    def _ended(self, watcher: CallTap | None, code: grpc.StatusCode) -> None:
        if watcher is None:
            return
        try:
            watcher.end(code)
        except Exception:
            self._tap_failed()


class _Forward(grpc.GenericRpcHandler):
    def __init__(self, proxy: ForwardingProxy):
        self.proxy = proxy

    def service(self, handler_call_details):
        method = handler_call_details.method
        if not method.startswith(KNOWN_SERVICES):
            return grpc.stream_stream_rpc_method_handler(lambda requests, context: self.proxy.forward(
                method, requests, context))
        if method.rsplit("/", 1)[-1] in SERVER_STREAMING:
            return grpc.unary_stream_rpc_method_handler(lambda request, context: self.proxy.forward(
                method, request, context))

        return grpc.unary_unary_rpc_method_handler(lambda request, context: self.proxy.forward_unary(
            method, request, context))


def _passed_on(metadata) -> list[tuple[str, str | bytes]]:
    return [(k, v) for k, v in metadata if not k.startswith(_OWN_HEADERS)]


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
