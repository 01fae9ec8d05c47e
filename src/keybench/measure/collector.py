"""The collector: times every operation, records it, and keeps the write ledger.

Latency goes into HdrHistograms in microseconds (1 us .. 60 s, 3 significant digits),
one per (backend, strategy, dialect, operation); Locust's own statistics round to two
significant digits and would flatten sub-millisecond emulator calls. Every operation is
also fired as a Locust request event (`request_type` = `<backend>:<strategy>`, `name` =
the operation), in batches (RECORD_BATCH), so Locust's UI and CSVs show the same run.

Under open-loop load (`--rate`) each operation also has an intended start, the moment its
schedule said it was due; the latency from that moment is recorded beside the service
time, so a stall that delays the operations queued behind it shows (coordinated omission).

The ledger counts every write attempted, acknowledged or failed, by its WriteId, so the
integrity audit can compare it with what the database holds.

Locust workers ship `snapshot()` to the master, which rebuilds and merges them.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field

import numpy as np
from greenlet import GreenletExit
from hdrh.histogram import HdrHistogram

from keybench.errors import one_line
from keybench.measure.latency import record_values
from keybench.measure.writeids import WriteIdSet
from keybench.model.keystream import KeyStream

LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS = 1, 60_000_000, 3
SECOND_DIGITS = 2
# An operation's record is kept aside and added to the statistics in batches: every RECORD_BATCH
# operations, at the first one RECORD_EVERY_S after the last batch, and whenever the statistics
# are read (`stats`, `seconds`, `settle`). Each batch also fires the operations' Locust request
# events. Done one operation at a time between the calls, this work cost a Bigtable point read
# about 6 % of its rate; in batches, about half that (benchmarks/README.md, harness_vs_bare).
# Locust's UI and progress lag by at most RECORD_EVERY_S.
RECORD_BATCH = 64
RECORD_EVERY_S = 0.1


def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


def new_second_histogram() -> HdrHistogram:
    """A second's histogram, for the time series' p50 and p99: 2 significant digits (within
    1 %) keep an open one at about 22 KB and a sealed one at about 550 bytes, where 3 take 140 KB
    and 1.4 KB. A long run keeps one per series and second."""
    return HdrHistogram(LOWEST_US, HIGHEST_US, SECOND_DIGITS)


@dataclass(frozen=True, slots=True)
class Series:
    backend: str
    strategy: str
    dialect: str
    operation: str

    @property
    def request_type(self) -> str:
        return f"{self.backend}:{self.strategy}"


@dataclass
class OperationStats:
    access: str
    histogram: HdrHistogram = field(default_factory=new_histogram)  # service time
    intended: HdrHistogram = field(default_factory=new_histogram)  # from the intended start (open loop only)
    requests: int = 0
    failures: int = 0
    rows: int = 0  # rows in the answers
    rows_scanned: int = 0  # rows the database sent before any client-side filter
    fanout: int = 0  # key ranges requested, summed over requests
    strays: int = 0  # rows a range read returned that do not belong to the answer
    missing: int = 0  # acknowledged rows a read should have returned and did not
    collisions: int = 0  # inserts refused because their key was taken (ALREADY_EXISTS)
    aborts: int = 0  # aborted attempts the client retried inside the operations (Spanner)
    cut_off: int = 0  # operations in flight when the stage was stopped short, never finished
    errors: dict[str, int] = field(default_factory=dict)
    request_type: str = ""  # Series.request_type, made once for Locust's event
    second_at: int = -1  # the epoch second of the last operation recorded here, and its SecondStats
    second: SecondStats | None = field(default=None, repr=False)


@dataclass(slots=True)
class Measurement:
    """What the operation tells the collector about itself while it is timed (one per
    operation: slotted, its fields set and read faster)."""

    rows: int = 0
    rows_scanned: int = 0
    fanout: int = 0
    strays: int = 0
    aborts: int = 0  # aborted attempts the client retried; a backend hands over all it counted since the last
    collision: bool = False
    error: Exception | None = None


@dataclass
class Ledger:
    attempted: set[str] = field(default_factory=set)  # outcome not yet known: the writes in flight
    # every acknowledged write: a long stage's millions, at about a bit each
    acknowledged: WriteIdSet = field(default_factory=WriteIdSet)
    failed: set[str] = field(default_factory=set)  # the call raised: stored or not, unknown


class SecondStats:
    """One second of one series, for the time series.

    A second that is over is sealed: its histogram is kept encoded, a few hundred bytes, instead
    of the counts an open one holds (`new_second_histogram`). A long run keeps one open second
    per series, so its time series costs memory by the byte, not by the histogram."""

    __slots__ = ("ops", "failures", "_open", "_sealed")

    def __init__(self) -> None:
        self.ops = 0
        self.failures = 0
        self._open: HdrHistogram | None = new_second_histogram()
        self._sealed = b""

    def record(self, values_us: np.ndarray) -> None:
        record_values(self._opened(), values_us)

    def add(self, encoded: bytes) -> None:
        """Adds another histogram of the same second and series (a worker's), encoded."""
        self._opened().add(HdrHistogram.decode(encoded))

    def _opened(self) -> HdrHistogram:
        if self._open is None:  # an operation of a sealed second: it ended late, or a worker's report came
            self._open = HdrHistogram.decode(self._sealed)
            self._sealed = b""
        return self._open

    def seal(self) -> None:
        if self._open is not None:
            self._sealed, self._open = self._open.encode(), None

    def encoded(self) -> bytes:
        return self._sealed if self._open is None else self._open.encode()

    def histogram(self) -> HdrHistogram:
        """The second's histogram, to read: a sealed one is decoded for the caller and stays sealed."""
        return self._open if self._open is not None else HdrHistogram.decode(self._sealed)


class Collector:
    def __init__(self, events=None):
        self.events = events  # Locust's Events, or None outside Locust
        self._stats: dict[Series, OperationStats] = {}
        self._seconds: dict[tuple[int, Series], SecondStats] = {}  # (epoch second it ended in, series)
        self.ledger = Ledger()
        self._first_op: float | None = None  # monotonic time of the first and last recorded operation
        self._last_op: float | None = None
        self.absorbed_seconds = 0.0  # the longest active time of the workers absorbed
        self.key_stream = KeyStream()  # every acknowledged write's key and every read's key ranges, for the split model
        self._own: dict | None = None  # this collector's own state before it first merged others (absorb_all)
        self._unrecorded: list[tuple] = []  # operations not yet in the statistics (see RECORD_BATCH)
        self._recorded_at = 0.0

    # Every read of the statistics settles the operations kept aside first.
    @property
    def stats(self) -> dict[Series, OperationStats]:
        self.settle()
        return self._stats

    @property
    def seconds(self) -> dict[tuple[int, Series], SecondStats]:
        self.settle()
        return self._seconds

    @property
    def first_op(self) -> float | None:
        self.settle()
        return self._first_op

    @property
    def last_op(self) -> float | None:
        self.settle()
        return self._last_op

    def register(self, series: Series, access: str) -> None:
        if series not in self._stats:
            self._stats[series] = OperationStats(access, request_type=series.request_type)

    def timed(self, series: Series, intended: float | None = None) -> _Timed:
        """Time the block (`with collector.timed(series) as m:`, m a Measurement); an exception
        inside it is recorded as a failure, not raised. `intended`: the time.perf_counter() at
        which an open-loop schedule made it due."""
        return _Timed(self, series, intended)

    def record(self, series: Series, elapsed_s: float, m: Measurement, since_intended_s: float | None = None) -> None:
        """One operation, timed: kept aside until the next batch (see RECORD_BATCH)."""
        now = time.monotonic()
        unrecorded = self._unrecorded
        unrecorded.append((series, elapsed_s, m, since_intended_s, now, time.time()))
        if len(unrecorded) >= RECORD_BATCH or now - self._recorded_at >= RECORD_EVERY_S:
            self.settle()

    def settle(self) -> None:
        """Add the operations kept aside to the statistics, and fire their Locust request events."""
        unrecorded, self._unrecorded = self._unrecorded, []
        self._recorded_at = time.monotonic()
        if not unrecorded:
            return
        if self._first_op is None:
            _, elapsed_s, _, _, ended, _ = unrecorded[0]
            self._first_op = ended - elapsed_s
        self._last_op = unrecorded[-1][4]
        by_series: dict[Series, list[tuple]] = {}
        last: Series | None = None
        for operation in unrecorded:
            if operation[0] is not last:  # a series is hashed where the operations change series, not each time
                last = operation[0]
                of_series = by_series.setdefault(last, [])
            of_series.append(operation)
        fire = self.events.request.fire if self.events is not None else None
        for series, operations in by_series.items():
            self._add(series, operations)
            if fire is not None:
                request_type, name = self._stats[series].request_type, series.operation
                for _, elapsed_s, m, _, _, wall in operations:
                    # start_time (epoch seconds), as Locust's own clients give it: the event itself comes
                    # later. response_length 0: Locust shows it as bytes, which keybench does not count
                    # (rows are in its own stats).
                    fire(request_type=request_type, name=name, response_time=elapsed_s * 1000.0, response_length=0,
                         exception=m.error, context={}, start_time=wall - elapsed_s)

    def _add(self, series: Series, operations: list[tuple]) -> None:
        """One series' operations, in the order they ended: (series, elapsed_s, Measurement,
        since_intended_s, ended, wall) each."""
        s = self._stats[series]
        values = _clamped_us(np.fromiter((o[1] for o in operations), np.float64, len(operations)))
        record_values(s.histogram, values)
        intended = [max(o[3], o[1]) for o in operations if o[3] is not None]
        if intended:
            record_values(s.intended, _clamped_us(np.array(intended, dtype=np.float64)))
        s.requests += len(operations)
        failed = [False] * len(operations)
        for i, (_, _, m, _, _, _) in enumerate(operations):
            s.aborts += m.aborts
            if m.collision:
                s.collisions += 1
            elif m.error is not None:
                s.failures += 1
                failed[i] = True
                reason = one_line(m.error)
                s.errors[reason] = s.errors.get(reason, 0) + 1
            else:
                s.rows += m.rows
                s.rows_scanned += m.rows_scanned
                s.fanout += m.fanout
                s.strays += m.strays
        # The time series: each run of operations that ended in one epoch second goes to its slot.
        start = 0
        while start < len(operations):
            epoch_second = int(operations[start][5])
            end = start + 1
            while end < len(operations) and int(operations[end][5]) == epoch_second:
                end += 1
            second = self._second(s, series, epoch_second)
            second.ops += end - start
            second.failures += sum(failed[start:end])
            second.record(values[start:end])
            start = end

    def _second(self, s: OperationStats, series: Series, epoch_second: int) -> SecondStats:
        """The series' SecondStats of `epoch_second`, found once per second it moves to."""
        if s.second_at != epoch_second or s.second is None:
            if s.second is not None:
                s.second.seal()  # the series has moved on: its last second is over
            slot = (epoch_second, series)
            second = self._seconds.get(slot)
            if second is None:
                second = self._seconds[slot] = SecondStats()
            s.second_at, s.second = epoch_second, second
        return s.second

    def add_missing(self, series: Series, count: int) -> None:
        """Missing rows are known only after the timed read, against what was written."""
        self._stats[series].missing += count

    # the write ledger
    def attempt(self, write_id: str) -> None:
        self.ledger.attempted.add(write_id)

    def acknowledge(self, write_id: str) -> None:
        self.ledger.attempted.discard(write_id)
        self.ledger.acknowledged.add(write_id)

    def fail(self, write_id: str) -> None:
        self.ledger.attempted.discard(write_id)
        self.ledger.failed.add(write_id)

    def active_seconds(self) -> float:
        first, last = self.first_op, self.last_op
        own = 0.0 if first is None or last is None else last - first
        return max(own, self.absorbed_seconds)

    def totals(self) -> tuple[int, int]:
        return (sum(s.requests for s in self.stats.values()), sum(s.failures for s in self.stats.values()))

    # shipping between Locust workers and the master
    def snapshot(self, with_keys: bool = True) -> dict:
        """Everything recorded so far, in plain types (histograms encoded): a worker sends its
        whole state each time, so the master keeps the latest per worker and loses nothing if
        a report is superseded. The key stream, the bulk of it, only when `with_keys` (a
        worker's final report)."""
        return {
            "stats": [
                [_series_fields(series), st.access, st.histogram.encode().decode(), st.intended.encode().decode(),
                 {name: getattr(st, name) for name in COUNTS}, st.errors]
                for series, st in self.stats.items()
            ],
            "seconds": [[second, _series_fields(series), s.encoded().decode(), s.ops, s.failures]
                        for (second, series), s in self.seconds.items()],
            "ledger": {"attempted": list(self.ledger.attempted), "acknowledged": self.ledger.acknowledged.to_plain(),
                       "failed": list(self.ledger.failed)},
            "active_seconds": self.active_seconds(),
        } | ({"keystream": base64.b64encode(self.key_stream.to_bytes()).decode()} if with_keys else {})

    def absorb_all(self, snapshots: list[dict]) -> None:
        """Hold exactly the merge of these snapshots (the master's view of its workers' latest
        reports), replacing whatever an earlier merge held; the registered series keep their
        order, so the summary lists operations as before."""
        if self._own is None:  # what the master itself recorded before any merge: its preload
            self._own = self.snapshot()
        order = {series: stats.access for series, stats in self.stats.items()}
        fresh = Collector(self.events)
        for series, access in order.items():
            fresh.register(series, access)
        for snapshot in (self._own, *snapshots):
            fresh.absorb(snapshot)
        for second in fresh.seconds.values():
            second.seal()  # once every worker's share of it is in
        self._stats, self._seconds, self.ledger = fresh.stats, fresh.seconds, fresh.ledger
        self._first_op, self._last_op = fresh.first_op, fresh.last_op
        self.absorbed_seconds, self.key_stream = fresh.absorbed_seconds, fresh.key_stream

    def absorb(self, snapshot: dict) -> None:
        """Add a worker's snapshot to this collector (the master's)."""
        for fields, access, encoded, intended, counts, errors in snapshot["stats"]:
            series = Series(*fields)
            self.register(series, access)
            st = self.stats[series]
            st.histogram.add(HdrHistogram.decode(encoded.encode()))
            st.intended.add(HdrHistogram.decode(intended.encode()))
            for name in COUNTS:
                setattr(st, name, getattr(st, name) + counts[name])
            for reason, count in errors.items():
                st.errors[reason] = st.errors.get(reason, 0) + count
        for second, fields, encoded, ops, failures in snapshot["seconds"]:
            slot = (second, Series(*fields))
            mine = self.seconds.setdefault(slot, SecondStats())
            mine.add(encoded.encode())
            mine.ops += ops
            mine.failures += failures
        ledger = snapshot["ledger"]
        self.ledger.attempted.update(ledger["attempted"])
        self.ledger.acknowledged.update(WriteIdSet.from_plain(ledger["acknowledged"]))
        self.ledger.failed.update(ledger["failed"])
        if "keystream" in snapshot:
            self.key_stream.merge(KeyStream.from_bytes(base64.b64decode(snapshot["keystream"])))
        # The workers ran side by side: the stage was active as long as the longest of them.
        self.absorbed_seconds = max(self.absorbed_seconds, snapshot["active_seconds"])


class _Timed:
    """`Collector.timed`'s context manager: a class, not a generator, because it runs around
    every operation of the load."""

    __slots__ = ("collector", "series", "intended", "measurement", "start")

    def __init__(self, collector: Collector, series: Series, intended: float | None) -> None:
        self.collector, self.series, self.intended = collector, series, intended

    def __enter__(self) -> Measurement:
        self.measurement = Measurement()
        self.start = time.perf_counter()
        return self.measurement

    def __exit__(self, kind, exc, traceback) -> bool:
        m = self.measurement
        if kind is not None:
            if issubclass(kind, GreenletExit):
                # The stage ended with this operation in flight: no latency, no answer, and an
                # insert's outcome is unknown (the audit settles it). Counted apart from failures.
                stats = self.collector.stats[self.series]
                stats.cut_off += 1
                stats.aborts += m.aborts  # retried before the cut: they happened
                return False
            if not issubclass(kind, Exception):
                return False
            m.error = exc  # every failure is data, none may stop the user
        end = time.perf_counter()
        self.collector.record(self.series, end - self.start, m,
                              None if self.intended is None else end - self.intended)
        return True


COUNTS = ("requests", "failures", "rows", "rows_scanned", "fanout", "strays", "missing", "collisions", "aborts",
          "cut_off")


def _series_fields(series: Series) -> list[str]:
    return [series.backend, series.strategy, series.dialect, series.operation]


def _clamped_us(seconds: np.ndarray) -> np.ndarray:
    """Whole microseconds (truncated, as int() does), within the histograms' range."""
    return np.clip((seconds * 1e6).astype(np.int64), LOWEST_US, HIGHEST_US)
