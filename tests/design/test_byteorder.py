"""The byte encoding sorts exactly as the databases sort, spans become the right intervals,
and the key stream survives shipping, saving and merging."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import random

import numpy as np
import pytest

from keybench.design import strategies
from keybench.design.byteorder import (
    TABLE_SPACE,
    KeyEncoder,
    bit_reversed_array,
    encode_int64,
    generated_values,
    sequence_options,
    spanner_intervals,
    spanner_key_bytes,
)
from keybench.design.events import EPOCH, TIME, WriteEvent, never_accessed
from keybench.design.hashing import bit_reversed
from keybench.design.keys import Part, spanner_part
from keybench.design.plans import ReadRequest, Span, StoredRow, strategy_plans
from keybench.model.keycolumns import encode_events, make_events, per_event_keys
from keybench.model.keystream import KeyStream


def _part(descending: bool) -> Part:
    return Part("x", TIME, lambda e, r: None, column="C", descending=descending)


INTS = [0, 1, -1, 2, -2, 255, 256, -256, 2**31, -(2**31), 2**63 - 1, -(2**63), 10**12, -(10**12)]
STRINGS = ["", "a", "a\x00", "a\x00b", "a\x01", "ab", "abc", "b", "\x00", "\x00\x00", "z" * 40, "é", "\uffff", "😀"]
BYTES = [s.encode() for s in STRINGS] + [b"\xff", b"\xff\x00", b"\xfe\xff", b"\x00\xff"]
TIMES = [EPOCH + dt.timedelta(microseconds=v) for v in (0, 1, -1, 10**15, -(10**15), 1_790_000_000_000_000)]


def _python_order(directions):
    def compare(a, b):
        for x, y, desc in zip(a, b, directions, strict=True):
            if x != y:
                return (1 if x > y else -1) * (-1 if desc else 1)
        return 0

    return functools.cmp_to_key(compare)


@pytest.mark.parametrize("directions", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("pools", [(INTS, STRINGS), (STRINGS, BYTES), (TIMES, INTS), (BYTES, STRINGS)])
def test_spanner_encoding_sorts_like_typed_tuples(directions, pools):
    parts = tuple(_part(d) for d in directions)
    rng = random.Random(7)
    keys = list({(rng.choice(pools[0]), rng.choice(pools[1])) for _ in range(400)})
    by_bytes = sorted(keys, key=lambda k: spanner_key_bytes(parts, k))
    assert by_bytes == sorted(keys, key=_python_order(directions))
    assert len({spanner_key_bytes(parts, k) for k in keys}) == len(keys)  # no two keys share bytes


@pytest.mark.parametrize("desc", [False, True])
def test_a_prefix_encoding_starts_every_key_with_that_prefix(desc):
    parts = (_part(desc), _part(False))
    for first in STRINGS:
        prefix = spanner_key_bytes(parts, (first,))
        for other in STRINGS:
            full = spanner_key_bytes(parts, (other, 5))
            assert full.startswith(prefix) == (other == first)


def test_bigtable_keys_are_the_raw_row_key_bytes():
    strategy = strategies.catalogue("bigtable")["field_promoted"]
    generator, encoder = strategy.key_generator(1), KeyEncoder(strategy)
    for i in range(1, 50):
        key = generator.key(WriteEvent(i, 1_790_000_000_000_000 + i, "", i))
        assert encoder.table_key(key) == generator.row_key(key)


def _covered(intervals, key: bytes) -> bool:
    return any(start <= key and (not end or key < end) for start, end in intervals)


CASES = [
    ("spanner", "hash_shard", "time_window"), ("spanner", "timestamp_first", "time_window"),
    ("spanner", "desc_timestamp", "latest_n"), ("spanner", "swapped_order", "latest_n"),
    ("spanner", "index_monotonic", "time_window"), ("spanner", "index_sharded", "time_window"),
    ("bigtable", "timestamp_first", "time_window"), ("bigtable", "field_promoted", "prefix_scan"),
    ("bigtable", "salted", "latest_n"), ("bigtable", "padded_numbers", "number_range"),
    ("bigtable", "reverse_timestamp", "latest_n"), ("bigtable", "tenant_prefix", "prefix_scan"),
]


@pytest.mark.parametrize(("backend", "name", "operation"), CASES)
def test_span_intervals_hold_exactly_the_rows_the_read_wants(backend, name, operation):
    strategy = strategies.catalogue(backend)[name]
    events = make_events(3000, population=40, seed=3, rate_per_s=1000)
    keys = per_event_keys(strategy, events, seed=3)
    plan = strategy_plans(strategy, 10)[operation]
    encoder = KeyEncoder(strategy)
    mid = int(events.ts_us[1500])
    request = {"time_window": lambda: plan.build(mid - 200_000, mid),
               "number_range": lambda: plan.build(1200, 1299)}.get(operation, lambda: plan.build(7))()
    assert request.spans is not None, "this case must be a range read"
    space, intervals = encoder.read_intervals(request)
    assert space == (request.index or TABLE_SPACE)
    # The writes with an entry in the space: every one for the table, the rows with their key
    # columns set for a NULL_FILTERED index (index_monotonic's LastAccess is NULL for some).
    index = next((i for i in strategy.indexes if i.name == space), None)
    entries = [i for i in range(len(events)) if index is None or index.holds_write(events.event(i))]
    assert len(entries) == len(keys[space])
    inside = [entries[n] for n, k in enumerate(keys[space]) if _covered(intervals, k)]
    rows = [StoredRow(int(events.entity[i]), int(events.ts_us[i]), "", int(events.seq[i])) for i in range(len(events))]
    wanted = [i for i in entries if request.wanted(rows[i])]
    assert wanted, "the read must want some rows, or the test proves nothing"
    assert inside == wanted


@pytest.mark.parametrize("name", list(strategies.catalogue("spanner")))
def test_a_reads_spans_worked_out_column_by_column_are_those_worked_out_span_by_span(name):
    strategy = strategies.catalogue("spanner")[name]
    encoder, at = KeyEncoder(strategy), 1_790_000_000_000_000
    for operation, plan in strategy_plans(strategy, 10).items():
        if operation == "point_read":  # one row's key, not spans of values
            continue
        for i in range(3):  # later reads meet the values the first ones encoded
            if operation == "time_window":
                request = plan.build(at - 2_000_000 + i, at + i)
            else:
                request = plan.build(1200 + i, 1299 + i) if operation == "number_range" else plan.build(7 + i)
            if request.spans is None:
                continue
            one_by_one = [encoder.span_interval(span, request.index or TABLE_SPACE) for span in request.spans]
            assert encoder.read_intervals(request)[1] == [i for i in one_by_one if i is not None]


def test_spans_whose_columns_mix_types_or_lengths_are_worked_out_span_by_span():
    encoder = KeyEncoder(strategies.catalogue("spanner")["hash_shard"])  # ShardId, LastAccess, UserId
    t1, t2 = TIMES[-1], TIMES[-1] + dt.timedelta(seconds=2)
    mixed = (Span((1, t1), (1, t2)), Span((True, t1), (True, t2)))  # 1 == True: one key of a dict, two encodings
    uneven = (Span((1, t1), (1, t2)), Span((2,), (2,)), Span((3, t2), (3, t1)))  # the last one empty
    for spans in (mixed, uneven):
        assert spanner_intervals(encoder.strategy.parts, list(spans), {}) == []
        expected = [encoder.span_interval(span) for span in spans]
        assert encoder.read_intervals(ReadRequest(spans, lambda row: True))[1] == [i for i in expected if i is not None]
    assert encoder.span_interval(mixed[0]) != encoder.span_interval(mixed[1])
    assert encoder.span_interval(uneven[2]) is None


def test_a_full_scan_is_the_whole_space():
    strategy = strategies.catalogue("spanner")["uuid4_string"]
    space, intervals = KeyEncoder(strategy).read_intervals(strategy_plans(strategy, 10)["time_window"].build(0, 1))
    assert (space, intervals) == (TABLE_SPACE, [(b"", b"")])


def test_an_index_entry_is_the_index_columns_then_the_primary_key():
    strategy = strategies.catalogue("spanner")["index_monotonic"]
    generator, encoder = strategy.key_generator(1), KeyEncoder(strategy)
    events = [WriteEvent(5, 1_790_000_000_000_000 + 10 * i, "", i + 1) for i in range(200)]
    entries = [{space: key for space, key, _ in encoder.write_keys(generator.key(e), e)} for e in events]
    index = strategy.indexes[0].name
    # LastAccess is NULL for the users who never accessed: NULL_FILTERED gives them no entry.
    indexed = [i for i in range(len(events)) if index in entries[i]]
    assert indexed == [i for i, e in enumerate(events) if not never_accessed(e)]
    assert 0.6 < len(indexed) / len(events) < 0.9, len(indexed)
    in_index_order = sorted(indexed, key=lambda i: entries[i][index])
    assert in_index_order == indexed  # the index follows time
    in_table_order = sorted(indexed, key=lambda i: entries[i][TABLE_SPACE])
    assert in_table_order != in_index_order  # the table does not
    assert all(entries[i][index].endswith(entries[i][TABLE_SPACE]) for i in indexed)


def test_bit_reversal_and_generated_sequences_follow_the_fixtures():
    n = np.array([1, 2, 3, 1000, 2**40 + 5, 2**62 + 1], dtype=np.int64)
    assert list(bit_reversed_array(n)) == [bit_reversed(int(v)) for v in n]
    skip = strategies.catalogue("spanner")["migrate_skip_range"]
    assert sequence_options(skip.ddl) == (2**31, 1, 4294967296)  # the counter starts where it reverses into the range
    made = generated_values(skip.ddl, np.arange(1, 20001))
    assert ((made < 1) | (made > 4294967296)).all()
    assert len(set(made.tolist())) == len(made)
    start = strategies.catalogue("spanner")["migrate_start_counter"]
    assert sequence_options(start.ddl)[0] == 11000
    assert generated_values(start.ddl, np.array([1, 2]))[0] == bit_reversed(11000)



@pytest.mark.parametrize("name", ["migrate_skip_range", "migrate_start_counter", "bit_reversed_sequence"])
def test_generated_values_asked_a_block_at_a_time_are_those_of_the_whole(name):
    ddl = strategies.catalogue("spanner")[name].ddl
    whole = generated_values(ddl, np.arange(1, 300_001))
    blocks = [generated_values(ddl, np.arange(first, first + 30_000)) for first in range(1, 300_001, 30_000)]
    assert (np.concatenate(blocks) == whole).all()
    assert (generated_values(ddl, np.array([250_000, 7, 120_000])) == whole[[249_999, 6, 119_999]]).all()


def test_a_late_insert_number_costs_its_block_not_every_number_before_it():
    """A simulation of 100M inserts asks for insert 99,000,001 on: the sequence without a
    skip range computes it directly (the counters before it once took gigabytes)."""
    ddl = strategies.catalogue("spanner")["migrate_start_counter"].ddl
    start = sequence_options(ddl)[0]
    assert generated_values(ddl, np.array([10**15]))[0] == bit_reversed(start + 10**15 - 1)


DETERMINISTIC = [("spanner", n) for n in ("timestamp_first", "hash_shard", "sequential_int", "bit_reversed_app",
                                          "desc_timestamp", "interleaved", "bit_reversed_sequence",
                                          "migrate_skip_range", "hash_shard_generated", "desc_timestamp_first")] + [
    ("bigtable", n) for n in ("timestamp_first", "sequential_id", "reversed_id", "field_promoted", "salted", "hashed",
                              "reverse_domain", "tenant_prefix", "unpadded_numbers", "reverse_timestamp",
                              "forward_domain", "single_row_counter", "reverse_domain_few", "raw_bytes",
                              "aggregated_counter", "new_row_per_reading", "padded_numbers", "table_per_tenant")]


@pytest.mark.parametrize(("backend", "name"), DETERMINISTIC)
def test_vectorised_keys_are_the_per_event_keys(backend, name):
    strategy = strategies.catalogue(backend)[name]
    events = make_events(500, population=300, seed=5, rate_per_s=1000)
    fast = encode_events(strategy, events, seed=5)
    slow = per_event_keys(strategy, events, seed=5)
    assert set(fast) == set(slow)
    for space, (keys, lengths, units) in fast.items():
        assert [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)] == slow[space]
        if units is not None:  # an interleaved space: every key's unit is its root key, UserId
            assert (units == 8).all() and (units < lengths).all()


def test_an_interleaved_space_splits_only_between_root_rows():
    strategy = strategies.catalogue("spanner")["index_interleaved"]
    encoder = KeyEncoder(strategy)
    event = WriteEvent(7, 1_790_000_000_000_000, "", 1)
    written = encoder.write_keys(strategy.key_generator(1).key(event), event)
    assert {space for space, _, _ in written} == {TABLE_SPACE, strategy.indexes[0].name}
    for _, key, unit in written:
        assert unit == 8 and key[:8] == encode_int64(7)  # the root key, Users.UserId, and nothing after it
    uuid_table = KeyEncoder(strategies.catalogue("spanner")["uuid4_string"])
    (_, key, unit), = uuid_table.write_keys(("0c8d0ad4-3b51-4d3a-9a4f-5f0f6c1f5f36",), event)
    assert unit == len(key)


@pytest.mark.parametrize("name", ["uuid4_string", "uuid1", "uuid7", "uuid4_bytes", "index_monotonic"])
def test_vectorised_uuids_have_the_generators_format_and_order(name):
    import uuid

    strategy = strategies.catalogue("spanner")[name]
    events = make_events(2000, population=50, seed=2, rate_per_s=300)
    fast = encode_events(strategy, events, seed=2)[TABLE_SPACE][0]
    slow = per_event_keys(strategy, events, seed=2)[TABLE_SPACE]
    if name == "uuid4_bytes":
        values = [uuid.UUID(bytes=k.ljust(len(k), b"\x00")[:-2].replace(b"\x00\xff", b"\x00")) for k in fast
                  if len(k.replace(b"\x00\xff", b"\x00")) == 18]
    else:
        values = [uuid.UUID(k[:-2].decode()) for k in fast]
    assert values and all(v.version == {"uuid1": 1, "uuid7": 7}.get(name, 4) for v in values)
    if name in ("uuid1", "uuid7"):
        # The time-ordered fields must match the per-event generator's exactly.
        chars = 18 if name == "uuid1" else 13  # time_low-time_mid-time_hi; unix_ms
        fields = [k[:chars] for k in fast]
        assert fields == [k[:chars] for k in slow]
    # Re-encoding the same value through the per-event encoder gives the same bytes.
    encoder = KeyEncoder(strategy)
    if name != "uuid4_bytes":
        assert all(encoder.table_key((str(v),)) == k for v, k in zip(values, fast, strict=True))


def test_key_stream_round_trips_and_merges(tmp_path):
    a, b = KeyStream(), KeyStream()
    a.add_write(TABLE_SPACE, 1.0, b"k\x00\x00")  # trailing NULs must survive the fixed-width arrays
    a.add_write(TABLE_SPACE, 2.0, b"key-two")
    a.add_write("Idx", 1.5, b"\x80\x00")
    a.add_read(1.7, [(b"a", b"b\x00"), (b"", b"")], TABLE_SPACE, "time_window")
    a.add_read(1.8, [], "Idx", "latest_n")
    b.add_writes(TABLE_SPACE, np.array([3.0, 4.0]), np.array([b"zz", b"y"], dtype="S2"))
    b.add_read(3.5, [(b"c", b"")], TABLE_SPACE, "point_read")

    def content(s: KeyStream):
        writes = {sp: (s.writes(sp)[0].tolist(), [s.key_at(sp, i) for i in range(len(s.writes(sp)[0]))])
                  for sp in s.spaces()}
        return writes, list(s.reads(with_operation=True))

    for copy in (KeyStream.from_bytes(a.to_bytes()), KeyStream.load(a.save(tmp_path / "keystream.npz"))):
        assert content(copy) == content(a)
    assert a.mean_key_bytes() == pytest.approx((3 + 7) / 2)

    merged = KeyStream().merge(a).merge(b)
    assert merged.write_count() == 5
    assert merged.writes(TABLE_SPACE)[0].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert [merged.key_at(TABLE_SPACE, i) for i in range(4)] == [b"k\x00\x00", b"key-two", b"zz", b"y"]
    assert [r[3] for r in merged.reads(with_operation=True)] == ["time_window", "latest_n", "point_read"]
    assert content(KeyStream.from_bytes(merged.to_bytes())) == content(merged)


@pytest.mark.parametrize("name", ["index_monotonic", "index_sparse", "index_storing", "index_sharded",
                                  "index_interleaved"])
def test_vectorised_index_keys_are_the_per_event_keys_null_filtered_or_not(name):
    """The catalogue's index designs with a table key that draws nothing random (user, ts), so
    that both paths give the same bytes: a NULL_FILTERED index holds the same rows."""
    strategy = strategies.catalogue("spanner")[name]
    user, ts = (spanner_part({"column": c, "value": v}) for c, v in (("UserId", "user"), ("Ts", "ts")))
    held_columns = {p.column for index in strategy.indexes for p in index.parts}
    parts = tuple(p for p in (user, ts) if p.column not in held_columns) or (user,)
    deterministic = dataclasses.replace(strategy, parts=parts)
    events = make_events(2000, population=300, seed=5, rate_per_s=1000)
    fast = encode_events(deterministic, events, seed=5)
    slow = per_event_keys(deterministic, events, seed=5)
    assert set(fast) == set(slow)
    for space, (keys, lengths, _) in fast.items():
        assert [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)] == slow[space], space


def test_vectorised_spanner_parts_are_the_per_event_values():
    """Every deterministic Spanner part the catalogue does not key a table by: a label, a
    category, a zipf choice, a nullable time and an unread flag (NULL in the table's key)."""
    specs = [{"column": "L", "value": "label", "text": "memusage"},
             {"column": "C", "value": "category", "values": 7},
             {"column": "Z", "value": "zipf", "values": 1000, "exponent": 1.3},
             {"column": "A", "value": "last_access", "order": "desc"},
             {"column": "U", "value": "unread"},
             {"column": "S", "value": "farm_fingerprint_shard", "buckets": 16}]
    strategy = dataclasses.replace(strategies.catalogue("spanner")["timestamp_first"],
                                   parts=tuple(spanner_part(s) for s in specs), indexes=())
    events = make_events(3000, population=300, seed=5, rate_per_s=997)  # times with microseconds
    fast = encode_events(strategy, events, seed=5)
    slow = per_event_keys(strategy, events, seed=5)
    keys, lengths, _ = fast[TABLE_SPACE]
    assert [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)] == slow[TABLE_SPACE]
    assert len(set(lengths.tolist())) > 1, "some rows must hold a NULL, or the test proves nothing"
