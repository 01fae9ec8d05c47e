import random
import re
import uuid

import numpy as np
import pytest

from keybench.design import hashing
from keybench.design.events import (
    BUCKET,
    DERIVED,
    ENTITY,
    OPAQUE,
    TIME,
    WriteEvent,
    device_id,
    device_number,
    device_type,
    timestamp,
    ts_us_of,
)
from keybench.design.hashing import bucket_hash, stable_hash
from keybench.design.keys import KeyGenerator, bigtable_part, spanner_part


def events(n=500):
    return [WriteEvent(entity=i % 97 + 1, ts_us=1_700_000_000_000_000 + i * 1_000, write_id=f"w{i}") for i in range(n)]


def test_stable_hash_is_the_same_across_calls_and_differs_between_inputs():
    assert stable_hash("a", 1) == stable_hash("a", 1)
    assert stable_hash("a", 1) != stable_hash("a", 2)


def test_bucket_hash_of_arrays_is_the_hash_of_each_row_and_spreads_over_buckets():
    import numpy as np

    ts = np.arange(-5, 65_531, dtype=np.int64) * 1_000 + 1_790_000_000_000_000
    ts[0] = -1  # a negative number hashes as its two's complement, in both forms
    users = np.arange(len(ts), dtype=np.int64) % 997 + 1
    rows = bucket_hash(ts, users)
    assert rows.dtype == np.uint64
    assert [int(h) for h in rows[:300]] == [bucket_hash(int(t), int(u)) for t, u in zip(ts[:300], users[:300],
                                                                                        strict=True)]
    assert [int(h) for h in bucket_hash(7, users[:50])] == [bucket_hash(7, int(u)) for u in users[:50]]
    # hashed a block of rows at a time: rows on both sides of each block's edge, an int before,
    # between and after the arrays
    edges = [i for lo in range(0, len(ts), hashing.ROWS_BLOCK) for i in (lo - 1, lo) if 0 <= i < len(ts)]
    assert len(edges) > 2
    mixed = bucket_hash(3, ts, -4, users, 2**64 - 1)
    assert [int(mixed[i]) for i in edges] == [bucket_hash(3, int(ts[i]), -4, int(users[i]), 2**64 - 1) for i in edges]
    assert bucket_hash(1, 2) != bucket_hash(2, 1) and bucket_hash(1, 2) < 2**64
    shards = np.bincount((rows % np.uint64(64)).astype(np.int64), minlength=64)
    assert shards.min() > 0.9 * len(rows) / 64 and shards.max() < 1.1 * len(rows) / 64


def test_device_number_of_an_array_is_each_entitys():
    import numpy as np

    entities = np.array([1, 2, 2**31, 10**9 - 1], dtype=np.uint64)
    assert [int(n) for n in device_number(entities)] == [int(device_id(int(e)), 16) for e in entities]


def test_device_ids_look_like_the_documents_and_types_come_from_a_small_set():
    ids = {device_id(i) for i in range(1, 200)}
    assert all(re.fullmatch(r"[0-9a-f]{8}", d) for d in ids)
    assert len(ids) == 199
    assert {device_type(i) for i in range(1, 200)} == {"phone", "tablet", "watch"}


def test_timestamps_round_trip_in_microseconds():
    us = 1_795_328_512_191_904
    assert ts_us_of(timestamp(us)) == us


def test_spanner_hash_shard_stays_within_its_buckets_and_uses_all_of_them():
    part = spanner_part({"column": "ShardId", "value": "shard", "buckets": 16, "of": ["ts", "user"]})
    assert part.role == BUCKET and part.buckets == tuple(range(16))
    gen = KeyGenerator((part,), seed=1)
    shards = [gen.key(e)[0] for e in events()]
    assert set(shards) == set(range(16))


def test_spanner_uuid4_keys_are_version_4_and_replay_with_the_same_seed():
    part = spanner_part({"column": "LogId", "value": "uuid4_string"})
    assert part.role == OPAQUE
    first = [KeyGenerator((part,), seed=7).key(e)[0] for e in events(50)]
    again = [KeyGenerator((part,), seed=7).key(e)[0] for e in events(50)]
    other = [KeyGenerator((part,), seed=8).key(e)[0] for e in events(50)]
    assert first == again and first != other
    assert all(uuid.UUID(k).version == 4 and len(k) == 36 for k in first)


def test_last_access_is_the_time_or_null_for_one_write_in_four_the_same_for_the_same_write():
    part = spanner_part({"column": "LastAccess", "value": "last_access"})
    assert part.role == TIME
    written = events(4000)
    values = [part.compute(e, None) for e in written]
    assert values == [part.compute(e, None) for e in written]  # the row and its index entry agree
    nulls = sum(v is None for v in values)
    assert 0.2 < nulls / len(values) < 0.3, nulls
    assert all(v is None or v == timestamp(e.ts_us) for v, e in zip(values, written, strict=True))
    # A read's bounds take the value as set, never a NULL.
    assert all(part.value_when_set(e, None) == timestamp(e.ts_us) for e in written)


def test_spanner_timestamp_first_keys_sort_in_time_order():
    gen = KeyGenerator((spanner_part({"column": "LastAccess", "value": "ts"}),
                        spanner_part({"column": "UserId", "value": "user"})))
    keys = [gen.key(e) for e in events()]
    assert keys == sorted(keys)


def test_bigtable_timestamp_first_row_keys_sort_in_time_order_as_bytes():
    gen = KeyGenerator((bigtable_part("ts"), bigtable_part("device")), separator="#")
    row_keys = [gen.row_key(gen.key(e)) for e in events()]
    assert row_keys == sorted(row_keys)
    assert re.fullmatch(rb"\d{16}#[0-9a-f]{8}", row_keys[0])


def test_bigtable_field_promoted_goes_from_general_to_specific():
    parts = (bigtable_part("device_type"), bigtable_part("device"), bigtable_part("ts"))
    assert [p.role for p in parts] == [DERIVED, ENTITY, TIME]
    gen = KeyGenerator(parts, separator="#")
    e = WriteEvent(42, 1_700_000_000_000_000, "w")
    assert gen.row_key(gen.key(e)) == f"{device_type(42)}#{device_id(42)}#1700000000000000".encode()


def test_bigtable_salt_is_zero_padded_within_n_and_spreads_one_device_over_all_buckets():
    salt = bigtable_part({"value": "salt", "buckets": 12, "of": ["device", "ts"]})
    gen = KeyGenerator((salt, bigtable_part("device"), bigtable_part("ts")), separator="#")
    one_device = [WriteEvent(5, 1_700_000_000_000_000 + i, "w") for i in range(400)]
    salts = {gen.key(e)[0] for e in one_device}
    assert salts == {f"{i:02d}" for i in range(12)}


def test_unknown_key_values_are_refused_with_the_known_ones():
    for make, spec in ((spanner_part, {"column": "X", "value": "nope"}), (bigtable_part, {"value": "nope"})):
        try:
            make(spec)
        except ValueError as exc:
            assert "nope" in str(exc) and "known" in str(exc)
        else:
            raise AssertionError("accepted an unknown key value")


def bigtable_key(*specs, event):
    gen = KeyGenerator(tuple(bigtable_part(s) for s in specs), separator="#")
    return gen.row_key(gen.key(event)).decode()


E42 = WriteEvent(entity=42, ts_us=1_700_000_000_000_000, write_id="w", seq=42)


def test_sequential_ids_are_zero_padded_and_reversed_ids_read_backwards():
    assert bigtable_key({"value": "sequence", "width": 8}, event=E42) == "00000042"
    assert bigtable_key({"value": "reversed_sequence", "width": 8}, event=E42) == "24000000"


def test_reversed_ids_of_consecutive_users_land_far_apart():
    keys = [bigtable_key({"value": "reversed_sequence", "width": 8}, event=WriteEvent(1, 0, "w", n))
            for n in range(1000, 1010)]
    assert len({k[0] for k in keys}) == 10  # ten consecutive ids, ten different leading digits


def test_reverse_timestamps_sort_newest_first_as_long_max_minus_ts():
    events = [WriteEvent(7, 1_700_000_000_000_000 + i * 1_000, "w") for i in range(50)]
    keys = [bigtable_key("device", "reverse_ts", event=e) for e in events]
    assert keys == sorted(keys, reverse=True)
    assert keys[0].endswith(f"#{2**63 - 1 - events[0].ts_us:019d}")


def test_domains_reverse_so_a_site_is_one_prefix():
    rev = bigtable_key({"value": "reverse_domain", "separator": "."}, "subdomain", "ts", event=E42)
    fwd = bigtable_key({"value": "subdomain", "separator": "."}, "domain", "ts", event=E42)
    assert rev.startswith("com.example0042.") and fwd.split("#")[0].endswith(".example0042.com")
    assert rev.split("#")[0].split(".")[2] == fwd.split(".")[0]


def test_unpadded_numbers_sort_as_text_and_padded_ones_as_numbers():
    unpadded = sorted(bigtable_key("number", event=WriteEvent(1, 0, "w", n)) for n in (3, 20, 100))
    padded = sorted(bigtable_key({"value": "sequence"}, event=WriteEvent(1, 0, "w", n)) for n in (3, 20, 100))
    assert unpadded == ["100", "20", "3"]
    assert [int(k) for k in padded] == [3, 20, 100]


def test_tenant_label_and_hash_parts():
    key = bigtable_key("tenant", "device_type", "device", "ts", event=E42)
    assert key.startswith("tenant02#") and key.count("#") == 3
    assert bigtable_key("device", {"value": "label", "text": "memusage"}, event=E42).endswith("#memusage")
    hashed = {bigtable_key("hash", event=WriteEvent(1, t, "w")) for t in range(100)}
    assert len(hashed) == 100 and all(re.fullmatch(r"[0-9a-f]{16}", h) for h in hashed)


def spanner_keys(value, n=200, step_us=1_000):
    gen = KeyGenerator((spanner_part({"column": "LogId", "value": value}),), seed=3)
    return [gen.key(WriteEvent(1, 1_795_000_000_000_000 + i * step_us, "w", seq=i + 1))[0] for i in range(n)]


def test_uuid1_keys_are_version_1_and_sort_by_time_within_minutes():
    keys = spanner_keys("uuid1")
    assert all(uuid.UUID(k).version == 1 for k in keys)
    assert keys == sorted(keys)  # 200 ms of inserts: the low time bits only grow


def test_uuid7_keys_are_version_7_and_sort_by_time():
    keys = spanner_keys("uuid7", step_us=1_000_000)
    assert all(uuid.UUID(k).version == 7 for k in keys)
    assert keys == sorted(keys)


def test_uuid4_bytes_are_16_random_bytes():
    keys = spanner_keys("uuid4_bytes")
    assert all(isinstance(k, bytes) and len(k) == 16 and uuid.UUID(bytes=k).version == 4 for k in keys)
    assert keys != sorted(keys)


def test_bit_reversed_counters_are_positive_int64_spread_over_the_range():
    keys = spanner_keys("bit_reversed_sequence", n=1024)
    assert all(0 < k < 2**63 for k in keys) and len(set(keys)) == 1024
    assert keys[:3] == [2**62, 2**61, 2**62 + 2**61]
    eighths = {k * 8 // 2**63 for k in keys}
    assert eighths == set(range(8))  # every eighth of the positive range gets keys


def test_sequential_int_counts_up():
    assert spanner_keys("sequence", n=5) == [1, 2, 3, 4, 5]


def test_spanner_timestamp_text_matches_cast_as_string():
    from keybench.design.events import spanner_timestamp_text

    base = 1_795_330_800_000_000  # 2026-11-22 07:00:00 UTC, winter: UTC-8 in Los Angeles
    assert spanner_timestamp_text(base + 123_456) == "2026-11-21 23:00:00.123456-08"
    assert spanner_timestamp_text(base + 120_000) == "2026-11-21 23:00:00.120-08"
    assert spanner_timestamp_text(base) == "2026-11-21 23:00:00-08"
    assert spanner_timestamp_text(base - 150 * 86_400_000_000).endswith("-07")  # summer time


def test_farm_fingerprint_shards_span_both_signs_within_2048():
    from keybench.design.events import farm_fingerprint_shard

    shards = [farm_fingerprint_shard(1_795_590_000_000_000 + i * 997, 2048) for i in range(3000)]
    assert all(-2048 < s < 2048 for s in shards)
    assert min(shards) < -1500 and max(shards) > 1500


def test_a_preload_holds_the_keys_a_scenario_needs_and_no_more_rows():
    from keybench.design.keys import preload_keys

    keys = preload_keys("uint32", 2000, seed=1, with_keys=(2**31,))
    assert keys[0] == 2**31 and len(keys) == len(set(keys)) == 2000
    assert all(1 <= k <= 2**32 for k in keys)


def test_the_skip_range_fixture_starts_where_the_unskipped_sequence_would_hit_a_source_key():
    import numpy as np

    from keybench.design.byteorder import generated_values, sequence_options
    from keybench.design.hashing import bit_reversed
    from keybench.design.strategies import catalogue

    unit = catalogue("spanner")["migrate_skip_range"]
    start, skip_min, skip_max = sequence_options(unit.ddl)
    assert bit_reversed(start) in unit.preload["with_keys"] and skip_min <= bit_reversed(start) <= skip_max
    assert int(generated_values(unit.ddl, np.array([1]))[0]) == bit_reversed(start + 1)


def test_a_uuid_pair_of_int64_carries_a_version_4_uuid():
    from keybench.design.uuids import uuid4_high, uuid4_low

    rng = random.Random(3)
    for _ in range(200):
        high, low = uuid4_high(rng), uuid4_low(rng)
        value = uuid.UUID(int=(high % 2**64) << 64 | (low % 2**64))
        assert value.version == 4 and value.variant == uuid.RFC_4122
        assert -2**63 <= high < 2**63 and -2**63 <= low < 2**63


def test_raw_byte_row_keys_are_the_device_id_and_time_as_bytes():
    from keybench.design.events import WriteEvent, device_id
    from keybench.design.keys import KeyGenerator, bigtable_part

    generator = KeyGenerator((bigtable_part("device_bytes"), bigtable_part("ts_bytes")), separator="")
    key = generator.row_key(generator.key(WriteEvent(42, 1_700_000_000_000_000, "w")))
    assert key == bytes.fromhex(device_id(42)) + (1_700_000_000_000_000).to_bytes(8, "big")


def test_few_domains_are_shared_by_all_devices():
    from keybench.design.events import WriteEvent
    from keybench.design.keys import bigtable_part

    part = bigtable_part({"value": "reverse_domain", "domains": 2})
    assert len({part.compute(WriteEvent(e, 0, ""), None) for e in range(1, 1001)}) == 2 == len(part.buckets)


@pytest.mark.parametrize("name, form", [
    # the documents' examples: phone#4c410523#20200501 and altostrat#phone#4c410523#20190501
    ("field_promoted", rb"(phone|tablet|watch)#[0-9a-f]{8}#20\d{6}\d{12}"),
    ("tenant_prefix", rb"tenant\d\d#(phone|tablet|watch)#[0-9a-f]{8}#20\d{6}\d{12}"),
])
def test_generated_row_keys_look_like_the_documents_examples(name, form):
    from keybench.design.strategies import catalogue

    strategy = catalogue("bigtable")[name]
    generator = strategy.key_generator(1)
    event = WriteEvent(42, 1_795_000_000_123_456, "w")
    key = generator.row_key(generator.key(event))
    assert re.fullmatch(form, key), key
    assert key.endswith(b"#" + timestamp(event.ts_us).strftime("%Y%m%d%H%M%S%f").encode())


def test_an_interval_part_puts_one_devices_writes_of_one_interval_on_one_row():
    from keybench.design.strategies import catalogue

    generator = catalogue("bigtable")["aggregated_counter"].key_generator(1)
    start = 1_795_000_000_000_000  # a whole second
    row = lambda entity, ts_us: generator.row_key(generator.key(WriteEvent(entity, ts_us, "w")))  # noqa: E731
    # the documents' form 4c410523#memusage#1423523569918, with the interval's start to the second
    assert re.fullmatch(rb"[0-9a-f]{8}#memusage#" + timestamp(start).strftime("%Y%m%d%H%M%S").encode(), row(42, start))
    assert row(42, start) == row(42, start + 999_999) != row(42, start + 1_000_000)
    assert row(42, start) != row(43, start)


@pytest.mark.parametrize("seconds", [0, -1, 366 * 86_400 + 1, 1.5, True, None])
def test_an_interval_part_needs_a_length_in_whole_seconds(seconds):
    with pytest.raises(ValueError, match="'seconds'"):
        bigtable_part({"value": "interval", "seconds": seconds})


def test_a_time_window_over_interval_rows_counts_the_rest_of_their_intervals_as_in_range():
    from keybench.design.keys import KeyGenerator
    from keybench.design.plans import StoredRow, bounded_plan

    parts = (bigtable_part({"value": "interval", "seconds": 10}), bigtable_part("device"))
    lo, hi = 1_795_000_003_000_000, 1_795_000_012_000_000  # 3 s into one interval, 2 s into the next
    request = bounded_plan("time_window", "time", parts).build(lo, hi)
    rows = [StoredRow(1, t, str(t)) for t in (1_795_000_000_000_000, lo, hi, 1_795_000_019_999_999)]
    answer, strays = request.answer(rows)
    assert [r.ts_us for r in answer] == [lo, hi] and strays == 0
    assert request.answer([StoredRow(1, 1_795_000_020_000_000, "next")])[1] == 1
    assert KeyGenerator(parts).key(WriteEvent(1, lo,
                                              "w"))[0] == timestamp(1_795_000_000_000_000).strftime("%Y%m%d%H%M%S")


def test_a_tenant_part_spreads_devices_over_its_tenants():
    assert bigtable_part("tenant").buckets == tuple(f"tenant{i:02d}" for i in range(20))
    many = bigtable_part({"value": "tenant", "tenants": 1001})
    assert len(many.buckets) == 1001 and many.of_entity(1000) == "tenant1000" and many.of_entity(1001) == "tenant0000"
    with pytest.raises(ValueError, match="'tenants'"):
        bigtable_part({"value": "tenant", "tenants": 0})


def test_fingerprint64_of_many_rows_is_farmhashs():
    import farmhash

    from keybench.design.hashing import FINGERPRINT_WIDTHS, fingerprint64_rows

    rng = np.random.default_rng(2)
    for width in (*FINGERPRINT_WIDTHS, 5, 40):  # the numpy widths, and two it leaves to farmhash
        matrix = rng.integers(0, 256, size=(300, width), dtype=np.uint8)
        assert fingerprint64_rows(matrix).tolist() == [farmhash.fingerprint64(bytes(r)) for r in matrix], width


def test_stable_hashes_of_columns_are_stable_hash_of_each_row():
    from keybench.design.hashing import stable_hashes

    entity, ts = np.array([1, 2, 3, 2**40], dtype=np.int64), np.array([0, -5, 10**15, 7], dtype=np.int64)
    assert stable_hashes("row", entity, ts).tolist() == [stable_hash("row", int(e), int(t))
                                                         for e, t in zip(entity, ts, strict=True)]
    assert stable_hash("row", 1, 2) != stable_hash("col", 1, 2)  # the tag counts
