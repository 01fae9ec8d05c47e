import time

from locust.event import Events

from loadtests.collector import Collector, Series

SERIES = Series("spanner", "timestamp_first", "googlesql", "insert")


def test_timed_block_records_latency_in_microseconds():
    c = Collector()
    c.register(SERIES, "write")
    for _ in range(5):
        with c.timed(SERIES):
            time.sleep(0.002)
    stats = c.stats[SERIES]
    assert stats.requests == 5 and stats.failures == 0
    assert 1_900 <= stats.histogram.get_value_at_percentile(50) <= 20_000


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
    with c.timed(SERIES) as m:
        m.rows = 1
    assert seen[0]["request_type"] == "spanner:timestamp_first" and seen[0]["name"] == "insert"
    assert seen[0]["exception"] is None and seen[0]["response_length"] == 1


def test_ledger_moves_writes_from_attempted_to_acknowledged_or_failed():
    c = Collector()
    for w in ("a", "b", "c"):
        c.attempt(w)
    c.acknowledge("a")
    c.fail("b")
    assert (c.ledger.acknowledged, c.ledger.failed, c.ledger.attempted) == ({"a"}, {"b"}, {"c"})
