"""A stage against the real Bigtable emulator: what each read should have returned,
multi-tenant deletion, and readings kept as versions of one row."""

import time
import uuid

import pytest

from loadtests import strategies
from loadtests.stage import INSTANCE, PROJECT, Stage, make_backend
from loadtests.workload import WorkloadSettings


@pytest.fixture
def stage_of(emulator_hosts):
    made = []

    def make(name, population=50, backend="bigtable"):
        strategy = strategies.catalogue(backend)[name]
        backend = make_backend(strategy, f"t-{uuid.uuid4().hex[:8]}", PROJECT, INSTANCE)
        stage = Stage(strategy, backend, WorkloadSettings(population=population), seed=5)
        stage.setup()
        made.append(stage)
        return stage

    yield make
    for stage in made:
        stage.teardown()


def fill(stage, n):
    user = stage.new_user()
    for _ in range(n):
        stage.insert(user)
    assert stage.collector.totals() == (n, 0)


def number_range(stage, first, last):
    series = stage.series["number_range"]
    before = (stage.collector.stats[series].strays, stage.collector.stats[series].missing)
    now = time.monotonic_ns()
    stage.read("number_range", stage.plans["number_range"].build(first, last),
               lambda answer: stage.written.in_number_range(first, last, now))
    stats = stage.collector.stats[series]
    assert stats.failures == 0
    return stats.strays - before[0], stats.missing - before[1]


def test_unpadded_numbers_read_wrong_and_miss_rows_where_the_padded_twin_is_exact(stage_of):
    unpadded, padded = stage_of("unpadded_numbers"), stage_of("padded_numbers")
    fill(unpadded, 150)
    fill(padded, 150)
    # "10".."20" as text also holds 100..150 and 2; "95".."105" is an inverted, empty range.
    assert number_range(unpadded, 10, 20) == (52, 0)
    assert number_range(unpadded, 95, 105) == (0, 11)
    assert number_range(padded, 10, 20) == (0, 0)
    assert number_range(padded, 95, 105) == (0, 0)


def test_dropping_a_tenant_by_prefix_removes_exactly_its_rows(stage_of):
    stage = stage_of("tenant_prefix", population=100)
    fill(stage, 300)
    integrity, drop = stage.finish()
    assert integrity.ok and integrity.stored == 300
    assert drop.ok and drop.tenant == "tenant01" and drop.removed == drop.tenant_rows > 0
    assert len(stage.backend.write_ids()) == 300 - drop.tenant_rows


def test_designs_without_a_tenant_prefix_have_no_tenant_drop(stage_of):
    stage = stage_of("field_promoted")
    fill(stage, 10)
    assert stage.finish()[1] is None


def test_single_row_counter_keeps_every_reading_as_a_version_of_one_row_per_device(stage_of):
    stage = stage_of("single_row_counter", population=3)
    fill(stage, 120)
    integrity, _ = stage.finish()
    assert integrity.ok and integrity.stored == 120
    rows = stage.backend.read(None)
    assert len({r.entity for r in rows}) == 3 and len(rows) == 120
    plan = stage.plans["latest_n"]
    entity = rows[0].entity
    answer, strays = plan.build(entity).answer(stage.backend.read(plan.build(entity).spans))
    assert strays == 0 and len(answer) == 10
    assert answer == sorted(answer, key=lambda r: r.ts_us, reverse=True)


def test_reverse_timestamp_latest_n_stops_at_n_rows_in_the_database(stage_of):
    stage = stage_of("reverse_timestamp", population=2)
    fill(stage, 60)
    request = stage.plans["latest_n"].build(1)
    raw = stage.backend.read(request.spans, request.limit)
    assert request.limit == 10 and len(raw) == 10
    newest = sorted((r for r in stage.backend.read(None) if r.entity == 1), key=lambda r: -r.ts_us)[:10]
    assert raw == newest


def spanner_stage(stage_of, name):
    return stage_of(name, backend="spanner")


def test_a_row_lost_behind_the_ledger_is_a_mismatch_that_fails_the_run(stage_of):
    from google.cloud import spanner

    from loadtests.results import stage_problems, stage_rows

    stage = spanner_stage(stage_of, "swapped_order")
    fill(stage, 20)
    key, _ = stage.recent[3]
    with stage.backend.database.batch() as batch:  # a real delete the ledger knows nothing of
        batch.delete("AccessLog", spanner.KeySet(keys=[list(key)]))
    integrity, _ = stage.finish()
    assert (integrity.lost, integrity.stored, integrity.ok) == (1, 19, False)
    rows = stage_rows(stage, 1.0, integrity, None, True)
    assert {r["integrity"] for r in rows} == {"MISMATCH"}
    assert "integrity MISMATCH" in " ".join(stage_problems(stage, rows, integrity, None))


def test_index_reads_go_through_the_index_and_join_back_only_without_storing(stage_of):
    monotonic, storing = spanner_stage(stage_of, "index_monotonic"), spanner_stage(stage_of, "index_storing")
    for stage in (monotonic, storing):
        fill(stage, 40)
        plan = stage.plans["time_window"]
        rows = [r for _, r in stage.recent]
        request = plan.build(min(r.ts_us for r in rows), max(r.ts_us for r in rows))
        assert request.index and len(stage.backend.read(request.spans, None, None, request.index, request.join)) == 40
    assert monotonic.plans["time_window"].access == "index_range+join"
    assert storing.plans["time_window"].access == "index_range"


def test_the_shard_keybench_computes_is_the_one_the_database_stores(stage_of):
    from loadtests.keys import farm_fingerprint_shard, ts_us_of

    stage = spanner_stage(stage_of, "hash_shard_generated")
    fill(stage, 50)
    with stage.backend.database.snapshot() as snap:
        stored = list(snap.execute_sql("SELECT ShardId, LastAccess FROM AccessLog"))
    assert len(stored) == 50
    assert all(shard == farm_fingerprint_shard(ts_us_of(ts), 2048) for shard, ts in stored)
    assert all(-2048 < shard < 2048 for shard, _ in stored)
