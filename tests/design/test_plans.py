from keybench.design import strategies
from keybench.design.keys import bigtable_part, spanner_part
from keybench.design.plans import (
    FULL_SCAN,
    MULTI_PREFIX,
    MULTI_RANGE,
    POINT,
    PREFIX,
    RANGE,
    ReadRequest,
    StoredRow,
    read_plans,
    strategy_plans,
)


def spanner(*specs):
    return tuple(spanner_part(s) for s in specs)


TS = {"column": "LastAccess", "value": "ts"}
USER = {"column": "UserId", "value": "user"}
SHARD = {"column": "ShardId", "value": "shard", "buckets": 16}


def test_timestamp_first_serves_a_time_window_as_one_range_but_a_user_only_by_full_scan():
    plans = read_plans("spanner", spanner(TS, USER), latest_n=10)
    assert (plans["time_window"].access, plans["time_window"].fanout) == (RANGE, 1)
    assert plans["latest_n"].access == FULL_SCAN
    assert plans["point_read"].access == POINT


def test_hash_shard_time_window_fans_out_to_every_shard():
    plans = read_plans("spanner", spanner(SHARD, TS, USER), latest_n=10)
    tw = plans["time_window"]
    assert (tw.access, tw.fanout) == (MULTI_RANGE, 16)
    request = tw.build(1_000, 2_000)
    assert len(request.spans) == 16
    assert {s.lo[0] for s in request.spans} == set(range(16))


def test_user_first_key_serves_latest_n_as_one_prefix():
    plans = read_plans("spanner", spanner(USER, TS), latest_n=10)
    assert (plans["latest_n"].access, plans["latest_n"].fanout) == (PREFIX, 1)
    assert plans["latest_n"].build(7).spans[0].lo == (7,)
    assert plans["time_window"].access == FULL_SCAN


def test_desc_time_after_the_user_lets_the_database_stop_at_n():
    desc = dict(TS, order="desc")
    assert read_plans("spanner", spanner(USER, desc), latest_n=10)["latest_n"].build(3).limit == 10
    assert read_plans("spanner", spanner(USER, TS), latest_n=10)["latest_n"].build(3).limit is None


def test_uuid_key_serves_only_point_reads_as_ranges():
    plans = read_plans("spanner", spanner({"column": "LogId", "value": "uuid4_string"}), latest_n=10)
    assert [plans[op].access for op in ("latest_n", "time_window")] == [FULL_SCAN, FULL_SCAN]


def test_bigtable_salted_device_reads_try_every_salt_and_field_promoted_one_prefix():
    salted = (bigtable_part({"value": "salt", "buckets": 8}), bigtable_part("device"), bigtable_part("ts"))
    promoted = (bigtable_part("device_type"), bigtable_part("device"), bigtable_part("ts"))
    s, p = read_plans("bigtable", salted, 10), read_plans("bigtable", promoted, 10)
    assert (s["prefix_scan"].access, s["prefix_scan"].fanout) == (MULTI_PREFIX, 8)
    assert (p["prefix_scan"].access, p["prefix_scan"].fanout) == (PREFIX, 1)
    assert s["time_window"].access == FULL_SCAN == p["time_window"].access


def test_full_scan_answers_filter_and_range_answers_count_strays():
    rows = [StoredRow(1, 10, "a"), StoredRow(2, 20, "b"), StoredRow(1, 30, "c")]
    scan = ReadRequest(None, wanted=lambda r: r.entity == 1, newest=1)
    assert scan.answer(rows) == ([StoredRow(1, 30, "c")], 0)
    ranged = ReadRequest((), wanted=lambda r: r.entity == 1)
    answer, strays = ranged.answer(rows)
    assert strays == 1 and [r.write_id for r in answer] == ["a", "c"]
    # A point read: the key's range may hold the entity's other rows (versions), not strays.
    point = ReadRequest((), wanted=lambda r: r.write_id == "c", in_range=lambda r: r.entity == 1)
    answer, strays = point.answer(rows)
    assert strays == 1 and [r.write_id for r in answer] == ["c"]


def test_indexes_serve_what_the_table_key_cannot():
    from keybench.design.plans import strategy_plans
    from keybench.design.strategies import catalogue

    spanner_catalogue = catalogue("spanner")
    access = {name: {op: p.access for op, p in strategy_plans(spanner_catalogue[name], 10).items()}
              for name in ("index_monotonic", "index_storing", "index_sharded", "index_interleaved")}
    assert access["index_monotonic"]["time_window"] == "index_range+join"
    assert access["index_storing"]["time_window"] == "index_range"
    assert access["index_sharded"]["time_window"] == "index_multi_range+join"
    assert access["index_interleaved"]["latest_n"] == "index_prefix+join+parent"
    latest = strategy_plans(spanner_catalogue["index_interleaved"], 10)["latest_n"].build(5)
    assert latest.index == "AccessLogByUserTime" and latest.limit == 10


def test_interleaved_designs_read_the_parent_row_with_its_newest_children():
    from keybench.design.plans import strategy_plans
    from keybench.design.strategies import catalogue

    spanner_catalogue = catalogue("spanner")
    desc = strategy_plans(spanner_catalogue["interleaved"], 10)["latest_n"]
    asc = strategy_plans(spanner_catalogue["interleaved_asc"], 10)["latest_n"]
    assert (desc.access, asc.access) == ("prefix+parent", "prefix+parent")
    newest, all_rows = desc.build(5), asc.build(5)
    assert newest.parent and all_rows.parent
    # DESC: the newest rows follow the user's row, so the read stops after 10; ASC must pass
    # over every older row first.
    assert (newest.limit, desc.stops_early) == (10, True) and (all_rows.limit, asc.stops_early) == (None, False)
    assert not strategy_plans(spanner_catalogue["swapped_order"], 10)["latest_n"].build(5).parent


def test_an_entity_read_is_built_once_and_kept_for_the_same_entity():
    plan = strategy_plans(strategies.catalogue("bigtable")["salted"], 10)["prefix_scan"]
    first = plan.build(7)
    assert plan.build(7) is first  # kept: the same request object
    other = plan.build(8)
    assert other is not first and other.spans != first.spans
    assert first.wanted(StoredRow(7, 1, "w")) and not first.wanted(StoredRow(8, 1, "w"))
