"""A stage against the real Bigtable emulator: what each read should have returned,
multi-tenant deletion, and readings kept as versions of one row."""

import dataclasses
import re
import time
import uuid

import pytest
from google.cloud.bigtable.data import ReadRowsQuery

from keybench.backends import open_backend
from keybench.design import strategies
from keybench.drive.settings import WorkloadSettings
from keybench.drive.stage import Stage
from keybench.infra.target import INSTANCE, PROJECT


@pytest.fixture
def stage_of(emulator_hosts):
    made = []

    def make(name, population=50, backend="bigtable", mix=None):
        strategy = strategies.catalogue(backend)[name]
        backend = open_backend(strategy, f"t-{uuid.uuid4().hex[:8]}", PROJECT, INSTANCE)
        settings = WorkloadSettings(population=population) if mix is None else \
            WorkloadSettings(population=population, mix=mix)
        stage = Stage(strategy, backend, settings, seed=5)
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


def test_a_table_per_tenant_stores_each_tenants_rows_in_its_own_table_and_drops_a_tenant_with_its_table(stage_of):
    stage = stage_of("table_per_tenant", population=100)
    assert len(stage.backend.tables) == 20
    fill(stage, 300)
    per_table = {tenant: len(table.read_rows(ReadRowsQuery())) for tenant, table in stage.backend.tables.items()}
    assert sum(per_table.values()) == 300 and sum(1 for n in per_table.values() if n) == 20
    # the row key leaves the tenant out: it names the table
    key = next(iter(stage.backend.tables["tenant05"].read_rows(ReadRowsQuery(limit=1)))).row_key
    assert re.fullmatch(rb"(phone|tablet|watch)#[0-9a-f]{8}#20\d{18}", key), key
    integrity, drop = stage.finish()
    assert integrity.ok and integrity.stored == 300
    assert drop.ok and drop.tenant == "tenant01" and drop.removed == drop.tenant_rows == per_table["tenant01"]
    assert len(stage.backend.write_ids()) == 300 - drop.tenant_rows


def test_table_per_tenant_reads_find_their_rows_in_the_tenants_table(stage_of):
    stage = stage_of("table_per_tenant", population=40)
    fill(stage, 200)
    entity = stage.recent[-1][1].entity
    for op in ("latest_n", "prefix_scan"):
        request = stage.plans[op].build(entity)
        answer, strays = request.answer(stage.backend.read(request.spans, request.limit))
        expected = stage.written.of_entity(entity, time.monotonic_ns())
        assert strays == 0 and {r.write_id for r in answer} <= expected and answer
        if op == "prefix_scan":
            assert {r.write_id for r in answer} == expected
    key, row = stage.recent[-1]
    point = stage.plans["point_read"].build(key, row)
    assert [r.write_id for r in point.answer(stage.backend.read(point.spans))[0]] == [row.write_id]


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


def cells_per_row(stage) -> dict[bytes, int]:
    """Each stored row's key and how many writes (WriteId cells) it holds."""
    return {row.row_key: len(row.get_cells(stage.backend.family, b"w"))
            for row in stage.backend.table.read_rows(ReadRowsQuery())}


def test_aggregated_counter_writes_a_new_row_per_device_and_second_where_single_row_counter_rewrites_one(stage_of):
    aggregated, single = stage_of("aggregated_counter", population=3), stage_of("single_row_counter", population=3)
    users = {stage: stage.new_user() for stage in (aggregated, single)}
    for second in range(3):
        if second:  # into the next second: a new interval, so new rows
            time.sleep(1.0 - time.time() % 1.0 + 0.01)
        for stage, user in users.items():
            for _ in range(40):
                stage.insert(user)
    for stage in (aggregated, single):
        integrity, _ = stage.finish()
        assert integrity.ok and integrity.stored == 120, integrity.describe()
    rows, one_row = cells_per_row(aggregated), cells_per_row(single)
    assert len(one_row) == 3 and sum(one_row.values()) == 120
    assert len(rows) >= 9 and sum(rows.values()) == 120
    assert max(rows.values()) < max(one_row.values())
    assert all(key.split(b"#")[1] == b"memusage" and len(key.split(b"#")[2]) == 14 for key in rows)
    plan = aggregated.plans["latest_n"]
    entity = aggregated.backend.read(None)[0].entity
    answer, strays = plan.build(entity).answer(aggregated.backend.read(plan.build(entity).spans))
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


@pytest.mark.parametrize("name", ["salted", "single_row_counter", "table_per_tenant"])
def test_a_bigtable_row_lost_behind_the_ledger_is_found_by_the_read_back(stage_of, name):
    """The Bigtable audit reads back in its own process: a row deleted behind keybench's back is
    lost there too, whether a row holds one write, one per version, or lives in a tenant's table."""
    from google.cloud.bigtable.data import DeleteAllFromRow

    stage = stage_of(name)
    fill(stage, 20)
    key, _ = stage.recent[3]
    table = stage.backend.tables[stage.backend._tenant(key)]
    survivors = 20 - sum(1 for k, _ in stage.recent if stage.backend.row_key(k) == stage.backend.row_key(key)
                         and stage.backend._tenant(k) == stage.backend._tenant(key))
    table.mutate_row(stage.backend.row_key(key), DeleteAllFromRow())
    integrity = stage.audit()
    assert (integrity.lost, integrity.stored, integrity.ok) == (20 - survivors, survivors, False)
    assert integrity.acknowledged == 20 and integrity.duplicates == integrity.unexpected == 0


def spanner_stage(stage_of, name):
    return stage_of(name, backend="spanner")


def test_a_row_lost_behind_the_ledger_is_a_mismatch_that_fails_the_run(stage_of):
    from google.cloud import spanner

    from keybench.measure.summary import stage_problems, stage_rows

    stage = spanner_stage(stage_of, "swapped_order")
    fill(stage, 20)
    key, _ = stage.recent[3]
    with stage.backend.database.batch() as batch:  # a real delete the ledger knows nothing of
        batch.delete("AccessLog", spanner.KeySet(keys=[list(key)]))
    integrity, _ = stage.finish()
    assert (integrity.lost, integrity.stored, integrity.ok) == (1, 19, False)
    rows = stage_rows(stage.result(seconds=1.0, integrity=integrity, tenant_drop=None, fresh=True, started_epoch_s=0.0))
    assert {r["integrity"] for r in rows} == {"MISMATCH"}
    assert "integrity MISMATCH" in " ".join(stage_problems(stage.strategy, rows, integrity, None))


def test_index_reads_go_through_the_index_and_join_back_only_without_storing(stage_of):
    monotonic, storing = spanner_stage(stage_of, "index_monotonic"), spanner_stage(stage_of, "index_storing")
    for stage in (monotonic, storing):
        fill(stage, 40)
        plan = stage.plans["time_window"]
        rows = [r for _, r in stage.recent]
        t0, t1 = min(r.ts_us for r in rows), max(r.ts_us for r in rows)
        request = plan.build(t0, t1)
        found = {r.write_id for r in stage.backend.read(request.spans, None, None, request.index, request.join)}
        # index_monotonic's LastAccess is NULL for the users who never accessed: the read through
        # its index finds the others only, and the truth expects no more.
        expected = stage.written.in_time_window(t0, t1, time.monotonic_ns(), request.index)
        assert request.index and found == expected
        assert (len(found) < 40) if stage is monotonic else (len(found) == 40), len(found)
    assert monotonic.plans["time_window"].access == "index_range+join"
    assert storing.plans["time_window"].access == "index_range"


def test_the_shard_keybench_computes_is_the_one_the_database_stores(stage_of):
    from keybench.design.events import farm_fingerprint_shard, ts_us_of

    stage = spanner_stage(stage_of, "hash_shard_generated")
    fill(stage, 50)
    with stage.backend.database.snapshot() as snap:
        stored = list(snap.execute_sql("SELECT ShardId, LastAccess FROM AccessLog"))
    assert len(stored) == 50
    assert all(shard == farm_fingerprint_shard(ts_us_of(ts), 2048) for shard, ts in stored)
    assert all(-2048 < shard < 2048 for shard, _ in stored)


# --batch-size: N rows per commit or mutate_rows call, one recorded operation, every row in the ledger


def batched(stage, batch_size):
    stage.settings = dataclasses.replace(stage.settings, batch_size=batch_size)
    return stage


def calls_of(obj, name):
    """Wrap obj.name so the test sees the arguments of every call that reaches it."""
    seen, original = [], getattr(obj, name)

    def spy(*args, **kwargs):
        seen.append((args, kwargs))
        return original(*args, **kwargs)

    setattr(obj, name, spy)
    return seen


def test_bigtable_batch_writes_n_rows_per_mutate_rows_call_and_the_audit_counts_every_row(stage_of):
    from keybench.measure.summary import stage_rows

    stage = batched(stage_of("reverse_timestamp"), 5)
    bulk, single = calls_of(stage.backend.table, "bulk_mutate_rows"), calls_of(stage.backend.table, "mutate_row")
    user = stage.new_user()
    for _ in range(4):
        stage.insert(user)
    assert [len(args[0]) for args, _ in bulk] == [5, 5, 5, 5] and single == []
    stats = stage.collector.stats[stage.series["insert"]]
    assert (stats.requests, stats.rows, stats.failures) == (4, 20, 0)  # one histogram record per call
    assert len(stage.written) == 20 and len(stage.recent) == 20
    integrity, _ = stage.finish()
    assert integrity.ok and (integrity.acknowledged, integrity.stored) == (20, 20)
    [insert_row] = [r for r in stage_rows(stage.result(seconds=1.0, integrity=integrity, tenant_drop=None, fresh=True,
                                                       started_epoch_s=0.0)) if r["operation"] == "insert"]
    assert insert_row["batch_size"] == 5 and insert_row["rows_per_op"] == "5.00"


def test_spanner_batch_commits_n_rows_at_once_and_the_audit_counts_every_row(stage_of):
    stage = batched(spanner_stage(stage_of, "interleaved"), 5)  # parent rows go into the same commit
    commits = calls_of(stage.backend.database.spanner_api, "commit")
    user = stage.new_user()
    for _ in range(3):
        stage.insert(user)
    assert len(commits) == 3
    for args, kwargs in commits:
        request = kwargs.get("request") or args[0]
        inserts = [m.insert for m in request.mutations if m.insert.table == "AccessLog"]
        assert len(inserts) == 1 and len(inserts[0].values) == 5
    integrity, _ = stage.finish()
    assert integrity.ok and (integrity.acknowledged, integrity.stored) == (15, 15)


def test_a_refused_spanner_batch_leaves_each_of_its_rows_to_the_audit(stage_of):
    stage = batched(spanner_stage(stage_of, "swapped_order"), 5)
    user = stage.new_user()
    stage.insert(user)
    taken = stage.recent[0][0]
    make_key, made = stage.generator.key, []

    def third_key_taken(event):
        made.append(event)
        return taken if len(made) == 3 else make_key(event)

    stage.generator.key = third_key_taken
    stage.insert(user)  # the commit is refused whole: ALREADY_EXISTS
    stats = stage.collector.stats[stage.series["insert"]]
    assert (stats.requests, stats.collisions, stats.failures) == (2, 1, 0)
    assert len(stage.collector.ledger.failed) == 5
    integrity = stage.audit()
    assert integrity.ok and (integrity.acknowledged, integrity.stored) == (5, 5)
    assert (integrity.unknown, integrity.unknown_stored) == (5, 0)


def test_batch_size_must_be_positive_and_needs_keys_keybench_makes():
    from keybench.errors import KeybenchError
    from keybench.run import RunOptions, schedule_stages

    with pytest.raises(KeybenchError, match="--batch-size must be between 1 and"):
        RunOptions(settings=WorkloadSettings(batch_size=0)).validate()
    options = RunOptions(backends=("spanner",), strategies=("bit_reversed_sequence",), dialects=("googlesql",),
                         settings=WorkloadSettings(batch_size=10))
    with pytest.raises(KeybenchError, match="keys the database generates"):
        schedule_stages(options)
    assert schedule_stages(dataclasses.replace(options, strategies=("swapped_order",)))


def test_a_stage_spec_travels_as_plain_types_and_builds_the_same_stage(emulator_hosts):
    import json

    from keybench.drive.stage import StageDefinition

    strategy = strategies.catalogue("bigtable")["salted"]
    settings = WorkloadSettings(population=50, payload_bytes=7, timeout_s=3.0, mix={"insert": 1})
    spec = StageDefinition.of(strategy, settings, seed=5)
    travelled = StageDefinition(**json.loads(json.dumps(dataclasses.asdict(spec))))  # as a worker receives it
    stage = travelled.build()
    try:
        assert stage.settings == settings and stage.seed == 5 and stage.tag == spec.tag
        assert stage.backend.location == spec.location
        assert (stage.strategy.label, stage.strategy.directory, stage.strategy.column_families) == (
            strategy.label, strategy.directory, strategy.column_families)
        assert len(stage.backend.payload) == 7  # the payload size arrives with the settings
    finally:
        stage.teardown(drop=False)


class _SilentBackend:
    """An insert that answers only after `answer_after_s`: a database gone quiet. The
    database is not the point here, only who ends the wait."""

    name = "silent"
    counts_aborts = False

    def __init__(self, answer_after_s: float, enforces_deadline: bool):
        self.answer_after_s, self.enforces_deadline = answer_after_s, enforces_deadline

    def insert(self, key, event):
        import gevent

        gevent.sleep(self.answer_after_s)
        return key

    def take_aborts(self) -> int:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("enforces_deadline", [False, True])
def test_a_silent_database_ends_an_insert_at_the_backstop_unless_the_backend_enforces_its_own_deadline(
        enforces_deadline):
    from keybench.drive.stage import DEADLINE_GRACE_S

    strategy = strategies.catalogue("bigtable")["reverse_timestamp"]
    settings = WorkloadSettings(timeout_s=0.1)
    answer_after_s = settings.timeout_s + DEADLINE_GRACE_S + 0.2
    stage = Stage(strategy, _SilentBackend(answer_after_s, enforces_deadline), settings, seed=5)
    started = time.monotonic()
    stage.insert(stage.new_user())
    took = time.monotonic() - started
    stats = next(iter(stage.collector.stats.values()))
    if enforces_deadline:  # no second timer: the backend's own deadline is the one that counts
        assert took >= answer_after_s and stats.failures == 0 and len(stage.collector.ledger.acknowledged) == 1
    else:
        assert took < answer_after_s and stats.failures == 1 and len(stage.collector.ledger.failed) == 1
        assert list(stats.errors) == ["OperationDeadline: no answer within --op-timeout 0.1s"]


def test_a_long_stage_encodes_its_keys_and_moves_its_oldest_rows_to_disk_as_it_goes_and_reads_stay_right(
        stage_of, monkeypatch):
    """Past its backlog a stage encodes its key stream and moves its oldest acknowledged rows
    to disk while its users run (here with thresholds of a few dozen): the backlog stays
    bounded, and every read still expects exactly the rows the database holds."""
    import gevent

    from keybench.design import truth
    from keybench.drive import stage as stage_module

    monkeypatch.setattr(stage_module, "BACKLOG", 40)
    monkeypatch.setattr(stage_module, "BACKLOG_SLICE", 8)
    monkeypatch.setattr(truth, "MEMORY_ROWS", 60)
    stage = stage_of("reverse_timestamp", population=6)
    backlog = []

    def writer():
        user = stage.new_user()
        for _ in range(75):
            stage.insert(user)
            backlog.append(stage.collector.key_stream.backlog())

    gevent.joinall([gevent.spawn(writer) for _ in range(4)], raise_error=True)
    assert stage.collector.totals() == (300, 0)
    assert max(backlog) <= 2 * 40 + 4 and stage.written.in_memory() < 300
    assert stage.collector.key_stream.write_count() == 300  # every key, encoded or not yet
    stored = stage.backend.read(None)
    for entity in range(1, 7):
        expected = stage.written.of_entity(entity, time.monotonic_ns())
        assert expected == {r.write_id for r in stored if r.entity == entity}
    integrity, _ = stage.finish()
    assert integrity.ok and (integrity.acknowledged, integrity.stored) == (300, 300)


@pytest.mark.parametrize("mix, kept", [({"insert": 1}, 0), ({"insert": 3, "point_read": 1}, 40)])
def test_a_stage_keeps_the_rows_reads_check_only_when_its_mix_has_reads_and_counts_every_insert_either_way(
        stage_of, mix, kept):
    """An inserts-only stage keeps no rows for reads to pick from or be checked against (the
    cost of every insert, for nothing); its ledger, key stream and audit count every row."""
    stage = stage_of("reverse_timestamp", population=6, mix=mix)
    fill(stage, 40)
    assert (len(stage.written), len(stage.recent)) == (kept, kept)
    assert stage.collector.key_stream.write_count() == 40
    integrity, _ = stage.finish()
    assert integrity.ok and (integrity.acknowledged, integrity.stored) == (40, 40)
