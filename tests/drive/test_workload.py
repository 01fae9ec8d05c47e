"""The workload's roles: writers only insert, readers only read, and a slow read never
holds up the writes."""

import collections
import gc

import pytest

from keybench.design import strategies
from keybench.design.plans import READ_OPERATIONS
from keybench.drive.locust_driver import StageEnvironment, StageLoad
from keybench.drive.partition import SOLE, Partition
from keybench.drive.settings import (
    DEFAULT_READERS,
    INSERT,
    READER,
    WRITER,
    Roles,
    WorkloadSettings,
)
from keybench.drive.stage import StageDefinition
from keybench.drive.workload import UserWorkload
from keybench.errors import KeybenchError
from keybench.infra import emulators
from keybench.run.options import RunOptions


def test_by_default_one_user_reads_and_the_rest_write():
    assert DEFAULT_READERS == 1  # the README and --help say so; change them with it
    settings = WorkloadSettings(users=8)
    assert settings.roles("spanner") == settings.roles("bigtable") == Roles(writers=7, readers=1)
    assert WorkloadSettings(users=1).roles("bigtable") == Roles(1, 0)  # one user is a writer
    assert WorkloadSettings(users=8, readers=3).roles("spanner") == Roles(5, 3)


def test_the_mix_decides_which_roles_exist_for_each_backend():
    reads_only = WorkloadSettings(users=4, mix={"point_read": 1, "latest_n": 2})
    assert reads_only.roles("spanner") == Roles(0, 4)
    inserts_only = WorkloadSettings(users=4, readers=2, mix={INSERT: 1})
    assert inserts_only.roles("bigtable") == Roles(4, 0)
    # a Bigtable-only read: Spanner's users all write, Bigtable's split
    bigtable_read = WorkloadSettings(users=4, mix={INSERT: 5, "prefix_scan": 1})
    assert bigtable_read.roles("spanner") == Roles(4, 0)
    assert bigtable_read.roles("bigtable") == Roles(3, 1)


def test_writers_come_first_and_the_workers_of_a_distributed_run_share_out_both_roles():
    settings = WorkloadSettings(users=8, readers=3)
    # a ninth user (added in Locust's web UI) writes
    assert [settings.role("spanner", i, SOLE) for i in range(1, 10)] == [WRITER] * 5 + [READER] * 3 + [WRITER]
    workers = [Partition(i, 3) for i in range(3)]  # Locust gives them 3, 3 and 2 of the 8 users
    roles = [[settings.role("spanner", i, p) for i in range(1, 4 - p.index // 2)] for p in workers]
    assert roles == [[WRITER, WRITER, READER], [WRITER, WRITER, READER], [WRITER, READER]]
    assert [settings.local_roles("spanner", p) for p in workers] == [Roles(2, 1), Roles(2, 1), Roles(1, 1)]


def test_a_writer_only_inserts_and_a_reader_picks_its_reads_by_their_weights():
    settings = WorkloadSettings(users=2, readers=1, mix={INSERT: 8, "point_read": 3, "latest_n": 1, "time_window": 0})
    writer = UserWorkload(settings, "spanner", seed=1, index=2, role=WRITER)
    assert {writer.next_operation() for _ in range(200)} == {INSERT}
    reader = UserWorkload(settings, "spanner", seed=1, index=1, role=READER)
    picks = collections.Counter(reader.next_operation() for _ in range(4000))
    assert picks == {"point_read": 3000, "latest_n": 1000}  # never an insert, never a read of weight 0
    everything = WorkloadSettings(users=2, readers=1)
    reader = UserWorkload(everything, "bigtable", 1, 1, role=READER)
    first_round = [reader.next_operation() for _ in READ_OPERATIONS["bigtable"]]
    assert sorted(first_round) == sorted(READ_OPERATIONS["bigtable"])  # a short stage still samples every read


def test_open_loop_spreads_each_roles_rate_over_that_roles_users():
    settings = WorkloadSettings(users=8, readers=2, insert_rate=600.0, read_rate=4.0)
    assert settings.rate_per_user("spanner", WRITER) == 100.0
    assert settings.rate_per_user("spanner", READER) == 2.0
    pacer = UserWorkload(settings, "spanner", 1, 3, role=WRITER).pacer()
    assert pacer.interval_s == pytest.approx(0.01)
    assert UserWorkload(settings, "spanner", 1, 1, role=READER).read_share() is None  # open loop: no rests


def test_closed_loop_readers_rest_in_proportion_to_what_each_read_took():
    closed = WorkloadSettings(users=8, readers=2, read_share=0.2,
                              mix={INSERT: 8, "point_read": 3, "time_window": 1, "latest_n": 1})
    assert closed.rate_per_user("spanner", WRITER) == closed.rate_per_user("spanner", READER) == 0.0
    reader = UserWorkload(closed, "spanner", 1, 1, role=READER)
    assert reader.pacer() is None
    share = reader.read_share()
    assert share.rest_s == 0.0  # the first read at once
    share.after(None, 0.0)  # it waited for the first row: no read made
    share.after("point_read", 0.005)
    share.after("time_window", 5.0)
    # No rest until each read of the mix has had its turn (a full scan's 20 s rest would end a
    # short stage before the last read ever ran) ...
    assert share.rest_s == 0.0
    share.after("latest_n", 0.0)
    share.after("point_read", 0.005)  # ... then a point read: back soon
    assert share.rest_s == pytest.approx(0.02)
    share.after("time_window", 0.5)  # a slow full scan: a long rest
    assert share.rest_s == pytest.approx(2.0)
    slow_first = UserWorkload(closed, "spanner", 1, 2, role=READER).read_share()
    slow_first.after("time_window", 5.0)
    assert slow_first.rest_s == 0.0  # point_read has not run yet
    assert UserWorkload(closed, "spanner", 1, 3, role=WRITER).read_share() is None  # writers never rest
    assert UserWorkload(WorkloadSettings(users=2, read_share=1.0), "spanner", 1, 1, role=READER).read_share() is None


def test_run_options_hand_every_stage_the_runs_users_readers_and_insert_rate():
    workload = RunOptions(users=6, rate=120.0).workload
    assert (workload.users, workload.readers, workload.insert_rate) == (6, DEFAULT_READERS, 120.0)
    assert RunOptions(users=1).workload.readers == 0
    assert RunOptions(users=6, settings=WorkloadSettings(readers=4)).workload.readers == 4


@pytest.mark.parametrize("options, complaint", [
    (RunOptions(users=4, settings=WorkloadSettings(readers=4)), "--readers 4 leaves no writer among --users 4"),
    (RunOptions(users=4, settings=WorkloadSettings(readers=-1)), "--readers must be between 0 and"),
    (RunOptions(settings=WorkloadSettings(readers=2, mix={"point_read": 1})),
     "--readers 2: --mix gives insert weight 0, so every user reads"),
    (RunOptions(settings=WorkloadSettings(readers=2, mix={INSERT: 1})),
     "--readers 2: --mix gives every read weight 0, so no user reads"),
    (RunOptions(backends=("spanner",), settings=WorkloadSettings(readers=1, mix={INSERT: 1, "prefix_scan": 1})),
     "--mix gives every read weight 0"),
    (RunOptions(rate=50.0, settings=WorkloadSettings(mix={"latest_n": 1})), "--rate paces the writers"),
    (RunOptions(settings=WorkloadSettings(read_rate=5.0, mix={INSERT: 1})),
     "--read-rate 5 paces the readers, and this run has none"),
    (RunOptions(settings=WorkloadSettings(readers=0, read_rate=5.0)), "--read-rate 5 paces the readers"),
    (RunOptions(settings=WorkloadSettings(read_rate=-1.0)), "--read-rate must be between 0 and"),
    (RunOptions(settings=WorkloadSettings(read_share=0.0)), "--read-share must be between 0.01 and 1"),
    (RunOptions(settings=WorkloadSettings(read_share=1.5)), "--read-share must be between 0.01 and 1"),
])
def test_role_options_that_cannot_work_are_refused_in_one_line(options, complaint):
    with pytest.raises(KeybenchError) as refused:
        options.validate()
    assert complaint in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("mix, first", [({INSERT: 1, "point_read": 1}, None), ({"point_read": 1}, INSERT)])
def test_a_reader_with_nothing_to_read_waits_for_the_writers_or_writes_its_own_first_row(emulator_hosts, mix, first):
    """With writers beside it a reader never inserts (an insert can hold it for seconds);
    a reader without writers writes the one row its reads start from."""
    strategy = strategies.catalogue("bigtable")["salted"]
    settings = WorkloadSettings(users=2, mix=mix)
    stage = StageDefinition.of(strategy, settings, seed=4).build()
    try:
        stage.setup()
        reader = next(u for u in (stage.new_user(), stage.new_user()) if u.role == READER)
        assert stage.step(reader) == first
        assert stage.collector.totals() == ((0, 0) if first is None else (1, 0))
    finally:
        stage.teardown()


SLOW_SCAN_ROWS = 5_000  # enough rows that a full scan on the Bigtable emulator takes well over 100 ms
FILL_BATCH = 100


def test_inserts_go_on_while_a_reader_runs_a_slow_full_scan(emulator_hosts):
    """Three Locust users of one stage: the reader's latest_n is a full scan of a full table
    (timestamp_first), and the two writers keep inserting while it runs."""
    strategy = strategies.catalogue("bigtable")["timestamp_first"]
    settings = WorkloadSettings(population=20, users=3, readers=1, mix={INSERT: 1, "latest_n": 1},
                                batch_size=FILL_BATCH)
    locust_stage = StageEnvironment(StageDefinition.of(strategy, settings, seed=3))
    stage = locust_stage.stage
    assert stage.plans["latest_n"].access == "full_scan"
    done = []  # (operation, started, ended) of every operation the users completed, epoch seconds
    try:
        stage.setup()
        filler = UserWorkload(settings, "bigtable", seed=3, index=1000, role=WRITER)  # none of the Locust users
        for _ in range(SLOW_SCAN_ROWS // FILL_BATCH):
            stage.insert(filler)
        locust_stage.env.events.request.add_listener(  # events go out in batches: timed by start_time
            lambda name, response_time, start_time, **_kw: done.append((name, start_time,
                                                                        start_time + response_time / 1000)))
        ep = emulators.Endpoint("bigtable", emulator_hosts["bigtable"], "environment")
        filled = sum(s.requests for s in stage.collector.stats.values())  # before Locust's runner listened
        locust_stage.drive(StageLoad(users=3, spawn_rate=0.0, duration_s=2.0), "roles", ep)
        # The heap the load froze, once a second, is collectable again once the stage is over.
        assert gc.get_freeze_count() == 0
        # Locust's statistics, fed in batches, hold every operation the collector recorded.
        recorded = sum(s.requests for s in stage.collector.stats.values()) - filled
        assert locust_stage.env.stats.total.num_requests == recorded > 0
    finally:
        stage.teardown()
    scans = [(start, end) for name, start, end in done if name == "latest_n"]
    assert scans, "the reader ran no latest_n"
    slow = [(start, end) for start, end in scans if end - start > 0.1]
    assert slow, f"the slowest full scan took only {max(e - s for s, e in scans):.3f} s"
    # Summed over the slow scans: how many inserts land inside one scan depends on how the
    # emulator interleaves a long scan's stream with writes (one CI run saw 2 in a 0.74 s scan).
    inserts_meanwhile = sum(1 for name, _, ended in done if name == INSERT
                            and any(start < ended < end for start, end in slow))
    scanning = sum(end - start for start, end in slow)
    assert inserts_meanwhile >= 3, f"{inserts_meanwhile} inserts completed during {scanning:.3f} s of full scans"


def test_a_zipf_skew_makes_a_few_entities_heavy_and_each_worker_keeps_to_its_own():
    from keybench.drive.partition import Partition
    from keybench.drive.workload import UserWorkload

    settings = WorkloadSettings(population=1000, skew="zipf:1.2")
    user = UserWorkload(settings, "spanner", seed=1, index=0)
    picks = [user.next_entity() for _ in range(20_000)]
    top = max(set(picks), key=picks.count)
    assert top == 1 and 0.2 < picks.count(1) / len(picks) < 0.27  # 1 / sum(k^-1.2, k <= 1000) = 0.23
    uniform = UserWorkload(WorkloadSettings(population=1000), "spanner", seed=1, index=0)
    assert max(map([uniform.next_entity() for _ in range(20_000)].count, range(1, 1001))) < 60
    worker = UserWorkload(settings, "spanner", seed=1, index=0, partition=Partition(1, 3))
    assert {worker.next_entity() % 3 for _ in range(500)} == {2}  # worker 1 of 3: entities 2, 5, 8, ...
    with pytest.raises(KeybenchError, match="--skew must be"):
        WorkloadSettings(skew="zipf").validate(("spanner",))
