"""The split model's parameters, their defaults and bounds, and the simulation's sizes:
light to import (no numpy), so the CLI can read its defaults from here."""

from __future__ import annotations

import math
from dataclasses import dataclass

from loadtests.errors import KeybenchError, check_range

DEFAULT_ROWS = 1_000_000  # inserts `keybench simulate` models unless told otherwise
DEFAULT_READS = 200  # sample reads per read operation in a simulation
DEFAULT_RATE_PER_S = 1000.0  # the simulated insert rate: spaces the synthetic writes in time
MAX_NODES = 10_000
MAX_ROWS = 10**12  # any count of rows or windows the model is given


@dataclass(frozen=True)
class SplitParams:
    """Model parameters. Thresholds scale with the run, so that a 10-second emulator run of a
    few thousand writes and a 10M-key simulation are measured with the same yardstick."""

    nodes: int = 8
    # Windows: `target_windows` windows of equal write count, but never fewer than
    # `min_writes_per_node` writes per node in one, so a node's share is not sampling noise.
    target_windows: int = 50
    min_writes_per_node: int = 50
    window_writes: int | None = None  # fixed window size instead of the two above
    # Load split: a range taking more than this share of one node's fair load in a window
    # (1.0: more than a node's fair share, so no placement could balance it) splits, into
    # at most `max_load_pieces` pieces (2: at the median of its recent keys).
    load_split_share: float = 1.0
    max_load_pieces: int = 2
    # Size split: rows in a range; None = total rows / (4 * nodes), at least 1,000, so a
    # spread key ends with a few ranges per node from size alone.
    size_split_rows: int | None = None
    # Windows left out of the write and read metrics: a new table sits on one range until it
    # has split, which says nothing about the key design. None = ceil(log2(nodes)) + 1, the
    # windows a spread key needs to reach one range per node by halving, plus one.
    warmup_windows: int | None = None

    def validate(self) -> None:
        """The refusals of the model's options (`--nodes`, `--window-writes`, ...)."""
        check_range("--nodes", self.nodes, 1, MAX_NODES)
        check_range("--window-writes", self.window_writes, 1, MAX_ROWS)
        check_range("--size-split-rows", self.size_split_rows, 1, MAX_ROWS)
        check_range("--warmup-windows", self.warmup_windows, 0, MAX_ROWS)
        check_range("--load-split-share", self.load_split_share, 0, 1e6)
        if not self.load_split_share > 0:
            raise KeybenchError(f"--load-split-share must be positive, got {self.load_split_share:g}")

    def window_size(self, writes: int) -> int:
        if self.window_writes:
            return self.window_writes
        return max(1, self.min_writes_per_node * self.nodes, math.ceil(writes / self.target_windows))

    def warmup(self) -> int:
        return self.warmup_windows if self.warmup_windows is not None else math.ceil(math.log2(max(2, self.nodes))) + 1

    def size_threshold(self, rows: int) -> int:
        return self.size_split_rows or max(1000, rows // (4 * self.nodes))
