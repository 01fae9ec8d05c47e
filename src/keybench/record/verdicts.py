"""The verdict on each recorded table: the split model and the verdict rule of `keybench run`,
over the keys the application really wrote.

A short recording (an integration test writes a few rows) cannot be judged at many nodes:
its verdict is `inconclusive`, with the writes that would settle it, never a guess.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from keybench.design.byteorder import TABLE_SPACE
from keybench.model.model_result import MIN_MEASURED_PER_NODE, ModelResult
from keybench.model.params import SplitParams
from keybench.model.splitmodel import model_stream
from keybench.model.verdict import INCONCLUSIVE, judge
from keybench.record.recorder import Recorder, TableName, TableRecord

# The columns of record.csv, in order; the first ones are the answer. A row per key space: a
# table (index empty) and each Spanner index its writes carried.
COLUMNS = ("backend", "database", "table", "index", "verdict", "verdict_reason", "hot_node_share", "effective_nodes",
           "hot_row_share", "writes", "writes_needed", "reads", "rows_per_read", "failed_writes", "nodes")


_NO_FIGURES = {"hot_node_share": "", "effective_nodes": "", "hot_row_share": ""}  # no split was measured


def record_rows(record: TableRecord, params: SplitParams, failed: int = 0) -> list[dict]:
    """One table's rows of record.csv: its own key space first, then each index's."""
    base = {"backend": record.backend, "database": record.database, "table": record.table,
            "failed_writes": failed, "nodes": params.nodes, "writes_needed": ""}
    if not record.writes:
        return [{**base, **_reads(record, None), **_NO_FIGURES, "index": "", "writes": 0, "verdict": INCONCLUSIVE,
                 "verdict_reason": "no writes recorded"}]
    result = model_stream(record.stream, params)
    spaces = sorted(result.spaces, key=lambda s: (s != TABLE_SPACE, s))
    return [_space_row({**base, **_reads(record, space)}, space,
                       ModelResult(nodes=params.nodes, spaces={space: result.spaces[space]}), params)
            for space in spaces]


def _reads(record: TableRecord, space: str | None) -> dict:
    """The reads of one key space (the table's, or an index's the reads went through); None: all."""
    reads = record.reads.total() if space is None else record.reads[space]
    rows = record.rows_read.total() if space is None else record.rows_read[space]
    return {"reads": reads, "rows_per_read": round(rows / reads, 2) if reads else ""}


def _space_row(base: dict, space: str, result: ModelResult, params: SplitParams) -> dict:
    verdict = judge(result)
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
        # Shares over unmeasured writes describe no split of the space: they are left blank,
        # not shown as figures a reader would take for a hotspot (1.0, 1.0 effective nodes).
        return {**row, **_NO_FIGURES, "verdict": verdict.verdict, "verdict_reason": reason}
    return {**row, "verdict": verdict.verdict, "verdict_reason": verdict.reason,
            "hot_node_share": round(verdict.hot_node_share, 4), "effective_nodes": round(verdict.effective_nodes, 1),
            "hot_row_share": round(verdict.hot_row_share, 4)}


def database_id(database: str) -> str:
    """The database's (Bigtable: the instance's) own id, the last part of its resource name."""
    return database.rsplit("/", 1)[-1]


def table_labels(tables: Iterable[TableName]) -> dict[TableName, str]:
    """Each table as backend:table; a table whose name was recorded in more than one database
    is named with its database: backend:database/table."""
    databases: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for t in tables:
        databases[(t.backend, t.table)].add(t.database)
    out = {}
    for (backend, table), same in databases.items():
        by_id = len({database_id(d) for d in same}) == len(same)  # else two instances hold databases of one id
        for database in same:
            where = "" if len(same) == 1 else (database_id(database) if by_id else database) + "/"
            out[TableName(backend, database, table)] = f"{backend}:{where}{table}"
    return out


def row_table(row: dict) -> TableName:
    return TableName(row["backend"], row["database"], row["table"])


def labels(rows: list[dict], tables: dict[TableName, str] | None = None) -> list[str]:
    """Each row's key space as its table's label (`tables`; default: of these rows' tables),
    with .index for an index."""
    tables = table_labels(row_table(r) for r in rows) if tables is None else tables
    return [tables[row_table(r)] + (f".{r['index']}" if r["index"] else "") for r in rows]


def verdict_table(rows: list[dict], names: list[str]) -> str:
    """The verdicts, one line per table (`names`: the rows' labels): what a person reads first."""
    if not rows:
        return "no table was written or read"
    width = max(len(name) for name in names)
    return "\n".join(f"{name:<{width}}  {r['verdict']:<12}  {_figures(r)}, "
                     f"{r['reads']:,} reads ({r['verdict_reason']})" for name, r in zip(names, rows, strict=True))


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
        """The names of the tables recorded (a name twice if two databases hold it)."""
        return [r.table for r in self.recorder.snapshot()]

    def table(self, name: str, nodes: int | None = None, database: str | None = None) -> TableVerdict:
        """The verdict on what was written to table `name` so far, at `nodes` nodes (default the
        model's). `database` (its id or resource name; Bigtable: the instance's) picks one
        where tables of that name were recorded in more than one."""
        return self._space(name, "", nodes, database)

    def index(self, table: str, index: str, nodes: int | None = None, database: str | None = None) -> TableVerdict:
        """The verdict on the entries table `table`'s writes made in its index `index` so far."""
        return self._space(table, index, nodes, database)

    def _space(self, table: str, index: str, nodes: int | None, database: str | None) -> TableVerdict:
        params = SplitParams() if nodes is None else SplitParams(nodes=nodes)
        params.validate()
        found = [r for r in self.recorder.snapshot() if r.table == table
                 and database in (None, r.database, database_id(r.database))]
        if not found:
            recorded = ", ".join(self.tables()) or "none"
            where = f" in database {database!r}" if database is not None else ""
            raise KeyError(f"no write or read of table {table!r}{where} was recorded (recorded: {recorded})")
        if len(found) > 1:
            raise KeyError(f"table {table!r} was recorded in {len(found)} databases "
                           f"({', '.join(r.database for r in found)}): name one with database=")
        record = found[0]
        failed = self.recorder.failed_writes.get(record.name, 0)
        rows = {r["index"]: r for r in record_rows(record, params, failed)}
        if index in rows:
            return TableVerdict(rows[index])
        raise KeyError(f"no write of {table}'s index {index!r} was recorded "
                       f"(recorded: {', '.join(i for i in rows if i) or 'none'})")
