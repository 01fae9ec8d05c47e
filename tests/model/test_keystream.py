"""The key stream a stage records: inserts recorded during the load are encoded when the
stream is first read, in the order they were recorded."""

from keybench.design import strategies
from keybench.design.byteorder import TABLE_SPACE, KeyEncoder
from keybench.design.events import WriteEvent
from keybench.model.keystream import KeyStream


def test_recorded_inserts_are_encoded_when_read_in_recording_order_with_direct_writes():
    strategy = strategies.catalogue("bigtable")["reverse_timestamp"]
    encoder, generator = KeyEncoder(strategy), strategy.key_generator(1)
    events = [WriteEvent(i % 3 + 1, 1_790_000_000_000_000 + i * 1000, f"w{i}", i + 1) for i in range(4)]
    keys = [generator.key(e) for e in events]
    stream = KeyStream()
    stream.record_insert(encoder, keys[0], events[0], 1.0)
    stream.record_insert(encoder, keys[1], events[1], 2.0)
    stream.add_write(TABLE_SPACE, 3.0, b"direct")
    stream.record_insert(encoder, keys[2], events[2], 4.0)
    stream.record_insert(encoder, keys[3], events[3], 5.0)
    expected = [encoder.table_key(keys[0]), encoder.table_key(keys[1]), b"direct", encoder.table_key(keys[2]),
                encoder.table_key(keys[3])]
    assert stream.write_count() == 5
    times, _, _ = stream.writes(TABLE_SPACE)
    assert list(times) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert [stream.key_at(TABLE_SPACE, i) for i in range(5)] == expected
    shipped = KeyStream.from_bytes(stream.to_bytes())  # a worker's report: the encoded keys travel
    assert [shipped.key_at(TABLE_SPACE, i) for i in range(5)] == expected
    stream.record_insert(encoder, keys[0], events[0], 6.0)  # recorded after a read: encoded at the next one
    assert stream.write_count() == 6 and stream.key_at(TABLE_SPACE, 5) == expected[0]


def test_recorded_reads_are_encoded_when_read_in_recording_order_with_direct_reads():
    from keybench.design.plans import strategy_plans

    strategy = strategies.catalogue("bigtable")["reverse_timestamp"]
    encoder, plans = KeyEncoder(strategy), strategy_plans(strategy, 10)
    scans = [plans["prefix_scan"].build(device) for device in (1, 2)]
    stream = KeyStream()
    stream.record_read(encoder, scans[0], 1.0, "prefix_scan")
    stream.add_read(2.0, [(b"a", b"b")], TABLE_SPACE, "direct")
    stream.record_read(encoder, scans[1], 3.0, "prefix_scan")
    reads = list(stream.reads(with_operation=True))
    assert [(t, op) for t, _, _, op in reads] == [(1.0, "prefix_scan"), (2.0, "direct"), (3.0, "prefix_scan")]
    assert [list(iv) for _, _, iv, _ in reads] == [encoder.read_intervals(scans[0])[1], [(b"a", b"b")],
                                             encoder.read_intervals(scans[1])[1]]
    assert len(list(KeyStream.from_bytes(stream.to_bytes()).reads())) == 3


def test_encoding_a_slice_at_a_time_and_taking_the_writes_after_a_mark_add_up_to_the_whole_stream():
    strategy = strategies.catalogue("spanner")["index_monotonic"]  # a table and an index: two spaces
    encoder, generator = KeyEncoder(strategy), strategy.key_generator(1)
    stream, copy, marks = KeyStream(), KeyStream(), {}
    for round_ in range(4):
        for i in range(round_ * 250, (round_ + 1) * 250):
            event = WriteEvent(i % 7 + 1, 1_790_000_000_000_000 + i * 1000, f"w{i}", i + 1)
            stream.record_insert(encoder, generator.key(event), event, float(i))
        slices = 0
        while stream.encode_some(100):  # 250 recorded: three slices, two of them with more left
            slices += 1
        assert slices == 2
        for space, (times, keys, lengths, units) in stream.writes_after(marks).items():
            copy.add_writes(space, times, keys, lengths, units)
            marks[space] = marks.get(space, 0) + len(times)
    assert sorted(copy.spaces()) == sorted(stream.spaces()) and len(stream.spaces()) >= 2
    for space in stream.spaces():
        for mine, theirs in zip(copy.writes(space), stream.writes(space), strict=True):
            assert (mine == theirs).all()
        assert (copy.unit_lengths(space) == stream.unit_lengths(space)).all()
    assert set(stream.writes_after(marks)) == set(stream.spaces())
    assert all(len(w[0]) == 0 for w in stream.writes_after(marks).values())  # nothing new


def test_a_long_streams_keys_go_to_disk_in_blocks_and_read_back_as_they_were_written(monkeypatch):
    """Writes recorded one at a time become a block on disk every BLOCK_WRITES: the stream
    gives back every key, time and unit, in order, and ships them as before."""
    import numpy as np

    from keybench.model import writeblocks

    monkeypatch.setattr(writeblocks, "BLOCK_WRITES", 100)
    strategy = strategies.catalogue("spanner")["index_monotonic"]  # a table and an index: two spaces
    encoder, generator = KeyEncoder(strategy), strategy.key_generator(1)
    stream = KeyStream()
    events = [WriteEvent(i % 7 + 1, 1_790_000_000_000_000 + i * 1000, f"w{i}", i + 1) for i in range(350)]
    keys = [generator.key(event) for event in events]  # random: drawn once
    for i, event in enumerate(events):
        stream.record_insert(encoder, keys[i], event, float(i))
        if i % 50 == 49:  # what a long stage does as it goes: a slice at a time
            assert stream.backlog() == 50
            while stream.encode_some(10):
                pass
            assert stream.backlog() == 0
    expected: dict[str, list[bytes]] = {}
    for key, event in zip(keys, events, strict=True):
        for space, encoded, _ in encoder.write_keys(key, event):
            expected.setdefault(space, []).append(encoded)
    assert len(expected) == 2 and len(expected[TABLE_SPACE]) == 350
    shipped = KeyStream.from_bytes(stream.to_bytes())
    for space, encoded in expected.items():
        times, _, lengths = stream.writes(space)
        assert [stream.key_at(space, i) for i in range(len(encoded))] == encoded
        assert [shipped.key_at(space, i) for i in range(len(encoded))] == encoded
        assert list(lengths) == [len(k) for k in encoded]
        assert np.all(np.diff(times) > 0)

