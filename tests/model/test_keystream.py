"""The key stream a stage records: inserts recorded during the load are encoded when the
stream is first read, in the order they were recorded."""

from loadtests.design import strategies
from loadtests.design.byteorder import TABLE_SPACE, KeyEncoder
from loadtests.design.keys import WriteEvent
from loadtests.model.keystream import KeyStream


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
