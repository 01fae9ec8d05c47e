"""The forwarding proxy alone: what the emulator answers reaches the client unchanged, and a
tap that fails changes nothing the application sees."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import partial

import grpc
import pytest

from keybench.record.proxy import ForwardingProxy


class _Failing:
    """A tap whose every step raises."""

    def call(self, method):
        return self

    def request(self, message):
        raise RuntimeError("tap bug")

    def response(self, message):
        raise RuntimeError("tap bug")

    def end(self, code):
        raise RuntimeError("tap bug")


@pytest.fixture
def proxy(bigtable_emulator):
    proxy = ForwardingProxy(bigtable_emulator.host, _Failing())
    yield proxy
    proxy.close()


def test_a_failing_tap_is_counted_and_the_call_goes_through(proxy):
    from google.cloud.bigtable_admin_v2.types import ListTablesRequest, ListTablesResponse

    with grpc.insecure_channel(proxy.address) as channel:
        call = channel.unary_unary("/google.bigtable.admin.v2.BigtableTableAdmin/ListTables",
                                   request_serializer=ListTablesRequest.serialize,
                                   response_deserializer=ListTablesResponse.deserialize)
        answer = call(ListTablesRequest(parent="projects/p/instances/proxy-test"), timeout=30)
    assert list(answer.tables) == []
    assert proxy.tap_errors == 3  # the request, the response and the end


class _Held:
    """A tap that stops at a call's end until released: the reading of that call lags."""

    def __init__(self):
        self.release, self.ended = threading.Event(), []

    def call(self, method):
        return self

    def request(self, message):
        pass

    def response(self, message):
        pass

    def end(self, code):
        assert self.release.wait(60), "never released"
        self.ended.append(code)


@contextmanager
def _list_tables(emulator, tap):
    """(proxy, a ListTables call through it) with `tap`; the tap released and the proxy closed after."""
    from google.cloud.bigtable_admin_v2.types import ListTablesRequest, ListTablesResponse

    proxy = ForwardingProxy(emulator.host, tap)
    try:
        with grpc.insecure_channel(proxy.address) as channel:
            call = channel.unary_unary("/google.bigtable.admin.v2.BigtableTableAdmin/ListTables",
                                       request_serializer=ListTablesRequest.serialize,
                                       response_deserializer=ListTablesResponse.deserialize)
            yield proxy, partial(call.future, ListTablesRequest(parent="projects/p/instances/proxy-test"),
                                 timeout=60)
    finally:
        tap.release.set()
        proxy.close()


def test_the_call_is_answered_while_the_tap_reads_it_and_settle_waits_for_the_reading(bigtable_emulator):
    tap = _Held()
    with _list_tables(bigtable_emulator, tap) as (proxy, call):
        answer = call().result(timeout=30)
        assert list(answer.tables) == [] and tap.ended == []  # answered, its end not yet read
        settled = threading.Event()
        waiter = threading.Thread(target=lambda: (proxy.settle(), settled.set()), daemon=True)
        waiter.start()
        assert not settled.wait(0.3)  # the reading is held: settle() cannot have returned
        tap.release.set()
        assert settled.wait(30)
        assert tap.ended == [grpc.StatusCode.OK]


class _SlowRequest(_Held):
    """A tap that stops at a call's request until released, as the Spanner tap does while it
    looks up the keys of the call's database."""

    def request(self, message):
        assert self.release.wait(60), "never released"

    def end(self, code):
        self.ended.append(code)


def test_an_answer_reaches_the_application_only_once_its_request_is_read(bigtable_emulator):
    tap = _SlowRequest()
    with _list_tables(bigtable_emulator, tap) as (proxy, call):
        answer = call()
        with pytest.raises(grpc.FutureTimeoutError):
            answer.result(timeout=0.5)  # the tap has not read the request: the answer is held
        tap.release.set()
        assert list(answer.result(timeout=30).tables) == []
        proxy.settle()
        assert tap.ended == [grpc.StatusCode.OK]


class _ReadAfterItsAnswer:
    """A tap that needs nothing as of a call's request (as the Bigtable tap): notes the thread
    that reads each request."""

    request_before_answer = False

    def __init__(self):
        self.readers, self.ended, self.release = [], [], threading.Event()

    def call(self, method):
        return self

    def request(self, message):
        self.readers.append(threading.current_thread().name)

    def response(self, message):
        pass

    def end(self, code):
        self.ended.append(code)


def test_a_tap_that_needs_nothing_as_of_a_request_has_it_read_by_the_pump_that_passes_answers_on(
        bigtable_emulator):
    tap = _ReadAfterItsAnswer()
    with _list_tables(bigtable_emulator, tap) as (proxy, call):
        for _ in range(5):
            assert list(call().result(timeout=30).tables) == []
        proxy.settle()
    # not by the pump relaying the application's bytes, which goes on relaying them at once
    assert len(tap.readers) == 5 and "kb-proxy-conn" not in tap.readers, tap.readers
    assert tap.ended == [grpc.StatusCode.OK] * 5


def test_the_emulators_error_reaches_the_client_with_its_code(proxy):
    with grpc.insecure_channel(proxy.address) as channel:
        with pytest.raises(grpc.RpcError) as raised:
            channel.unary_unary("/google.bigtable.v2.Bigtable/NoSuchMethod")(b"", timeout=30)
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED
    with grpc.insecure_channel(proxy.address) as channel:
        from google.cloud.bigtable_v2.types import MutateRowRequest

        with pytest.raises(grpc.RpcError) as raised:
            channel.unary_unary("/google.bigtable.v2.Bigtable/MutateRow")(
                MutateRowRequest.serialize(MutateRowRequest(table_name="projects/p/instances/i/tables/absent",
                                                            row_key=b"k")), timeout=30)
    assert raised.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)


def test_it_listens_on_the_loopback_only_by_default(proxy):
    assert proxy.address.startswith("127.0.0.1:")


def _echo_server():
    """A TCP server on a free port that sends back what it is sent: (its address, its socket)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                while data := conn.recv(65536):
                    conn.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return f"127.0.0.1:{server.getsockname()[1]}", server


def test_bytes_that_are_not_grpc_are_relayed_unchanged_and_counted():
    import socket

    address, server = _echo_server()
    proxy = ForwardingProxy(address, _Failing())
    try:
        host, port = proxy.address.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            sent = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + bytes(range(256)) * 40
            conn.sendall(sent)
            conn.shutdown(socket.SHUT_WR)
            got = b""
            while data := conn.recv(65536):
                got += data
        assert got == sent
    finally:
        proxy.close()
        server.close()
    assert proxy.undecodable == 1 and proxy.tap_errors == 0


def test_close_cuts_a_connection_still_open_after_the_grace():
    import socket
    import time

    address, server = _echo_server()
    proxy = ForwardingProxy(address)
    host, port = proxy.address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(b"ping")
        assert conn.recv(4) == b"ping"
        started = time.monotonic()
        proxy.close(grace_s=0.5)
        assert time.monotonic() - started < 30
        assert conn.recv(4) == b""  # cut: the application sees its connection end
    server.close()


def test_a_connection_that_stops_being_http2_mid_call_ends_its_open_calls():
    import socket
    import threading
    import time

    from tests.record.test_wire import CLIENT_PREFACE, CONTINUATION, END_HEADERS, Recording, Sides, frame

    server = socket.create_server(("127.0.0.1", 0))  # takes what it is sent, answers nothing

    def sink():
        try:
            conn, _ = server.accept()
            with conn:
                while conn.recv(65536):
                    pass
        except OSError:
            return  # the test is over

    threading.Thread(target=sink, daemon=True).start()
    tap = Recording()
    proxy = ForwardingProxy(f"127.0.0.1:{server.getsockname()[1]}", tap)
    try:
        host, port = proxy.address.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            conn.sendall(CLIENT_PREFACE + Sides().request_headers(1))
            conn.sendall(frame(CONTINUATION, END_HEADERS, 3, b"\x00"))  # continues no header block
            deadline = time.monotonic() + 30
            while not proxy.undecodable and time.monotonic() < deadline:
                time.sleep(0.01)
            assert proxy.undecodable == 1
            assert tap.events[0][0] == "call" and tap.events[-1] == ("end", grpc.StatusCode.CANCELLED)
    finally:
        proxy.close()
        server.close()
