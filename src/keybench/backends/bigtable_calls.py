"""Bigtable's MutateRow and ReadRows RPCs with plain protobuf messages on the data client's own
channel (see RawRpc for why, and what they keep of the data client's calls), with the merging
of a ReadRows stream into rows and the resumption of a broken one."""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.api_core import exceptions as gexc
from google.api_core.gapic_v1 import routing_header
from google.cloud.bigtable.data._sync_autogen._swappable_channel import SwappableChannel
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from google.cloud.bigtable_v2.types import data as data_types

from keybench.backends.connection import client_settings

T = TypeVar("T")
# The variable the clients find the emulator by (the same as keybench.infra.emulators.ENV_VARS).
EMULATOR_HOST = "BIGTABLE_EMULATOR_HOST"
# Both clients warn "Connecting to Bigtable emulator at ..." on every construction: here, where
# every process that makes one (keybench's own, the audit's read-back child) imports them.
warnings.filterwarnings("ignore", message="Connecting to Bigtable emulator", category=RuntimeWarning)


def admin_client(project: str, endpoint: str | None = None):
    """The table admin client: of the emulator BIGTABLE_EMULATOR_HOST names, else of the
    service at `endpoint` (`--endpoint`) or Google's own."""
    from google.cloud import bigtable

    settings = client_settings(endpoint)
    return bigtable.Client(project=project, admin=True, admin_client_options=settings.get("client_options"),
                           **settings)


def data_client(project: str, endpoint: str | None = None):
    """The data client, of the same service as `admin_client`."""
    from google.cloud.bigtable.data import BigtableDataClient

    return BigtableDataClient(project=project, **client_settings(endpoint))


class RawRpc:
    """One Bigtable RPC with plain protobuf messages, on the data client's own channel.

    The data client's own calls cost the client far more CPU than the RPC itself: they build
    proto-plus messages and run retry and operation metrics layers around it
    (benchmarks/bigtable_client_choice.py; under gevent `mutate_row` costs about 1.8 times
    the CPU of MutateRowCall). A load test on a few cores shares them with the database, so
    that CPU caps the rate it can drive.

    What it keeps of the data client's calls: the channel (endpoint, credentials, channel
    refresh), the request's app profile and the routing header built as the generated client
    builds it, a per-attempt timeout within one overall deadline, retries of
    DEADLINE_EXCEEDED and UNAVAILABLE with jittered exponential backoff, and
    `DeadlineExceeded` once the deadline has passed. Other errors are raised as
    google.api_core exceptions, as the data client raises them. Not kept: the client-side
    metrics and the `x-goog-api-client` header."""

    METHOD: str
    STREAMING = False
    RETRYABLE = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
    FIRST_BACKOFF_S, MAX_BACKOFF_S = 0.01, 1.0
    Request: Any  # the protobuf message classes (their `.pb()`), which protobuf types loosely
    Response: Any

    def __init__(self, table, timeout_s: float):
        """`table`: a data client Table (`BigtableDataClient.get_table`)."""
        self.channel = table.client.transport.grpc_channel
        self.table_name, self.app_profile_id = table.table_name, table.app_profile_id or ""
        self.timeout_s = timeout_s
        self.attempt_timeout_s = min(table.default_attempt_timeout or timeout_s, timeout_s)
        self.metadata = (routing_header.to_grpc_metadata(
            {"table_name": self.table_name, "app_profile_id": self.app_profile_id}),)
        self._bound_to = self._rpc = None

    def _current_rpc(self):
        # The data client swaps the channel inside its SwappableChannel every 35-45 minutes
        # (real instances), and closes the old one later: follow it.
        current = self.channel._channel if isinstance(self.channel, SwappableChannel) else self.channel
        if current is not self._bound_to:
            kind = current.unary_stream if self.STREAMING else current.unary_unary
            self._rpc = kind(self.METHOD, request_serializer=self.Request.SerializeToString,
                             response_deserializer=self.Response.FromString)
            self._bound_to = current
        return self._rpc

    def _with_retries(self, attempt: Callable[[Callable, float], T]) -> T:
        """`attempt(rpc, timeout_s)` until it returns, retrying what RETRYABLE names within the deadline."""
        deadline = time.monotonic() + self.timeout_s
        backoff = self.FIRST_BACKOFF_S
        while True:
            left = deadline - time.monotonic()
            try:
                return attempt(self._current_rpc(), max(min(left, self.attempt_timeout_s), 0.001))
            except grpc.RpcError as exc:
                if exc.code() not in self.RETRYABLE:
                    raise gexc.from_grpc_error(exc) from None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise gexc.DeadlineExceeded(
                        f"operation_timeout of {self.timeout_s:.1f}s exceeded; last attempt: "
                        f"{exc.code().name} {exc.details()}") from None
            # A pause cut short by the deadline still leaves a last attempt: the call gives up
            # at its deadline, not before it.
            time.sleep(min(random.uniform(0, backoff), left))
            backoff = min(backoff * 2, self.MAX_BACKOFF_S)


class MutateRowCall(RawRpc):
    """Bigtable's MutateRow RPC (see RawRpc): keybench's single-row write."""

    METHOD = "/google.bigtable.v2.Bigtable/MutateRow"
    Request = bigtable_types.MutateRowRequest.pb()
    Response = bigtable_types.MutateRowResponse.pb()

    def __call__(self, row_key: bytes, family: str, cells: list[tuple[bytes, bytes]], timestamp_us: int) -> None:
        if timestamp_us < 0:  # a server-assigned time would make a retry store a second version
            raise ValueError("MutateRowCall writes need an explicit cell time, which makes them safe to retry")
        request = self.Request(table_name=self.table_name, row_key=row_key, app_profile_id=self.app_profile_id)
        for qualifier, value in cells:
            cell = request.mutations.add().set_cell
            cell.family_name, cell.column_qualifier, cell.value = family, qualifier, value
            cell.timestamp_micros = timestamp_us
        self._with_retries(lambda rpc, timeout: rpc(request, timeout=timeout, metadata=self.metadata))


class ReadRowsCall(RawRpc):
    """Bigtable's ReadRows RPC (see RawRpc): keybench's reads. The rows come back as
    (row key, {qualifier: [cell values, newest first]}) of one column family, merged from the
    response chunks as the data client merges them (split cell values, reset rows). A retried
    stream resumes after the last complete row, with the row limit reduced by the rows already
    read, as the data client's does. Reads in reverse order are not supported."""

    METHOD = "/google.bigtable.v2.Bigtable/ReadRows"
    STREAMING = True
    Request = bigtable_types.ReadRowsRequest.pb()
    Response = bigtable_types.ReadRowsResponse.pb()

    def request(self, rows=None, row_filter=None, limit: int | None = None):
        """A request for this call's table: `rows` a RowSet message (None: the whole table),
        `row_filter` a RowFilter message."""
        request = self.Request(table_name=self.table_name, app_profile_id=self.app_profile_id,
                               rows_limit=limit or 0)
        if rows is not None:
            request.rows.CopyFrom(rows)
        if row_filter is not None:
            request.filter.CopyFrom(row_filter)
        return request

    def __call__(self, request, family: str) -> list[tuple[bytes, dict[bytes, list[bytes]]]]:
        if request.reversed:
            raise ValueError("ReadRowsCall reads in key order only")
        rows: list[tuple[bytes, dict[bytes, list[bytes]]]] = []

        def attempt(rpc, timeout):
            resumed = request if not rows else resumed_request(request, rows[-1][0], len(rows))
            if resumed is not None:
                merge_rows(rpc(resumed, timeout=timeout, metadata=self.metadata), family, rows)
            return rows

        return self._with_retries(attempt)


def merge_rows(responses, family: str, rows: list) -> None:
    """Append each complete row of a ReadRows stream to `rows`: a row's cells only count
    once its commit_row chunk arrived."""
    cells: dict[bytes, list] = {}
    parts: list[bytes] = []
    key, in_family, qualifier = b"", False, b""
    for response in responses:
        for chunk in response.chunks:
            if chunk.reset_row:
                key, cells, parts = b"", {}, []
                continue
            if chunk.row_key:
                key = chunk.row_key
            if chunk.HasField("family_name"):
                in_family = chunk.family_name.value == family
            if chunk.HasField("qualifier"):
                qualifier = chunk.qualifier.value
            if chunk.value_size:  # a value split over several chunks: this is not its last
                parts.append(chunk.value)
            else:
                if in_family:
                    value = b"".join((*parts, chunk.value)) if parts else chunk.value
                    cells.setdefault(qualifier, []).append(value)
                parts = []
            if chunk.commit_row:
                rows.append((key, cells))
                key, cells = b"", {}


def resumed_request(request, last_key: bytes, received: int):
    """The request for the rows after `last_key`, `received` rows having come back; None when
    nothing is left to read."""
    resumed = type(request)()
    resumed.CopyFrom(request)
    if request.rows_limit:
        if request.rows_limit <= received:
            return None
        resumed.rows_limit = request.rows_limit - received
    resumed.ClearField("rows")
    wanted = request.rows
    if not wanted.row_keys and not wanted.row_ranges:  # the whole table
        resumed.rows.row_ranges.add(start_key_open=last_key)
        return resumed
    resumed.rows.row_keys.extend(k for k in wanted.row_keys if k > last_key)
    for old in wanted.row_ranges:
        end = old.WhichOneof("end_key")
        if end is not None and getattr(old, end) <= last_key:
            continue  # wholly read
        new = resumed.rows.row_ranges.add()
        new.CopyFrom(old)
        start = old.WhichOneof("start_key")
        if start is None or getattr(old, start) <= last_key:
            new.start_key_open = last_key
    return resumed if resumed.rows.row_keys or resumed.rows.row_ranges else None


def filter_message(row_filter):
    """A data client row filter as the plain RowFilter message a ReadRowsCall sends."""
    return data_types.RowFilter.pb(row_filter._to_pb())
