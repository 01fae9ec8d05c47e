"""What the Bigtable data API's calls write and read, decoded from the bytes a proxy forwards.

A row key is its own byte order, so the keys recorded are the request's row keys as they
are. A write is recorded when the emulator acknowledges it: MutateRow and
ReadModifyWriteRow when the call succeeds, each MutateRows entry whose own status is OK,
CheckAndMutateRow when the branch the predicate chose carries mutations. A ReadRows call
is a read of its row set (every row key and range; none: the whole table), with the rows
it returned. Admin calls and the rest pass unrecorded, counted by method.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.cloud.bigtable_v2.types import (
    CheckAndMutateRowRequest,
    CheckAndMutateRowResponse,
    MutateRowRequest,
    MutateRowsRequest,
    MutateRowsResponse,
    ReadModifyWriteRowRequest,
    ReadRowsRequest,
    ReadRowsResponse,
)

from keybench.record.recorder import Recorder, TableName

BACKEND = "bigtable"
SERVICE = "/google.bigtable.v2.Bigtable/"


def table_of(request) -> TableName:
    """The table of a request's table or authorized view ("projects/p/instances/i/tables/t"):
    its instance's resource name and its id."""
    name = request.table_name or request.authorized_view_name
    if "/tables/" not in name:
        raise ValueError("no table named")
    instance, rest = name.split("/tables/", 1)
    return TableName(BACKEND, instance, rest.split("/", 1)[0])


def row_range_interval(row_range) -> tuple[bytes, bytes]:
    """A RowRange as [start, end) bytes; an empty end: to the end of the table."""
    which_start = row_range.WhichOneof("start_key")
    start = row_range.start_key_closed if which_start == "start_key_closed" else \
        row_range.start_key_open + b"\x00" if which_start == "start_key_open" else b""
    which_end = row_range.WhichOneof("end_key")
    end = row_range.end_key_open if which_end == "end_key_open" else \
        row_range.end_key_closed + b"\x00" if which_end == "end_key_closed" else b""
    return start, end


def row_set_intervals(row_set) -> list[tuple[bytes, bytes]]:
    """A RowSet's rows and ranges as [start, end) intervals; an empty set is the whole table."""
    intervals = [(key, key + b"\x00") for key in row_set.row_keys]
    intervals += [row_range_interval(r) for r in row_set.row_ranges]
    return intervals or [(b"", b"")]


class _Call:
    """One call: its request decoded when it passes, the write or read recorded at its end."""

    request_type: Any = MutateRowRequest  # the proto-plus message classes
    response_type: Any = None

    def __init__(self, recorder: Recorder, method: str):
        self.recorder, self.method = recorder, method
        self.table: TableName | None = None
        self.decoded: Any = None  # the request, as its protobuf message

    def request(self, message: bytes) -> None:
        try:
            self.decoded = self.request_type.pb().FromString(message)
            self.table = table_of(self.decoded)
        except Exception as exc:
            self.recorder.not_attributed(self.method, _why(exc))

    def response(self, message: bytes) -> None:
        if self.table is None or self.response_type is None:
            return
        try:
            self.take(self.response_type.pb().FromString(message))
        except Exception as exc:
            self.recorder.not_attributed(self.method, _why(exc))

    def take(self, response) -> None:
        """What a response says (which entries succeeded, which branch ran, rows returned)."""

    def end(self, code: grpc.StatusCode) -> None:
        if self.table is not None:
            self.finish(self.table, code)

    def finish(self, table: TableName, code: grpc.StatusCode) -> None:
        keys = self.written()
        if code == grpc.StatusCode.OK:
            self.recorder.write(table, [(k, None) for k in keys])
        elif keys:
            self.recorder.failed(table, len(keys))

    def written(self) -> list[bytes]:
        return [self.decoded.row_key]


class _MutateRow(_Call):
    request_type = MutateRowRequest


class _ReadModifyWriteRow(_Call):
    request_type = ReadModifyWriteRowRequest


class _CheckAndMutateRow(_Call):
    request_type = CheckAndMutateRowRequest
    response_type = CheckAndMutateRowResponse

    matched: bool | None = None

    def take(self, response) -> None:
        self.matched = response.predicate_matched

    def written(self) -> list[bytes]:
        if self.matched is None:
            return []
        applied = self.decoded.true_mutations if self.matched else self.decoded.false_mutations
        return [self.decoded.row_key] if len(applied) else []


class _MutateRows(_Call):
    request_type = MutateRowsRequest
    response_type = MutateRowsResponse

    def __init__(self, recorder: Recorder, method: str):
        super().__init__(recorder, method)
        self.succeeded: list[int] = []

    def take(self, response) -> None:
        self.succeeded.extend(e.index for e in response.entries if e.status.code == 0)

    def finish(self, table: TableName, code: grpc.StatusCode) -> None:
        # Each entry has its own status: one that succeeded is written, whatever the call's end.
        entries = self.decoded.entries
        ok = sorted({i for i in self.succeeded if 0 <= i < len(entries)})
        self.recorder.write(table, [(entries[i].row_key, None) for i in ok])
        if len(entries) > len(ok):
            self.recorder.failed(table, len(entries) - len(ok))


class _ReadRows(_Call):
    request_type = ReadRowsRequest
    response_type = ReadRowsResponse

    rows = 0

    def take(self, response) -> None:
        self.rows += sum(1 for chunk in response.chunks if chunk.commit_row)

    def finish(self, table: TableName, code: grpc.StatusCode) -> None:
        self.recorder.read(table, row_set_intervals(self.decoded.rows), self.rows, "ReadRows")


_CALLS: dict[str, type[_Call]] = {"MutateRow": _MutateRow, "MutateRows": _MutateRows,
                                  "CheckAndMutateRow": _CheckAndMutateRow,
                                  "ReadModifyWriteRow": _ReadModifyWriteRow, "ReadRows": _ReadRows}


class BigtableTap:
    """The tap a proxy in front of the Bigtable emulator shows its calls to."""

    request_before_answer = False  # see Tap

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def call(self, method: str) -> _Call | None:
        kind = _CALLS.get(method[len(SERVICE):]) if method.startswith(SERVICE) else None
        if kind is None:
            self.recorder.other(method)
            return None
        return kind(self.recorder, method)


def _why(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]
