"""What the split model finds: each key space's figures (SpaceMetrics) and the run's result over
its spaces (ModelResult), which the verdict rule judges."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from keybench.design.byteorder import TABLE_SPACE
from keybench.model.shape import KeyShape

MIN_MEASURED_PER_NODE = 4  # measured writes per node below which a space cannot decide a verdict


@dataclass
class SpaceMetrics:
    """What the model predicts for one key space."""

    space: str
    writes: int
    windows: int  # windows measured (after the table held enough rows to cut into ranges)
    window_writes: int
    measured_writes: int  # writes in the measured windows
    hot_node_share: float  # mean over windows of the hot node's share of writes; ideal 1/N
    effective_nodes: float  # 1 / (mean over windows of sum(share^2)), unbiased per window; ideal N
    write_throughput_vs_ideal: float  # 1 / (N * hot_node_share): the busiest node saturates first
    hot_unit_share: float  # the busiest split unit's (row's, or root row's) share of writes
    read_ranges_touched: float | None  # mean ranges a read's intervals span; None without reads
    reads: int
    read_ranges_touched_by_operation: dict[str, float]  # the same mean per read operation
    read_counts: dict[str, int]  # reads measured per operation
    mean_key_bytes: float
    splits: int  # ranges - 1 at the end of the stream
    final_ranges: int
    rows: int = 0  # distinct rows (keys) the load wrote
    rewrite_share: float = 0.0  # share of writes to a row written before: a new version or cell
    rewrite_lifetime: float = 0.0  # how long rewritten rows keep being written, as a share of the stream
    max_row_writes: int = 0  # writes to the most-written row: its versions or cells
    row_writes_per_s: float = 0.0  # the same row's writes per second over its life


@dataclass
class ModelResult:
    nodes: int
    spaces: dict[str, SpaceMetrics] = field(default_factory=dict)
    shape: KeyShape = field(default_factory=KeyShape)  # what the design's key says past the stream's end

    def measurable(self) -> list[SpaceMetrics]:
        """Spaces with enough measured writes to tell spread from hot at this node count
        (MIN_MEASURED_PER_NODE per node); every space if none has."""
        enough = [m for m in self.spaces.values() if m.measured_writes >= MIN_MEASURED_PER_NODE * self.nodes]
        return enough or list(self.spaces.values())

    @property
    def measured(self) -> bool:
        """Whether some space had enough writes measured for a verdict."""
        return any(m.measured_writes >= MIN_MEASURED_PER_NODE * self.nodes for m in self.spaces.values())

    @property
    def hot_space(self) -> str:
        """The space whose busiest node carries the largest share: the strategy's bottleneck."""
        return max(self.measurable(), key=lambda m: (m.hot_node_share, m.space == TABLE_SPACE)).space

    def summary(self) -> dict:
        """Headline figures: write figures of the worst space, reads over every space,
        key size of the table, splits and ranges summed over spaces."""
        worst = self.spaces[self.hot_space]
        hot_unit = max(self.measurable(), key=lambda m: m.hot_unit_share)
        rewritten = max(self.spaces.values(), key=lambda m: (m.rewrite_share, m.space == TABLE_SPACE))
        busiest_row = max(self.spaces.values(), key=lambda m: m.max_row_writes)
        reads = sum(m.reads for m in self.spaces.values())
        touched = sum((m.read_ranges_touched or 0) * m.reads for m in self.spaces.values())
        table = self.spaces.get(TABLE_SPACE, worst)
        return {
            "nodes": self.nodes,
            "hot_space": worst.space,
            "hot_node_share": worst.hot_node_share,
            "effective_nodes": worst.effective_nodes,
            "write_throughput_vs_ideal": worst.write_throughput_vs_ideal,
            "hot_unit_share": hot_unit.hot_unit_share,
            "hot_unit_space": hot_unit.space,
            "rewrite_share": rewritten.rewrite_share,
            "rewrite_lifetime": rewritten.rewrite_lifetime,
            "measured": self.measured,
            "max_row_writes": busiest_row.max_row_writes,
            "row_writes_per_s": busiest_row.row_writes_per_s,
            "read_ranges_touched": touched / reads if reads else None,
            **{f"read_ranges_touched_{op}": value for op, value in self.read_ranges_by_operation().items()},
            "mean_key_bytes": table.mean_key_bytes,
            "splits": sum(m.splits for m in self.spaces.values()),
            "final_ranges": sum(m.final_ranges for m in self.spaces.values()),
            "windows": worst.windows,
            "measured_writes": worst.measured_writes,
            "window_writes": worst.window_writes,
            "writes": sum(m.writes for m in self.spaces.values()),
            # what the table and its indexes hold: a NULL_FILTERED index has entries for some rows only
            "table_rows": self.spaces[TABLE_SPACE].writes if TABLE_SPACE in self.spaces else 0,
            "index_entries": sum(m.writes for s, m in self.spaces.items() if s != TABLE_SPACE),
        }

    def read_ranges_by_operation(self) -> dict[str, float]:
        """Mean ranges touched per read operation, over every space its reads went to."""
        totals: dict[str, list[float]] = {}
        for m in self.spaces.values():
            for op, value in m.read_ranges_touched_by_operation.items():
                count = m.read_counts.get(op, 0)
                entry = totals.setdefault(op, [0.0, 0])
                entry[0] += value * count
                entry[1] += count
        return {op: total / count for op, (total, count) in totals.items() if count}

    def per_space(self) -> list[dict]:
        return [asdict(m) for m in self.spaces.values()]
