"""The split model's parameters, their defaults and bounds, and the simulation's sizes:
light to import (no numpy), so the CLI can read its defaults from here."""

from __future__ import annotations

import math
from dataclasses import dataclass

from keybench.errors import KeybenchError, check_range

DEFAULT_ROWS = 1_000_000  # inserts `keybench simulate` models unless told otherwise
DEFAULT_READS = 200  # sample reads per read operation in a simulation
MAX_READS = 100_000  # each sample read is planned one at a time: more would take hours
DEFAULT_RATE_PER_S = 1000.0  # the simulated insert rate: spaces the synthetic writes in time
MAX_NODES = 10_000
MAX_ROWS = 10**12  # any count of rows or windows the model is given
MAX_RANGES_PER_NODE = 1_000
# The model holds a window of writes and the recent writes its balancer remembers, whatever
# the stream's length (splitmodel.SpaceModel): that, not the number of rows, is what a large
# --rows (a window is rows / the target windows), --window-writes or --nodes (the recent
# writes grow with the ranges) costs. Refused in one line before it would pass this budget.
MODEL_MEMORY_BYTES = 2 * 1024**3


def held_write_bytes(key_bytes: int) -> int:
    """What the model holds per write it keeps (key, time, length, its word, and the copy a
    window's concatenation makes), for keys of `key_bytes`."""
    return 2 * (key_bytes + 32)
# The documented row limits of Bigtable ("Bigtable: Schema design best practices"): a row
# should stay under 100 MB, and cannot pass 256 MB.
ROW_RECOMMENDED_MB, ROW_LIMIT_MB = 100, 256

# The verdict's thresholds, in multiples of a node's fair share of the writes (1/N): a design
# spreads when its busiest node carries at most SPREAD_FAIR_SHARES of it, and hotspots when
# that node carries at least HOT_FAIR_SHARES; between the two the estimate cannot tell.
SPREAD_FAIR_SHARES = 1.5
HOT_FAIR_SHARES = 2.0
HOT_SHARE_CAP = 0.9  # with 1 or 2 nodes, twice the fair share is all of it: 0.9 is hot enough


def spread_bound(nodes: int) -> float:
    """The busiest node's share at or below which writes count as spread."""
    return SPREAD_FAIR_SHARES / nodes


def hot_bound(nodes: int) -> float:
    """The busiest node's share at or above which writes count as a hotspot."""
    return min(HOT_SHARE_CAP, HOT_FAIR_SHARES / nodes)


@dataclass(frozen=True)
class SplitParams:
    """Model parameters (results/README.md, "The split model"). Nothing here scales with a
    design: a 10-second emulator stage of a few thousand writes and a 100M-key simulation
    are measured with the same estimator."""

    nodes: int = 8
    # The steady state the model assumes: the key space held so far cut into this many
    # ranges per node at quantiles of its rows (so each range holds as much data), ranges
    # then placed on nodes by their load.
    ranges_per_node: int = 4
    # Windows: the writes, in time order, are cut into `target_windows` windows of equal
    # write count (at least `min_window_writes` each), so a hotspot that moves through the
    # key space (a time-ordered key that wraps, say) is caught where it is at the time. Each
    # window costs a pass over the units held, so their number is bounded, not their size.
    target_windows: int = 400
    min_window_writes: int = 4
    window_writes: int | None = None  # fixed window size instead of the two above

    def validate(self) -> None:
        """The refusals of the model's options (`--nodes`, `--window-writes`, ...)."""
        check_range("--nodes", self.nodes, 1, MAX_NODES)
        check_range("--window-writes", self.window_writes, 2, MAX_ROWS)
        check_range("--ranges-per-node", self.ranges_per_node, 1, MAX_RANGES_PER_NODE)
        if self.nodes * self.ranges_per_node > MAX_NODES * 10:
            raise KeybenchError(f"--nodes × --ranges-per-node is at most {MAX_NODES * 10:,}, got "
                                f"{self.nodes * self.ranges_per_node:,}")

    def window_size(self, writes: int) -> int:
        if self.window_writes:
            return self.window_writes
        return max(self.min_window_writes, math.ceil(writes / self.target_windows))

    @property
    def ranges(self) -> int:
        """Ranges the key space is cut into once it holds enough rows."""
        return self.nodes * self.ranges_per_node

