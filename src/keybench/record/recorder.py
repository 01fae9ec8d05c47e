"""What a recording proxy saw: per table, the key stream the application wrote and read.

The streams are the same `KeyStream` that `keybench run` records, keys in the database's
byte order, so the split model, the verdict rule and `keybench analyze` serve them unchanged;
their writes spill to disk as a run's do, so a long recording stays within bounded memory.
Calls the taps could not attribute to a table are counted by method and reason, never guessed.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from keybench.design.byteorder import TABLE_SPACE
from keybench.model.keystream import KeyStream


class TableName(NamedTuple):
    """A table as the API names it. Tables of one name in two databases (or Bigtable instances)
    are two key spaces, split apart: a database per tenant writes a table `Orders` in each."""

    backend: str
    database: str  # the resource name of the table's database (Bigtable: its instance)
    table: str


@dataclass
class TableRecord:
    """One table's recording: its stream (the table's space, and each index's), and its reads."""

    backend: str
    database: str
    table: str
    stream: KeyStream = field(default_factory=KeyStream)
    reads: Counter[str] = field(default_factory=Counter)  # by key space: the table's, or an index's it read through
    rows_read: Counter[str] = field(default_factory=Counter)  # rows the reads returned, where the response says

    @property
    def name(self) -> TableName:
        return TableName(self.backend, self.database, self.table)

    @property
    def writes(self) -> int:
        return self.stream.write_count()


class Recorder:
    """Thread-safe: a proxy serves many calls at once, each on its own thread.

    What it holds is read through snapshot() and the counters below, each of which first lets
    every source registered with read_after() catch up: a proxy reads what it relays a moment
    after passing it on, and settles once all it relayed until then is read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._sources: list[Callable[[], None]] = []
        self._tables: dict[TableName, TableRecord] = {}
        self._unattributed: Counter[tuple[str, str]] = Counter()
        self._failed_writes: Counter[TableName] = Counter()
        self._other_calls: Counter[str] = Counter()
        self._modelled: Counter[tuple[TableName, str]] = Counter()

    def read_after(self, settle: Callable[[], None]) -> None:
        """`settle` is called before each look at the recording (a proxy's settle)."""
        self._sources.append(settle)

    def settle(self) -> None:
        for settle in self._sources:
            settle()

    @property
    def unattributed(self) -> Counter[tuple[str, str]]:
        """(method, reason): calls the taps could not attribute to a table."""
        self.settle()
        return self._unattributed

    @property
    def failed_writes(self) -> Counter[TableName]:
        """Writes the database refused, by table."""
        self.settle()
        return self._failed_writes

    @property
    def other_calls(self) -> Counter[str]:
        """Calls with no keys to record (admin, sessions, ...), by method."""
        self.settle()
        return self._other_calls

    @property
    def modelled(self) -> Counter[tuple[TableName, str]]:
        """(table, how the database fills it): the key values keybench modelled."""
        self.settle()
        return self._modelled

    def now(self) -> float:
        """Seconds since the recording started: the streams' clock."""
        return time.monotonic() - self._start

    def _table(self, name: TableName) -> TableRecord:
        record = self._tables.get(name)
        if record is None:
            record = self._tables[name] = TableRecord(*name)
        return record

    def write(self, table: TableName, keys: list[tuple[bytes, int | None]], space: str = TABLE_SPACE) -> None:
        """Writes the database acknowledged, now: one per (key, split-unit length; None: the whole key)."""
        with self._lock:
            stream, now = self._table(table).stream, self.now()
            for key, unit in keys:
                stream.add_write(space, now, key, unit)

    def failed(self, table: TableName, count: int) -> None:
        with self._lock:
            self._failed_writes[table] += count

    def modelled_fill(self, table: TableName, what: str, count: int = 1) -> None:
        """`count` key values the database fills (`what`: how), modelled rather than seen."""
        with self._lock:
            self._modelled[(table, what)] += count

    def read(self, table: TableName, intervals: list[tuple[bytes, bytes]], rows: int | None,
             operation: str, space: str = TABLE_SPACE) -> None:
        """One read of `intervals` ([start, end) bytes; an empty end: to the end of the table)."""
        with self._lock:
            record = self._table(table)
            record.stream.add_read(self.now(), intervals, space, operation)
            record.reads[space] += 1
            record.rows_read[space] += rows or 0

    def not_attributed(self, method: str, reason: str) -> None:
        with self._lock:
            self._unattributed[(method.rsplit("/", 1)[-1], reason)] += 1

    def other(self, method: str) -> None:
        with self._lock:
            self._other_calls[method.rsplit("/", 1)[-1]] += 1

    def snapshot(self) -> list[TableRecord]:
        """The tables, by backend, database and name."""
        self.settle()
        with self._lock:
            return [self._tables[k] for k in sorted(self._tables)]

