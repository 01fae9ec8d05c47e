"""What one finished stage leaves behind: a plain record, built once by the stage when its
load and audit are over. The summary, the run directory and the model read only this, never
the live stage, its clients or its collector."""

from __future__ import annotations

from dataclasses import dataclass, field

from keybench.design.strategies import Strategy
from keybench.measure.audit import Integrity, TenantDrop
from keybench.measure.collector import OperationStats, SecondStats, Series
from keybench.model.keystream import KeyStream


@dataclass(frozen=True)
class StageResult:
    strategy: Strategy
    location: str  # the database (Spanner) or table (Bigtable) the stage loaded
    stats: dict[Series, OperationStats]  # per operation, in the stage's operation order
    per_second: dict[tuple[int, Series], SecondStats]  # (epoch second, series) -> that second's figures
    key_stream: KeyStream
    started_epoch_s: float
    seconds: float  # how long the load ran
    integrity: Integrity
    tenant_drop: TenantDrop | None
    fresh: bool  # on an emulator with no earlier history
    batch_size: int
    counts_aborts: bool  # the backend reports retried aborts (else the aborts column stays empty)
    emulator_bound_inserts: bool
    ended_early: str | None = None  # why the stage stopped before its time
    interrupted: bool = False  # Ctrl-C
    per_worker: dict[int, int] = field(default_factory=dict)  # worker index -> operations (distributed)
    observed: dict[str, str] = field(default_factory=dict)  # a real service's own report (columns.OBSERVED_COLUMNS)

    @property
    def operations(self) -> int:
        return sum(s.requests for s in self.stats.values())

    @property
    def failures(self) -> int:
        return sum(s.failures for s in self.stats.values())

    @property
    def inserts(self) -> int:
        return sum(s.requests for series, s in self.stats.items() if series.operation == "insert")

    @property
    def reads(self) -> int:
        return self.operations - self.inserts

    def ops_per_s(self, count: int) -> float:
        """A count of this stage's operations over its seconds, as summary.csv's rps."""
        return count / self.seconds if self.seconds > 0 else 0.0
