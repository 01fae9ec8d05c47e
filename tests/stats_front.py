"""A front for an emulator that answers what only a live service could: its statistics.

The emulators keep no statistics (the Spanner emulator's SPANNER_SYS has no SPLIT_STATS, the
Bigtable emulator no instance admin API). This gRPC server, on 127.0.0.1 and a free port,
answers Spanner's `ExecuteStreamingSql`/`ExecuteSql` over SPANNER_SYS.SPLIT_STATS_TOP_MINUTE
and Bigtable's `BigtableInstanceAdmin.ListHotTablets` from rows the test records, encoded as
the real API's messages; every other call goes to the emulator byte for byte, so the schema a
client reads (INFORMATION_SCHEMA, GetDatabaseDdl) and the rows it wrote are the emulator's own.

Google's mock server (google.cloud.spanner_v1.testing.mock_spanner) answers only what it is
given, and `observe` reads a real schema before the statistics; forwarding keeps every other
answer real. The recorded rows follow the documented shapes ("Hot split statistics"): they
have not been checked against a live instance."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path

import grpc

SPANNER = "/google.spanner.v1.Spanner/"
LIST_HOT_TABLETS = "/google.bigtable.admin.v2.BigtableInstanceAdmin/ListHotTablets"
LIST_CLUSTERS = "/google.bigtable.admin.v2.BigtableInstanceAdmin/ListClusters"
# The server-streaming methods of the APIs forwarded; every other method is unary.
STREAMING = {"ExecuteStreamingSql", "StreamingRead", "BatchWrite", "ReadRows", "SampleRowKeys", "MutateRows",
             "ReadChangeStream", "GenerateInitialChangeStreamPartitions", "ExecuteQuery"}
SPLIT_COLUMNS = (("INTERVAL_END", "TIMESTAMP"), ("SPLIT_START", "STRING"), ("SPLIT_LIMIT", "STRING"),
                 ("CPU_USAGE_SCORE", "INT64"), ("AFFECTED_TABLES", "ARRAY"), ("UNSPLITTABLE_REASONS", "ARRAY"))


@dataclass
class SplitRow:
    interval_end: dt.datetime
    start: str
    limit: str
    score: int
    affected: list[str]
    reasons: list[str] = field(default_factory=list)


@dataclass
class TabletRow:
    table: str  # the table id
    start_key: str
    end_key: str
    cpu: float
    start_time: dt.datetime
    end_time: dt.datetime


class StatsFront:
    """Answers statistics from `split_rows` / `hot_tablets`; forwards the rest to `upstream`
    (HOST:PORT, plaintext), if any. With `tls_dir`, serves TLS (a self-signed certificate for
    localhost, as tests/tls_front.py makes), as a client reaches Google's Bigtable."""

    def __init__(self, upstream: str | None = None, tls_dir: Path | None = None):
        self.split_rows: list[SplitRow] = []
        # Or per database (its id): rows built from what a run wrote there, when it asks.
        self.split_rows_for: Callable[[str], list[SplitRow]] | None = None
        # How far the statistics reach (TXN_STATS_TOTAL_MINUTE's newest INTERVAL_END), per database
        # id; None: up to now.
        self.statistics_until: Callable[[str], dt.datetime | None] | None = None
        self.hot_tablets: list[TabletRow] = []
        self.hot_tablets_for: Callable[[], list[TabletRow]] | None = None  # or built when asked
        self.clusters = ["c1"]  # the instance's clusters, as ListClusters answers
        self.refuse: tuple[grpc.StatusCode, str] | None = None  # answer the statistics calls with this error
        self.statistics_requests: list[object] = []  # each statistics request, decoded
        self.forwarded: list[str] = []  # each forwarded method
        self.channel = grpc.insecure_channel(upstream) if upstream else None
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers([_Handler(self)])
        if tls_dir is not None:
            from tests.tls_front import self_signed

            self.certificate, key = self_signed(tls_dir)
            credentials = grpc.ssl_server_credentials([(key.read_bytes(), self.certificate.read_bytes())])
            self.port = self.server.add_secure_port("127.0.0.1:0", credentials)
            self.endpoint = f"localhost:{self.port}"
        else:
            self.port = self.server.add_insecure_port("127.0.0.1:0")
            self.endpoint = f"127.0.0.1:{self.port}"
        self.server.start()

    def close(self) -> None:
        self.server.stop(grace=None).wait(10)
        if self.channel is not None:
            self.channel.close()

    # ---- the statistics, as the real API's messages
    def split_stats(self, request_bytes: bytes, streaming: bool, context) -> object:
        from google.cloud.spanner_v1 import ExecuteSqlRequest

        request = ExecuteSqlRequest.deserialize(request_bytes)
        self.statistics_requests.append(request)
        if self.refuse is not None:
            context.abort(*self.refuse)
        database = request.session.split("/databases/", 1)[-1].split("/", 1)[0]
        if "TXN_STATS_TOTAL_MINUTE" in request.sql.upper():
            until = self.statistics_until(database) if self.statistics_until else dt.datetime.now(dt.UTC)
            return self._answer([("MAX", "TIMESTAMP")], [[until]], streaming)
        rows = self.split_rows_for(database) if self.split_rows_for else self.split_rows
        return self._answer(SPLIT_COLUMNS, [[r.interval_end, r.start, r.limit, r.score, r.affected, r.reasons]
                                            for r in rows], streaming)

    def _answer(self, columns, values: list[list], streaming: bool):
        """A result set of `columns` ((name, type code)) and rows of plain values, as the API's bytes."""
        from google.cloud.spanner_v1 import PartialResultSet, ResultSet, ResultSetMetadata, StructType, Type, TypeCode

        string_array = Type(code=TypeCode.ARRAY, array_element_type=Type(code=TypeCode.STRING))
        fields = [StructType.Field(name=name, type_=string_array if code == "ARRAY" else Type(code=TypeCode[code]))
                  for name, code in columns]
        metadata = ResultSetMetadata(row_type=StructType(fields=fields))
        from google.protobuf import struct_pb2

        def value(v) -> struct_pb2.Value:
            if v is None:
                return struct_pb2.Value(null_value=struct_pb2.NULL_VALUE)
            if isinstance(v, list):
                return struct_pb2.Value(list_value=struct_pb2.ListValue(values=[value(x) for x in v]))
            if isinstance(v, dt.datetime):
                return struct_pb2.Value(string_value=v.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
            return struct_pb2.Value(string_value=str(v))

        rows = [[value(v) for v in row] for row in values]
        # The raw protobuf messages: proto-plus takes no list of Values for a repeated Value field.
        if streaming:
            partial = PartialResultSet.pb()(last=True)
            partial.metadata.CopyFrom(ResultSetMetadata.pb(metadata))
            partial.values.extend(v for row in rows for v in row)
            return [partial.SerializeToString()]
        result = ResultSet.pb()()
        result.metadata.CopyFrom(ResultSetMetadata.pb(metadata))
        result.rows.extend(struct_pb2.ListValue(values=r) for r in rows)
        return result.SerializeToString()

    def list_hot_tablets(self, request_bytes: bytes, context) -> bytes:
        from google.cloud.bigtable_admin_v2.types import HotTablet, ListHotTabletsRequest, ListHotTabletsResponse

        request = ListHotTabletsRequest.deserialize(request_bytes)
        self.statistics_requests.append(request)
        if self.refuse is not None:
            context.abort(*self.refuse)
        instance = request.parent.rsplit("/clusters/", 1)[0]
        listed = self.hot_tablets_for() if self.hot_tablets_for else self.hot_tablets
        tablets = [HotTablet(name=f"{request.parent}/hotTablets/t{n}", table_name=f"{instance}/tables/{t.table}",
                             start_time=t.start_time, end_time=t.end_time, start_key=t.start_key, end_key=t.end_key,
                             node_cpu_usage_percent=t.cpu) for n, t in enumerate(listed)]
        return ListHotTabletsResponse.serialize(ListHotTabletsResponse(hot_tablets=tablets))

    def list_clusters(self, request_bytes: bytes, context) -> bytes:
        from google.cloud.bigtable_admin_v2.types import Cluster, ListClustersRequest, ListClustersResponse

        request = ListClustersRequest.deserialize(request_bytes)
        return ListClustersResponse.serialize(ListClustersResponse(
            clusters=[Cluster(name=f"{request.parent}/clusters/{c}") for c in self.clusters]))


def _is_statistics(request_bytes: bytes) -> bool:
    """A query of the statistics tables the emulator lacks (SPLIT_STATS, TXN_STATS)."""
    from google.cloud.spanner_v1 import ExecuteSqlRequest

    sql = ExecuteSqlRequest.deserialize(request_bytes).sql.upper()
    return "SPLIT_STATS_TOP_MINUTE" in sql or "TXN_STATS_TOTAL_MINUTE" in sql


class _Handler(grpc.GenericRpcHandler):
    def __init__(self, front: StatsFront):
        self.front = front

    def service(self, details):
        method = details.method
        name = method.rsplit("/", 1)[-1]
        front = self.front
        if method == LIST_HOT_TABLETS:
            return grpc.unary_unary_rpc_method_handler(front.list_hot_tablets)
        if method == LIST_CLUSTERS:
            return grpc.unary_unary_rpc_method_handler(front.list_clusters)
        statistics = method in (SPANNER + "ExecuteStreamingSql", SPANNER + "ExecuteSql")
        if front.channel is None and not statistics:
            return None  # UNIMPLEMENTED, as a server without the method answers
        if name in STREAMING:
            def stream(request: bytes, context):
                if statistics and _is_statistics(request):
                    yield from front.split_stats(request, True, context)
                    return
                front.forwarded.append(method)
                try:
                    yield from front.channel.unary_stream(method)(request, metadata=_metadata(context),
                                                                  timeout=context.time_remaining())
                except grpc.RpcError as exc:  # the emulator's own refusal, passed on as it is
                    context.abort(exc.code(), exc.details() or "")

            return grpc.unary_stream_rpc_method_handler(stream)

        def unary(request: bytes, context):
            if statistics and _is_statistics(request):
                return front.split_stats(request, False, context)
            front.forwarded.append(method)
            try:
                return front.channel.unary_unary(method)(request, metadata=_metadata(context),
                                                         timeout=context.time_remaining())
            except grpc.RpcError as exc:
                context.abort(exc.code(), exc.details() or "")

        return grpc.unary_unary_rpc_method_handler(unary)


def _metadata(context) -> list[tuple[str, str | bytes]]:
    return [(k, v) for k, v in context.invocation_metadata() if not k.startswith(":") and k != "user-agent"]
