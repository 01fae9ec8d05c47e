"""The verdict on each recorded table: the split model and the verdict rule of `keybench run`,
over the keys the application really wrote.

A short recording (an integration test writes a few rows) cannot be judged at many nodes:
its verdict is `inconclusive`, with the writes that would settle it, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from keybench.model.model_result import MIN_MEASURED_PER_NODE
from keybench.model.params import SplitParams
from keybench.model.splitmodel import model_stream
from keybench.model.verdict import INCONCLUSIVE, judge
from keybench.record.recorder import Recorder, TableRecord

# The columns of record.csv, in order; the first ones are the answer.
COLUMNS = ("backend", "table", "verdict", "verdict_reason", "hot_node_share", "effective_nodes", "hot_row_share",
           "writes", "writes_needed", "reads", "rows_per_read", "failed_writes", "nodes")


def table_verdict(record: TableRecord, params: SplitParams, failed: int = 0) -> dict:
    """One table's row of record.csv."""
    row = {"backend": record.backend, "table": record.table, "writes": record.writes, "reads": record.reads,
           "rows_per_read": round(record.rows_read / record.reads, 2) if record.reads else "",
           "failed_writes": failed, "nodes": params.nodes, "writes_needed": ""}
    if not record.writes:
        return {**row, "verdict": INCONCLUSIVE, "verdict_reason": "no writes recorded", "hot_node_share": "",
                "effective_nodes": "", "hot_row_share": ""}
    result = model_stream(record.stream, params)
    verdict = judge(result)
    reason = verdict.reason
    if not result.measured:
        # The model measures writes once the table holds enough rows to cut into ranges; those
        # first writes stay unmeasured however long the stream, so it needs them plus the
        # measured writes a verdict takes at this node count.
        summary = result.summary()
        needed = record.writes - summary["measured_writes"] + MIN_MEASURED_PER_NODE * params.nodes
        row["writes_needed"] = needed
        reason = (f"{record.writes:,} writes recorded, {summary['measured_writes']:,} of them measured; about "
                  f"{needed:,} writes would settle a verdict at {params.nodes} nodes")
    return {**row, "verdict": verdict.verdict, "verdict_reason": reason,
            "hot_node_share": round(verdict.hot_node_share, 4), "effective_nodes": round(verdict.effective_nodes, 1),
            "hot_row_share": round(verdict.hot_row_share, 4)}


def verdict_table(rows: list[dict]) -> str:
    """The verdicts, one line per table: what a person reads first."""
    if not rows:
        return "no table was written or read"
    width = max(len(f"{r['backend']}:{r['table']}") for r in rows)
    return "\n".join(f"{r['backend'] + ':' + r['table']:<{width}}  {r['verdict']:<12}  {_figures(r)}, "
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
        return [f"{r['backend']} table {r['table']}: {self} ({_figures(r)}): {r['verdict_reason']}"]


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
        params = SplitParams() if nodes is None else SplitParams(nodes=nodes)
        params.validate()
        for record in self.recorder.snapshot():
            if record.table == name:
                failed = self.recorder.failed_writes.get((record.backend, record.table), 0)
                return TableVerdict(table_verdict(record, params, failed))
        recorded = ", ".join(self.tables()) or "none"
        raise KeyError(f"no write or read of table {name!r} was recorded (recorded: {recorded})")
