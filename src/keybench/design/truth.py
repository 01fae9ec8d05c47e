"""What each read should return, from the rows the stage itself wrote.

Every acknowledged write is indexed by entity, time and insert number, with the moment it
was acknowledged. A read may then be checked against the rows acknowledged before it
started: those must come back (else they are *missing*), and nothing outside the request
may (else it is *wrong*). Rows acknowledged while the read ran may come back or not. A read
through a NULL_FILTERED index must not expect a row that has no entry in it.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import NamedTuple

from keybench.design.plans import StoredRow


class Written(NamedTuple):
    row: StoredRow
    acked_ns: int  # time.monotonic_ns() when the database acknowledged it
    unindexed: frozenset[str] = frozenset()  # NULL_FILTERED indexes without an entry for the row

    def expected(self, before_ns: int, index: str | None) -> bool:
        """Whether a read that started at `before_ns`, through `index` (None: the table), must return it."""
        return self.acked_ns <= before_ns and index not in self.unindexed


class WrittenRows:
    """Rows are indexed when a question needs them, not as they are added: an insert only
    appends its row, and a stage that never reads pays nothing more.

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
