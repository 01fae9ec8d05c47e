"""What each read should return, from the rows the stage itself wrote.

Every acknowledged write is indexed by entity, time and insert number, with the moment it
was acknowledged. A read may then be checked against the rows acknowledged before it
started: those must come back (else they are *missing*), and nothing outside the request
may (else it is *wrong*). Rows acknowledged while the read ran may come back or not. A read
through a NULL_FILTERED index must not expect a row that has no entry in it.

A long stage keeps its oldest rows on disk (`WrittenRows`), so its memory does not grow with
its length.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections import defaultdict
from typing import NamedTuple

from keybench.design.plans import StoredRow

MEMORY_ROWS = 16_384  # rows kept as Python objects, about 370 bytes each; the older ones go to disk
CACHE_KIB = 4096  # SQLite's page cache for the rows on disk


class Written(NamedTuple):
    row: StoredRow
    acked_ns: int  # time.monotonic_ns() when the database acknowledged it
    unindexed: frozenset[str] = frozenset()  # NULL_FILTERED indexes without an entry for the row

    def expected(self, before_ns: int, index: str | None) -> bool:
        """Whether a read that started at `before_ns`, through `index` (None: the table), must return it."""
        return self.acked_ns <= before_ns and index not in self.unindexed


class _Memory:
    """The newest rows, as Python objects. Rows are indexed when a question needs them, not as
    they are added: an insert only appends its row, and a stage that never reads pays nothing more.

    Rows arrive in the order they were acknowledged, so each entity's rows are kept in that
    order, their acknowledgement times and write ids beside them: the rows a read through the
    table must return are then a prefix, found by bisection. An entity whose rows came out of
    that order is answered row by row."""

    def __init__(self) -> None:
        self.by_entity: dict[int, list[Written]] = defaultdict(list)
        self._acked_of: dict[int, list[int]] = defaultdict(list)  # per entity, as by_entity
        self._ids_of: dict[int, list[str]] = defaultdict(list)
        self._out_of_order: set[int] = set()  # entities whose rows were not added in acknowledgement order
        self.by_seq: dict[int, Written] = {}
        self._ts_keys: list[tuple[int, str]] = []  # (ts_us, write_id), sorted
        self._by_id: dict[str, Written] = {}
        self._pending: list[Written] = []  # added, not yet indexed

    def add(self, row: StoredRow, acked_ns: int, unindexed: frozenset[str] = frozenset()) -> None:
        self._pending.append(Written(row, acked_ns, unindexed))

    def _settle(self) -> None:
        pending, self._pending = self._pending, []
        by_entity, by_seq, by_id, ts_keys = self.by_entity, self.by_seq, self._by_id, self._ts_keys
        acked_of, ids_of = self._acked_of, self._ids_of
        for w in pending:
            row = w.row
            by_entity[row.entity].append(w)
            acked = acked_of[row.entity]
            if acked and w.acked_ns < acked[-1]:
                self._out_of_order.add(row.entity)
            acked.append(w.acked_ns)
            ids_of[row.entity].append(row.write_id)
            by_seq[row.seq] = w
            by_id[row.write_id] = w
            at = (row.ts_us, row.write_id)
            if not ts_keys or at >= ts_keys[-1]:  # rows come in nearly in time order
                ts_keys.append(at)
            else:
                bisect.insort(ts_keys, at)

    def __len__(self) -> int:
        return len(self._by_id) + len(self._pending)

    def written(self) -> list[Written]:
        """Every row, in the order added. The rows are not indexed for it: a stage whose
        reads never asked about them (inserts only) would index a full generation to move it."""
        return [*self._by_id.values(), *self._pending]

    # Each method returns the write ids a correct answer must contain; `index` is the index the
    # read goes through (None: the table).
    def of_entity(self, entity: int, before_ns: int, index: str | None = None) -> set[str]:
        self._settle()
        if index is None and entity not in self._out_of_order:
            ids = self._ids_of.get(entity, ())
            acked = self._acked_of.get(entity, ())
            return set(ids if not acked or acked[-1] <= before_ns else ids[:bisect.bisect_right(acked, before_ns)])
        return {row.write_id for row in self._expected_of_entity(entity, before_ns, index)}

    def _expected_of_entity(self, entity: int, before_ns: int, index: str | None) -> list[StoredRow]:
        self._settle()
        if index is None:  # through the table: every row acknowledged before the read (Written.expected)
            return [w.row for w in self.by_entity.get(entity, ()) if w.acked_ns <= before_ns]
        return [w.row for w in self.by_entity.get(entity, ()) if w.expected(before_ns, index)]

    def newest_of_entity(self, entity: int, before_ns: int, answer: list[StoredRow], n: int,
                         index: str | None = None) -> set[str]:
        """The newest-N rows acknowledged before the read that the answer must hold: all of
        them if it holds fewer than N, else those at least as new as its oldest row."""
        rows = self._expected_of_entity(entity, before_ns, index)
        if len(answer) >= n and answer:
            oldest = min(r.ts_us for r in answer)
            rows = [r for r in rows if r.ts_us >= oldest]
        return {r.write_id for r in rows}

    def in_time_window(self, t0: int, t1: int, before_ns: int, index: str | None = None) -> set[str]:
        self._settle()
        lo = bisect.bisect_left(self._ts_keys, (t0, ""))
        hi = bisect.bisect_right(self._ts_keys, (t1, "\uffff"))
        return {wid for _, wid in self._ts_keys[lo:hi] if self._by_id[wid].expected(before_ns, index)}

    def in_number_range(self, first: int, last: int, before_ns: int, index: str | None = None) -> set[str]:
        self._settle()
        found = (self.by_seq.get(n) for n in range(first, last + 1))
        return {w.row.write_id for w in found if w is not None and w.expected(before_ns, index)}


class _Disk:
    """Rows in a private SQLite database on disk: an empty file name is SQLite's private
    temporary database, deleted when it is closed or when the process ends, however it ends.
    SQLite keeps a page cache of at most `CACHE_KIB`."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        for pragma in ("journal_mode = OFF", "synchronous = OFF", f"cache_size = -{CACHE_KIB}",
                       "temp_store = FILE", "locking_mode = EXCLUSIVE"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("CREATE TABLE written (write_id TEXT NOT NULL, entity INTEGER NOT NULL, "
                         "ts_us INTEGER NOT NULL, seq INTEGER NOT NULL, acked_ns INTEGER NOT NULL, "
                         "unindexed INTEGER NOT NULL)")
        for name, columns in (("by_entity", "entity, acked_ns"), ("by_time", "ts_us"), ("by_seq", "seq")):
            self._db.execute(f"CREATE INDEX {name} ON written ({columns})")
        self._index_bits: dict[str, int] = {}  # NULL_FILTERED index name -> its bit in `unindexed`

    def _bit(self, index: str) -> int:
        bit = self._index_bits.get(index)
        if bit is None:
            bit = self._index_bits[index] = 1 << len(self._index_bits)
        return bit

    def add(self, rows: list[Written]) -> None:
        def mask(unindexed: frozenset[str]) -> int:
            bits = 0
            for index in unindexed:
                bits |= self._bit(index)
            return bits

        with self._db:
            self._db.executemany("INSERT INTO written VALUES (?, ?, ?, ?, ?, ?)",
                                 [(w.row.write_id, w.row.entity, w.row.ts_us, w.row.seq, w.acked_ns, mask(w.unindexed))
                                  for w in rows])

    def close(self) -> None:
        self._db.close()

    def ids(self, where: str, arguments: tuple, before_ns: int, index: str | None) -> set[str]:
        """The write ids of the rows `where` picks that a read which started at `before_ns`,
        through `index` (None: the table), must return."""
        condition = f"({where}) AND acked_ns <= ?"
        arguments = (*arguments, before_ns)
        if index is not None:
            condition += " AND unindexed & ? = 0"
            arguments = (*arguments, self._bit(index))
        return {wid for (wid,) in self._db.execute(f"SELECT write_id FROM written WHERE {condition}", arguments)}


class WrittenRows:
    """Every row the stage acknowledged, in two places: the newest `MEMORY_ROWS` or fewer as
    Python objects, quick to ask, and the rest on disk. A stage of hours writes millions of
    rows, and as objects they take about 370 bytes each.

    When the newest fill up, they become the old generation: still asked in memory while
    `move_some` copies them to disk, a slice at a time, in the moments the stage's load waits;
    then they are let go. Every question asks each place and joins the answers (a row being
    moved is in two of them: a set holds it once). A stage of fewer rows never touches disk."""

    def __init__(self) -> None:
        self._young = _Memory()
        self._old: _Memory | None = None  # full, being moved to disk
        self._to_move: list[Written] = []  # the old generation's rows not yet on disk
        self._disk: _Disk | None = None
        self._count = 0

    def add(self, row: StoredRow, acked_ns: int, unindexed: frozenset[str] = frozenset()) -> None:
        self._young.add(row, acked_ns, unindexed)
        self._count += 1
        if len(self._young) >= MEMORY_ROWS:
            if self._old is not None:
                self.move_some(len(self._to_move))  # the load never waited: move the rest now
            self._old, self._young = self._young, _Memory()
            self._to_move = self._old.written()
            self._to_move.reverse()  # moved from the end: each slice is a cheap cut

    @property
    def moving(self) -> bool:
        """Whether an old generation waits to go to disk (`move_some`)."""
        return self._old is not None

    def move_some(self, limit: int) -> bool:
        """Copy at most `limit` rows of the old generation to disk, and let it go once all are
        there; True while some are left."""
        if self._old is None:
            return False
        if self._disk is None:
            self._disk = _Disk()
        if limit <= 0:
            return True
        batch = self._to_move[-limit:]
        self._disk.add(batch)
        del self._to_move[-limit:]  # only once they are on disk: a failed insert loses none
        if not self._to_move:
            self._old = None
        return self._old is not None

    def close(self) -> None:
        """Forgets every row, and deletes those on disk."""
        if self._disk is not None:
            self._disk.close()
        self._young, self._old, self._to_move, self._disk = _Memory(), None, [], None
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def in_memory(self) -> int:
        """Rows held as Python objects: the newest, and the old generation until it is on disk."""
        return len(self._young) + (len(self._old) if self._old is not None else 0)

    def _asked(self, in_memory, where: str, arguments: tuple, before_ns: int, index: str | None) -> set[str]:
        found = in_memory(self._young)
        if self._old is not None:
            found |= in_memory(self._old)
        if self._disk is not None:
            found |= self._disk.ids(where, arguments, before_ns, index)
        return found

    # Each method returns the write ids a correct answer must contain; `index` is the index the
    # read goes through (None: the table).
    def of_entity(self, entity: int, before_ns: int, index: str | None = None) -> set[str]:
        return self._asked(lambda m: m.of_entity(entity, before_ns, index), "entity = ?", (entity,), before_ns, index)

    def newest_of_entity(self, entity: int, before_ns: int, answer: list[StoredRow], n: int,
                         index: str | None = None) -> set[str]:
        """The newest-N rows acknowledged before the read that the answer must hold: all of
        them if it holds fewer than N, else those at least as new as its oldest row."""
        if len(answer) >= n and answer:
            oldest = min(r.ts_us for r in answer)
            return self._asked(lambda m: m.newest_of_entity(entity, before_ns, answer, n, index),
                               "entity = ? AND ts_us >= ?", (entity, oldest), before_ns, index)
        return self.of_entity(entity, before_ns, index)

    def in_time_window(self, t0: int, t1: int, before_ns: int, index: str | None = None) -> set[str]:
        return self._asked(lambda m: m.in_time_window(t0, t1, before_ns, index), "ts_us BETWEEN ? AND ?", (t0, t1),
                           before_ns, index)

    def in_number_range(self, first: int, last: int, before_ns: int, index: str | None = None) -> set[str]:
        return self._asked(lambda m: m.in_number_range(first, last, before_ns, index), "seq BETWEEN ? AND ?",
                           (first, last), before_ns, index)
