"""The small interface every database binding implements. No timing in here: the
collector times calls from outside, so every backend is measured the same way."""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod

from keybench.design.events import WriteEvent
from keybench.design.plans import Span, StoredRow
from keybench.design.strategies import Strategy

DEFAULT_PAYLOAD_BYTES = 100  # the same small non-key column in every design
DEFAULT_TIMEOUT_S = 30.0  # a data operation's deadline, retries included
# The audit's read-back of a whole table grows with the rows written, so it is not one
# operation under --op-timeout; a database that stalls during it is the watchdog's to catch.
AUDIT_READ_TIMEOUT_S = 300.0


class KeyCollision(Exception):
    """An insert found its key taken (ALREADY_EXISTS): counted as a collision, not a failure."""


class Backend(ABC):
    """One strategy's table in one database, seen through one client."""

    name: str
    counts_aborts = False  # whether take_aborts() counts anything (the summary leaves the column empty if not)
    # Whether every insert and read ends by the deadline the backend was opened with, retries
    # included, on the client's side: a silent server cannot hold one past it.
    enforces_deadline = False

    def __init__(self, strategy: Strategy, location: str, project: str, instance: str,
                 payload_bytes: int = DEFAULT_PAYLOAD_BYTES, endpoint: str | None = None):
        self.strategy = strategy
        self.location = location  # database id (Spanner) or table id (Bigtable)
        self.project, self.instance_id = project, instance
        self.endpoint = endpoint  # the service's HOST:PORT (`--endpoint`); None: the default, or the emulator
        self.payload = "x" * payload_bytes

    @abstractmethod
    def create(self) -> None:
        """Create the fresh database or table from the strategy's fixture."""

    @abstractmethod
    def drop(self) -> None:
        """Drop what create() made."""

    emulator_bound_inserts = False  # inserts through SQL/DML, whose emulator cost grows with the table

    @abstractmethod
    def insert(self, key: tuple, event: WriteEvent) -> tuple:
        """Write one row; return once the database acknowledged it, with the key it stored
        (the given one, or the database's own for generated key parts). Raise KeyCollision
        when the key is taken."""

    def insert_batch(self, rows: list[tuple[tuple, WriteEvent]]) -> list[tuple]:
        """Write the rows in one call (`--batch-size`); return their stored keys in order.
        Raise KeyCollision when the database refused the call because a key was taken."""
        raise NotImplementedError(f"{self.name} has no batched insert")

    def preload(self, rows: list[tuple[tuple, WriteEvent]]) -> None:
        """Write rows in bulk before the load (a migrated source's data)."""
        raise NotImplementedError(f"{self.name} has no preload")

    @abstractmethod
    def read(
        self, spans: tuple[Span, ...] | None, limit: int | None = None, where: tuple[str, int, int] | None = None,
        index: str | None = None, join: bool = False, parent: bool = False,
    ) -> list[StoredRow]:
        """One read request over the spans (None: the whole table). `where` (field, lo, hi)
        describes the rows a full scan wants; a backend may filter on the server with it,
        and the caller filters again either way. `index`: the spans are over that secondary
        index (Spanner); `join`: read the rows' columns back from the table; `parent`: read
        the parent row of the spans' user too (Spanner, interleaved)."""

    def statistics_until(self) -> dt.datetime | None:
        """The end of the newest minute the service's own statistics cover; None: it keeps none
        (an emulator), or none yet."""
        return None

    def hot_ranges(self, start: dt.datetime, end: dt.datetime) -> list[tuple]:
        """The service's own report of this stage's hot key ranges in (start, end]: Spanner's
        split rows (backends.service_stats.SplitRow)."""
        raise NotImplementedError(f"{self.name} reads no hot ranges of its service")

    def delete_prefix(self, values: tuple) -> None:
        """Delete every row whose key starts with `values` (Bigtable: drop a row range)."""
        raise NotImplementedError(f"{self.name} has no prefix delete")

    @abstractmethod
    def write_ids(self) -> list[str]:
        """The WriteId of every row stored, duplicates included (for the integrity audit)."""

    def stored_entities(self) -> list[tuple[str, int]]:
        """(WriteId, entity) of every row stored: what a prefix drop is checked against."""
        return [(r.write_id, r.entity) for r in self.read(None)]

    @abstractmethod
    def answers(self, timeout_s: float) -> bool:
        """A cheap request with a short deadline: True if the service answered in time, whatever
        it answered (a table not created yet is an answer: see `answered`). The watchdog asks it
        while a longer wait (the set-up, the audit, the drop) has not finished."""

    def take_aborts(self) -> int:
        """Aborted attempts the client retried, silently, since the last call: the stage hands
        them to the collector with each insert, so they are counted like everything else. With
        concurrent users an insert may carry another's aborts; the totals are exact."""
        return 0

    def close(self) -> None:  # noqa: B027  (optional: a backend that holds no clients has nothing to release)
        """Release clients."""

