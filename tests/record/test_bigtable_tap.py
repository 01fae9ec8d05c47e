"""The recording proxy in front of a real Bigtable emulator, driven by Google's own client."""

from __future__ import annotations

import pytest

from keybench.design.byteorder import TABLE_SPACE
from keybench.record.recorder import Recorder, TableName
from keybench.record.taps import recording_proxy


@pytest.fixture
def proxied(bigtable_emulator, monkeypatch):
    recorder = Recorder()
    proxy = recording_proxy("bigtable", recorder, bigtable_emulator.host)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", proxy.address)
    yield recorder, proxy
    proxy.close()


def _table(name: str):
    import warnings

    from google.cloud import bigtable
    from google.cloud.bigtable import column_family

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "Connecting to Bigtable emulator"
        client = bigtable.Client(project="p", admin=True)
    table = client.instance("i").table(name)
    table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
    return client, table


def test_every_write_call_records_its_keys_once_the_emulator_acknowledges_them(proxied):
    recorder, proxy = proxied
    from google.cloud.bigtable.row_filters import PassAllFilter

    client, table = _table("events")
    row = table.direct_row(b"a#1")
    row.set_cell("cf", b"q", b"v")
    row.commit()  # MutateRow
    rows = []
    for key in (b"b#1", b"b#2", b"b#3"):
        r = table.direct_row(key)
        r.set_cell("cf", b"q", b"v")
        rows.append(r)
    assert all(s.code == 0 for s in table.mutate_rows(rows))  # MutateRows
    cond = table.conditional_row(b"c#1", filter_=PassAllFilter(True))
    cond.set_cell("cf", b"q", b"v", state=False)  # applied only when the predicate does not match: no row yet
    cond.commit()  # CheckAndMutateRow
    counter = table.append_row(b"d#1")
    counter.increment_cell_value("cf", b"n", 1)
    counter.commit()  # ReadModifyWriteRow
    client.close()
    (record,) = recorder.snapshot()
    assert (record.backend, record.table) == ("bigtable", "events")
    _, keys, lengths = record.stream.writes(TABLE_SPACE)
    written = sorted(bytes(k[:n]) for k, n in zip(keys.tolist(), lengths.tolist(), strict=True))
    assert written == [b"a#1", b"b#1", b"b#2", b"b#3", b"c#1", b"d#1"]
    assert proxy.tap_errors == 0 and not recorder.unattributed


def test_reads_record_their_row_set_and_the_rows_they_returned(proxied):
    recorder, _ = proxied
    from google.cloud.bigtable.row_set import RowSet

    client, table = _table("reads")
    rows = [table.direct_row(f"k{i}".encode()) for i in range(5)]
    for r in rows:
        r.set_cell("cf", b"q", b"v")
    table.mutate_rows(rows)
    assert len(list(table.read_rows(start_key=b"k1", end_key=b"k3"))) == 2
    row_set = RowSet()
    row_set.add_row_key(b"k4")
    assert len(list(table.read_rows(row_set=row_set))) == 1
    assert len(list(table.read_rows())) == 5
    client.close()
    (record,) = recorder.snapshot()
    assert (record.reads, record.rows_read) == ({TABLE_SPACE: 3}, {TABLE_SPACE: 8})
    intervals = [i for _, _, i in record.stream.reads(TABLE_SPACE)]
    assert intervals == [((b"k1", b"k3"),), ((b"k4", b"k4\x00"),), ((b"", b""),)]


def test_a_refused_write_is_counted_not_recorded_and_the_client_sees_the_emulators_error(proxied):
    recorder, _ = proxied

    client, table = _table("present")
    missing = client.instance("i").table("absent")
    row = missing.direct_row(b"x")
    row.set_cell("cf", b"q", b"v")
    assert row.commit().code == 5  # NOT_FOUND: the client returns the emulator's status
    client.close()
    assert recorder.failed_writes[TableName("bigtable", "projects/p/instances/i", "absent")] == 1
    assert all(r.writes == 0 for r in recorder.snapshot())


def test_bytes_that_are_no_request_are_forwarded_and_counted_as_unattributed(proxied):
    import grpc

    recorder, proxy = proxied
    with grpc.insecure_channel(proxy.address) as channel:
        with pytest.raises(grpc.RpcError) as raised:
            channel.unary_unary("/google.bigtable.v2.Bigtable/MutateRow")(b"\xff\xff\xff not protobuf", timeout=30)
    assert raised.value.code() != grpc.StatusCode.OK  # the emulator's own answer to the same bytes
    ((method, reason),) = recorder.unattributed
    assert method == "MutateRow" and "DecodeError" in reason
    assert not recorder.snapshot()
