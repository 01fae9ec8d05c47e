"""What `keybench check` is asked, with its defaults: light to import (no numpy, no
database client), so the CLI reads its defaults from here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from keybench.model.params import SplitParams

DEFAULT_CHECK_ROWS = 50_000  # inserts per table the check models: 50 windows of 1,000 at 8 nodes
DEFAULT_SHARDS = 16  # a proposed shard column's modulus: 31 values (MOD keeps the sign), as index_sharded's 16 shards
MAX_CHECK_ROWS = 10_000_000
MAX_DEVICE_RATE = 1_000_000.0  # one device's writes per second: far above any row's documented rate
CHECK_FORMATS = ("text", "json", "sarif", "junit")  # --format: the report, or a document for machines (check.formats)
AUTO_DIALECT = "auto"  # GoogleSQL first; PostgreSQL when the emulator refuses the first statement as GoogleSQL


@dataclass(frozen=True)
class CheckRequest:
    schema: Path | None = None  # a Spanner DDL file, or a folder of migrations
    more_schemas: tuple[Path, ...] = ()  # further DDL files or folders, applied after `schema` in this order
    dialect: str = AUTO_DIALECT  # the DDL's Spanner dialect: auto, or one of strategies.DIALECTS["spanner"]
    bigtable: str | None = None  # a Bigtable row-key template
    reads: tuple[str, ...] = ()  # Bigtable: prefix:... / range:...
    columns: Path | None = None  # the --columns file
    nodes: int = SplitParams.nodes
    rows: int = DEFAULT_CHECK_ROWS
    shards: int = DEFAULT_SHARDS
    device_rate: float | None = None  # Bigtable: one device's writes per second; None: the modelled load's
    fail_on: tuple[str, ...] = ()  # verdicts that make the check exit 1
    strict: bool = False  # take nothing from a column's name: a guess is no fact for a CI gate
    write_columns: Path | None = None  # --write-columns: the columns file the verdicts depend on, written here
    save_to: Path | None = None  # --save-strategy: write each checked design as a strategy folder here
    load_s: float | None = None  # --load: run the design under keybench run's load for this long, after the check

    @property
    def drafts_wanted(self) -> bool:
        """Whether the checked drafts are turned into strategy folders (to save or to load)."""
        return self.save_to is not None or self.load_s is not None
