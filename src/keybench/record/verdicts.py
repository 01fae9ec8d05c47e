"""The verdict on each recorded table: the split model and the verdict rule of `keybench run`,
over the keys the application really wrote.

A short recording (an integration test writes a few rows) cannot be judged at many nodes:
its verdict is `inconclusive`, with the writes that would settle it, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from keybench.design.byteorder import TABLE_SPACE
from keybench.model.model_result import MIN_MEASURED_PER_NODE, ModelResult
from keybench.model.params import SplitParams
from keybench.model.splitmodel import model_stream
from keybench.model.verdict import INCONCLUSIVE, judge
from keybench.record.recorder import Recorder, TableRecord

# The columns of record.csv, in order; the first ones are the answer. A row per key space: a
# table (index empty) and each Spanner index its writes carried.
COLUMNS = ("backend", "table", "index", "verdict", "verdict_reason", "hot_node_share", "effective_nodes",
           "hot_row_share", "writes", "writes_needed", "reads", "rows_per_read", "failed_writes", "nodes")


def record_rows(record: TableRecord, params: SplitParams, failed: int = 0) -> list[dict]:
    """One table's rows of record.csv: its own key space first, then each index's."""
    base = {"backend": record.backend, "table": record.table, "reads": record.reads,
            "rows_per_read": round(record.rows_read / record.reads, 2) if record.reads else "",
            "failed_writes": failed, "nodes": params.nodes, "writes_needed": ""}
    if not record.writes:
        return [{**base, "index": "", "writes": 0, "verdict": INCONCLUSIVE, "verdict_reason": "no writes recorded",
                 "hot_node_share": "", "effective_nodes": "", "hot_row_share": ""}]
    result = model_stream(record.stream, params)
    spaces = sorted(result.spaces, key=lambda s: (s != TABLE_SPACE, s))
    return [_space_row(base, space, ModelResult(nodes=params.nodes, spaces={space: result.spaces[space]}), params)
            for space in spaces]


def _space_row(base: dict, space: str, result: ModelResult, params: SplitParams) -> dict:
    verdict = judge(result)
    reason = verdict.reason
    row = {**base, "index": "" if space == TABLE_SPACE else space, "writes": result.spaces[space].writes}
    if not result.measured:
        # The model measures writes once the space holds enough rows to cut into ranges; those
        # first writes stay unmeasured however long the stream, so it needs them plus the
        # measured writes a verdict takes at this node count.
        measured = result.spaces[space].measured_writes
        needed = row["writes"] - measured + MIN_MEASURED_PER_NODE * params.nodes
        row["writes_needed"] = needed
        reason = (f"{row['writes']:,} writes recorded, {measured:,} of them measured; about "
                  f"{needed:,} writes would settle a verdict at {params.nodes} nodes")
    return {**row, "verdict": verdict.verdict, "verdict_reason": reason,
            "hot_node_share": round(verdict.hot_node_share, 4), "effective_nodes": round(verdict.effective_nodes, 1),
            "hot_row_share": round(verdict.hot_row_share, 4)}


def label(row: dict) -> str:
    """backend:table, or backend:table.index."""
    return f"{row['backend']}:{row['table']}" + (f".{row['index']}" if row["index"] else "")


def verdict_table(rows: list[dict]) -> str:
    """The verdicts, one line per table: what a person reads first."""
    if not rows:
        return "no table was written or read"
    width = max(len(label(r)) for r in rows)
    return "\n".join(f"{label(r):<{width}}  {r['verdict']:<12}  {_figures(r)}, "
                     f"{r['reads']:,} reads ({r['verdict_reason']})" for r in rows)


def _figures(r: dict) -> str:
    nodes = (f"hot node {r['hot_node_share']}, {r['effective_nodes']} effective nodes of {r['nodes']}, "
             if r["hot_node_share"] != "" else "")
    return f"{nodes}{r['writes']:,} writes"


class RecordedVerdict(str):
    """A table's verdict, a plain string that knows its row: a failed `assert ... == "spread"`
    then shows the figures and the reason (the pytest plugin's assertion explanation)."""

    row: dict

    def facts(self) -> list[str]:
        r = self.row
        what = f"index {r['table']}.{r['index']}" if r["index"] else f"table {r['table']}"
        return [f"{r['backend']} {what}: {self} ({_figures(r)}): {r['verdict_reason']}"]


@dataclass(frozen=True)
class TableVerdict:
    """One recorded table as a test asserts on it: `recording.table("Orders").verdict == "spread"`."""

    row: dict

    @property
    def verdict(self) -> RecordedVerdict:
        verdict = RecordedVerdict(self.row["verdict"])
        verdict.row = self.row
        return verdict

    def __getattr__(self, name: str):
        try:
            return self.row[name]
        except KeyError:
            raise AttributeError(name) from None


class Recording:
    """What a recorder saw, judged when asked (the pytest plugin's `keybench_recorder`)."""

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def tables(self) -> list[str]:
        return [r.table for r in self.recorder.snapshot()]

    def table(self, name: str, nodes: int | None = None) -> TableVerdict:
        """The verdict on what was written to table `name` so far, at `nodes` nodes (default the model's)."""
        return self._space(name, "", nodes)

    def index(self, table: str, index: str, nodes: int | None = None) -> TableVerdict:
        """The verdict on the entries table `table`'s writes made in its index `index` so far."""
        return self._space(table, index, nodes)

    def _space(self, table: str, index: str, nodes: int | None) -> TableVerdict:
        params = SplitParams() if nodes is None else SplitParams(nodes=nodes)
        params.validate()
        for record in self.recorder.snapshot():
            if record.table == table:
                failed = self.recorder.failed_writes.get((record.backend, record.table), 0)
                rows = {r["index"]: r for r in record_rows(record, params, failed)}
                if index in rows:
                    return TableVerdict(rows[index])
                raise KeyError(f"no write of {table}'s index {index!r} was recorded "
                               f"(recorded: {', '.join(i for i in rows if i) or 'none'})")
        recorded = ", ".join(self.tables()) or "none"
        raise KeyError(f"no write or read of table {table!r} was recorded (recorded: {recorded})")
