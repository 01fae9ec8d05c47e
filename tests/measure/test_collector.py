import json
import time

import numpy as np
from locust.event import Events

from keybench.measure.collector import Collector, Measurement, Series

SERIES = Series("spanner", "timestamp_first", "googlesql", "insert")


def test_timed_block_records_latency_in_microseconds():
    c = Collector()
    c.register(SERIES, "write")
    for _ in range(5):
        with c.timed(SERIES):
            time.sleep(0.002)
    stats = c.stats[SERIES]
    assert stats.requests == 5 and stats.failures == 0
    # microseconds: at least the sleep; the upper bound is loose enough for a loaded machine,
    # and a unit error (milliseconds, or nanoseconds) is 1,000 times off either way
    assert 1_900 <= stats.histogram.get_value_at_percentile(50) <= 500_000


def test_an_exception_inside_is_a_counted_failure_not_a_crash():
    c = Collector()
    c.register(SERIES, "write")
    with c.timed(SERIES) as m:
        m.rows = 3
        raise RuntimeError("deadline exceeded")
    stats = c.stats[SERIES]
    assert (stats.requests, stats.failures, stats.rows) == (1, 1, 0)
    assert stats.errors == {"RuntimeError: deadline exceeded": 1}


def test_every_operation_is_also_a_locust_request_event_named_by_strategy_and_operation():
    events, seen = Events(), []
    events.request.add_listener(lambda **kw: seen.append(kw))
    c = Collector(events)
    c.register(SERIES, "write")
    before = time.time()
    with c.timed(SERIES) as m:
        m.rows = 1
    c.settle()
    assert seen[0]["request_type"] == "spanner:timestamp_first" and seen[0]["name"] == "insert"
    assert seen[0]["exception"] is None and seen[0]["response_length"] == 0  # Locust's column is bytes
    assert before <= seen[0]["start_time"] <= time.time()


def test_operations_are_recorded_in_batches_with_their_locust_events_and_none_is_lost():
    from keybench.measure import collector

    events, seen = Events(), []
    events.request.add_listener(lambda **kw: seen.append(kw))
    c = Collector(events)
    c.register(SERIES, "write")
    with c.timed(SERIES):
        pass  # the first operation: the batch's clock starts
    fired_first = len(seen)
    for _ in range(collector.RECORD_BATCH - 1):
        with c.timed(SERIES):
            pass
    assert len(seen) == fired_first, "fired before the batch was full or old"
    with c.timed(SERIES) as m:
        m.error = RuntimeError("refused")
    assert len(seen) == fired_first + collector.RECORD_BATCH  # a full batch goes out at once
    time.sleep(collector.RECORD_EVERY_S)
    with c.timed(SERIES):
        pass  # an old batch goes out with the next operation
    assert len(seen) == c.stats[SERIES].requests
    with c.timed(SERIES):
        pass
    assert len(seen) == fired_first + collector.RECORD_BATCH + 1
    # Reading the statistics settles what was kept aside, and fires its events.
    assert c.stats[SERIES].requests == fired_first + collector.RECORD_BATCH + 2 == len(seen)
    assert [type(kw["exception"]).__name__ for kw in seen].count("RuntimeError") == 1


def test_ledger_moves_writes_from_attempted_to_acknowledged_or_failed():
    c = Collector()
    for w in ("a", "b", "c"):
        c.attempt(w)
    c.acknowledge("a")
    c.fail("b")
    assert (c.ledger.acknowledged, c.ledger.failed, c.ledger.attempted) == ({"a"}, {"b"}, {"c"})


def _busy(seconds: float) -> None:
    """An operation that takes exactly `seconds` (a sleep may overshoot; a spin does not)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_summary_percentiles_match_known_latencies_where_locust_rounds_them_away():
    """Known latencies recorded as they are (no clock involved, so a loaded machine cannot move
    them): keybench's p50 keeps them to HdrHistogram's precision, Locust's rounds the smallest away."""
    from locust.stats import RequestStats

    from keybench.design.strategies import catalogue
    from keybench.measure.audit import Integrity
    from keybench.measure.summary import provenance_columns, summary_row

    events, locust_stats = Events(), RequestStats()
    events.request.add_listener(lambda request_type, name, response_time, response_length, **kw:
                                locust_stats.log_request(request_type, name, response_time, response_length))
    c = Collector(events)
    clean = Integrity(0, 0, 0, 0, 0, 0, 0)
    for seconds in (0.0002, 0.002, 0.02):
        series = Series("bigtable", "fake", "", f"sleep_{seconds * 1000:g}ms")
        c.register(series, "point")
        for _ in range(200):
            c.record(series, seconds, Measurement())
        c.settle()
        row = summary_row(series, c.stats[series], 1.0, clean, True,
                          provenance_columns(catalogue("bigtable")["salted"]))
        true_ms = seconds * 1000
        assert abs(float(row["p50_ms"]) - true_ms) <= 0.01 * true_ms, (true_ms, row["p50_ms"])
        # Locust's "50%" (its CSV and UI percentiles) keeps whole milliseconds below 100 ms.
        locust_p50 = locust_stats.get(series.operation, series.request_type).get_response_time_percentile(0.5)
        if seconds == 0.0002:
            assert abs(locust_p50 - true_ms) > 0.05 * true_ms, locust_p50


def test_intended_latency_counts_the_wait_behind_a_late_schedule():
    c = Collector()
    c.register(SERIES, "write")
    due = time.perf_counter() - 0.050  # the schedule made it due 50 ms ago
    with c.timed(SERIES, intended=due):
        _busy(0.001)
    stats = c.stats[SERIES]
    service_us = stats.histogram.get_value_at_percentile(50)
    intended_us = stats.intended.get_value_at_percentile(50)
    assert 900 <= service_us <= 500_000
    # the intended latency adds the 50 ms the operation started late (to HdrHistogram's precision)
    assert 49_000 <= intended_us - service_us <= 500_000, (service_us, intended_us)


def test_a_worker_snapshot_absorbed_by_the_master_adds_up_and_replaces_nothing():
    workers = [Collector(), Collector()]
    for i, w in enumerate(workers):
        w.register(SERIES, "write")
        for n in range(3 + i):
            w.attempt(f"w{i}-{n}")
            with w.timed(SERIES) as m:
                m.rows = 1
            w.acknowledge(f"w{i}-{n}")
    master = Collector()
    for w in workers:
        master.absorb(json.loads(json.dumps(w.snapshot())))  # as it travels: plain types only
    stats = master.stats[SERIES]
    assert (stats.requests, stats.rows, stats.histogram.get_total_count()) == (7, 7, 7)
    assert master.ledger.acknowledged == {f"w{i}-{n}" for i in range(2) for n in range(3 + i)}
    assert sum(s.ops for s in master.seconds.values()) == 7


def test_aborts_are_counted_like_every_other_count_and_travel_in_the_snapshot():
    worker = Collector()
    worker.register(SERIES, "write")
    for aborts in (0, 2, 1):
        with worker.timed(SERIES) as m:
            m.rows, m.aborts = 1, aborts
    assert worker.stats[SERIES].aborts == 3
    master = Collector()
    master.register(SERIES, "write")
    snapshot = json.loads(json.dumps(worker.snapshot()))
    master.absorb_all([snapshot])
    master.absorb_all([snapshot])  # a later gather replaces the earlier merge: nothing counted twice
    assert (master.stats[SERIES].aborts, master.stats[SERIES].requests) == (3, 3)


def test_absorb_all_keeps_the_masters_operation_order():
    read = Series("spanner", "timestamp_first", "googlesql", "point_read")
    worker = Collector()
    for series in (read, SERIES):  # the worker saw the read first
        worker.register(series, "point")
        with worker.timed(series):
            pass
    master = Collector()
    master.register(SERIES, "write")
    master.register(read, "point")
    master.absorb_all([worker.snapshot()])
    assert list(master.stats) == [SERIES, read] and master.stats[SERIES].access == "write"


def test_operations_land_in_the_second_they_ended_in_per_series_even_when_series_alternate(monkeypatch):
    other = Series("spanner", "timestamp_first", "googlesql", "point_read")
    c = Collector()
    c.register(SERIES, "write")
    c.register(other, "point")
    now = [1_000.2]
    monkeypatch.setattr(time, "time", lambda: now[0])
    for at, series in ((1_000.2, SERIES), (1_000.5, other), (1_000.9, SERIES), (1_001.1, other), (1_001.3, SERIES),
                       (1_002.0, SERIES), (1_002.5, other)):
        now[0] = at
        with c.timed(series):
            pass
    ops = {(second, series.operation): s.ops for (second, series), s in c.seconds.items()}
    assert ops == {(1000, "insert"): 2, (1000, "point_read"): 1, (1001, "point_read"): 1, (1001, "insert"): 1,
                   (1002, "insert"): 1, (1002, "point_read"): 1}
    assert sum(s.histogram().get_total_count() for s in c.seconds.values()) == 7


def test_a_second_that_is_over_is_kept_encoded_and_a_late_operation_still_counts(monkeypatch):
    """A long run keeps one open histogram per series: a second the series has left is sealed
    to a few hundred bytes, and an operation recorded for it later is added all the same."""
    from keybench.measure.collector import SecondStats

    c = Collector()
    c.register(SERIES, "write")
    now = [2_000.1]
    monkeypatch.setattr(time, "time", lambda: now[0])
    for at in (2_000.1, 2_000.5, 2_001.2, 2_002.3):
        now[0] = at
        with c.timed(SERIES):
            pass
    sealed = c.seconds[(2_000, SERIES)]
    assert len(sealed.encoded()) < 1_000 and sealed.histogram().get_total_count() == 2
    late = SecondStats()
    late.record(np.array([250_000]))
    sealed.add(late.encoded())
    sealed.seal()
    assert sealed.histogram().get_total_count() == 3 and sealed.histogram().get_max_value() >= 249_000
    assert [s.ops for _, s in sorted(c.seconds.items(), key=lambda kv: kv[0][0])] == [2, 1, 1]
