"""A user's table and its indexes as keybench key spaces: each key column becomes a part of
keybench's key-part vocabulary (design/keys.py) by its distribution, the table becomes an
in-memory Strategy, and the existing simulator and split model judge every space.

A key column whose distribution is unknown is modelled twice, as sequential and as random:
a verdict that holds either way is given, one that does not is `inconclusive` and names
the column."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from keybench.check.inference import Distribution
from keybench.check.schema import Column, KeyColumn, Schema, Table
from keybench.children import PlainProcess, PlainProcessError
from keybench.design.byteorder import TABLE_SPACE
from keybench.design.keys import DEFAULT_SEED, spanner_part
from keybench.design.strategies import Index, Strategy
from keybench.infra.progress import PROGRESS_EVERY_S, progress
from keybench.infra.signals import interrupt_point
from keybench.model.keystream import KeyStream
from keybench.model.memo import SpaceInputs, SpaceMemo
from keybench.model.model_result import ModelResult, SpaceMetrics
from keybench.model.params import SplitParams
from keybench.model.simulate import simulate_stream
from keybench.model.splitmodel import model_space, space_inputs
from keybench.model.verdict import INCONCLUSIVE, Verdict, judge

# What an unknown column is modelled as: its worst case and its best.
UNKNOWN_CASES = ("sequential", "random")
# Key spaces (tables and indexes) from which a check models in a second process too: below,
# starting it costs more than it saves.
HELPER_SPACES = 4


@dataclass(frozen=True)
class SpaceCheck:
    """The verdict on one key space: a table's primary key, or one of its indexes."""

    table: str
    index: str | None  # None: the table's own key
    key: tuple[KeyColumn, ...]  # the space's key columns (an index: its own, then the table key's others)
    verdict: Verdict
    assumptions: tuple[tuple[str, Distribution], ...]  # each key column and what keybench takes it to be
    # An unknown column's cases: {case: verdict}, e.g. {"sequential": hotspot, "random": spread}.
    cases: dict[str, Verdict] = field(default_factory=dict)
    managed: bool = False  # an index Spanner keeps for a foreign key, not the user's own
    parents: tuple[str, ...] = ()  # an interleaved table's parent, its parent's, ..., up to the root

    @property
    def name(self) -> str:
        # An index of a named schema's table is named with that schema once (sales.Orders.ByDate).
        return f"{self.table}.{self.index.rpartition('.')[2]}" if self.index else self.table

    @property
    def kind(self) -> str:
        return "index" if self.index else "table"

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(c for c, d in self.assumptions if not d.known)


def part_spec(column: Column, distribution: Distribution, descending: bool, schema: Schema,
              typed: bool = False) -> dict:
    """A key column as a spanner_part declaration of keybench's vocabulary; `typed`: with the
    column's type, to which the values are converted when rows are written (a saved design)."""
    spec = {"column": column.name, "order": "desc" if descending else "asc"} | ({"type": column.type} if typed else {})
    name, base = distribution.name, column.base_type
    if name == "time":
        return {**spec, "value": "ts"}
    if name == "sequential":
        return {**spec, "value": "sequence"}
    if name == "bit_reversed":
        # A sequence's own start and skip range set its values (byteorder.generated_values).
        return {**spec, "value": "generated" if distribution.sequence else "bit_reversed_sequence"}
    if name in ("uuid4", "random"):
        random_value = {"INT64": "uuid4_high", "BYTES": "uuid4_bytes"}.get(base, "uuid4_string")
        return {**spec, "value": random_value}
    if name in ("uuid1", "uuid7"):
        return {**spec, "value": name}
    if name == "categorical":
        return {**spec, "value": "category", "values": distribution.values}
    if name == "zipf":
        extra = {} if distribution.exponent is None else {"exponent": distribution.exponent}
        return {**spec, "value": "zipf", "values": distribution.values, **extra}
    raise ValueError(f"no key part for distribution {name!r}")


def key_specs(schema: Schema, table: Table, key: tuple[KeyColumn, ...], distributions: dict[str, Distribution],
              typed: bool = False) -> list[dict]:
    """A table's or an index's key as spanner_part declarations: what the in-memory Strategy
    is built from, and what a saved design's strategy.toml declares."""
    return [part_spec(table.column(k.name), distributions[k.name], k.descending, schema, typed) for k in key]


def table_strategy(schema: Schema, table: Table, distributions: dict[str, Distribution], source: Path) -> Strategy:
    """The table and its indexes as an in-memory Strategy (no strategy.toml: nothing is claimed)."""
    def parts(key: tuple[KeyColumn, ...]):
        return tuple(spanner_part(spec) for spec in key_specs(schema, table, key, distributions))

    indexes = tuple(Index(i.name, parts(i.key), i.storing, i.null_filtered) for i in schema.indexes_of(table.name))
    sequences = {d.sequence for d in distributions.values() if d.sequence}
    ddl = tuple(s.ddl() for s in schema.sequences if s.name in sequences)
    return Strategy(backend="spanner", name=table.name, dialect="googlesql", directory=source,
                    summary=f"{table.name} as {source.name} declares it", claim="", table=table.name,
                    parts=parts(table.key), ddl=ddl, parent_table=table.parent, indexes=indexes)


# The spaces modelled by the checks of this process (the pytest plugin's many, a schema by
# default and then under --strict): figures only, the most recently used.
SHARED_MEMO = SpaceMemo()


class SpaceModeller:
    """Models the key spaces of one check: each distinct stream once (a SpaceMemo: tables of the
    same key shape, the cases of an unknown column, the tables a fix left as they were, what an
    earlier check in this process modelled), and, for a schema of many spaces, two at a time:
    one here, one in a process beside it (the model is CPU-bound; this machine kind has 2
    cores). The figures are the model's either way; a helper that fails leaves its space, and
    the rest, to this process."""

    def __init__(self, nodes: int, memo: SpaceMemo | None = None, helper: bool = False):
        self.params = SplitParams(nodes=nodes)
        self.memo = SHARED_MEMO if memo is None else memo
        self.results: dict[bytes, SpaceMetrics] = {}  # this check's, whatever the memo keeps
        self.modelled = self.reused = 0
        self.helper: PlainProcess | None = None  # started at the first space to model: never for a memo's hits
        self._wants_helper = helper
        self._in_flight: tuple[bytes, SpaceInputs] | None = None  # the space the helper is modelling

    def submit(self, stream: KeyStream) -> dict[str, bytes]:
        """Every space of the stream modelled, or on its way: {space: digest}."""
        digests = {}
        for space in stream.spaces():
            inputs = space_inputs(stream, space, self.params)
            if inputs is None:
                continue
            digest = digests[space] = SpaceMemo.digest(inputs)
            if digest in self.results or (self._in_flight and digest == self._in_flight[0]):
                self.reused += 1
                continue
            known = self.memo.get(digest)
            if known is not None:
                self.results[digest] = known
                self.reused += 1
                continue
            self.modelled += 1
            if self._wants_helper and self.helper is None:
                self.helper = PlainProcess()  # it imports while this process models the next space
            if self.helper is not None and self._in_flight is None:
                try:
                    self.helper.send(model_space, *inputs)
                    self._in_flight = digest, inputs
                    continue
                except PlainProcessError as exc:
                    self._give_up(exc)
            self._keep(digest, model_space(*inputs))
            self._collect()  # the helper's space, modelled meanwhile
        return digests

    def verdicts(self, digests: dict[str, bytes]) -> dict[str, Verdict]:
        """{space: verdict} of spaces `submit` took."""
        self._collect()
        return {space: judge(ModelResult(nodes=self.params.nodes,
                                         spaces={space: dataclasses.replace(self.results[digest], space=space)}))
                for space, digest in digests.items()}

    def _keep(self, digest: bytes, metrics: SpaceMetrics) -> None:
        self.results[digest] = metrics
        self.memo.put(digest, metrics)

    def _collect(self) -> None:
        if self._in_flight is None:
            return
        (digest, inputs), self._in_flight = self._in_flight, None
        assert self.helper is not None  # a space is in flight only in a running helper
        try:
            self._keep(digest, self.helper.receive())
        except PlainProcessError as exc:
            self._give_up(exc)
            self._keep(digest, model_space(*inputs))

    def _give_up(self, exc: Exception) -> None:
        progress(f"keybench: the model's helper process failed ({exc}); modelling in this process only")
        self._wants_helper = False
        self.close()

    def close(self) -> None:
        self._in_flight = None
        if self.helper is not None:
            self.helper.close()
            self.helper = None


def key_of(schema: Schema, table: Table, index_name: str | None) -> tuple[KeyColumn, ...]:
    if index_name is None:
        return table.key
    index = next(i for i in schema.indexes_of(table.name) if i.name == index_name)
    held = {k.name for k in index.key}
    return index.key + tuple(k for k in table.key if k.name not in held)


def check_table(schema: Schema, table: Table, distributions: dict[str, Distribution], source: Path,
                rows: int, modeller: SpaceModeller) -> Callable[[], list[SpaceCheck]]:
    """The table's spaces handed to the modeller; what it returns gives each space with its
    verdict and the assumptions behind it, once the modeller has them."""
    unknown = [c for c, d in distributions.items() if not d.known]
    submitted = {}
    for case in UNKNOWN_CASES if unknown else ("",):
        assumed = {c: Distribution(case, "unknown") if not d.known else d for c, d in distributions.items()}
        strategy = table_strategy(schema, table, assumed, source)
        submitted[case] = modeller.submit(simulate_stream(strategy, rows, seed=DEFAULT_SEED, reads_per_operation=0))
    return lambda: _table_checks(schema, table, distributions, {c: modeller.verdicts(d) for c, d in submitted.items()})


def _table_checks(schema: Schema, table: Table, distributions: dict[str, Distribution],
                  runs: dict[str, dict[str, Verdict]]) -> list[SpaceCheck]:
    checks = []
    for space in runs[next(iter(runs))]:
        index = None if space == TABLE_SPACE else space
        key = key_of(schema, table, index)
        by_case = {case: verdicts[space] for case, verdicts in runs.items()}
        first = next(iter(by_case.values()))
        mentioned = [k.name for k in key if not distributions[k.name].known]
        agree = len({v.verdict for v in by_case.values()}) == 1
        verdict = first if agree or not mentioned else dataclasses.replace(
            first, verdict=INCONCLUSIVE, reason=f"{', '.join(mentioned)}: the verdict depends on a distribution "
                                                "keybench cannot infer; state it with --columns")
        managed = index is not None and any(i.managed for i in schema.indexes_of(table.name) if i.name == index)
        checks.append(SpaceCheck(table.name, index, key, verdict,
                                 tuple((k.name, distributions[k.name]) for k in key),
                                 by_case if mentioned else {}, managed, parents_of(schema, table)))
    return checks


def parents_of(schema: Schema, table: Table) -> tuple[str, ...]:
    """The tables an interleaved table sits in, its parent first and its root last."""
    found: list[str] = []
    while table.parent and table.parent not in found:
        found.append(table.parent)
        table = schema.table(table.parent)
    return tuple(found)


def key_distributions(schema: Schema, table: Table, infer) -> dict[str, Distribution]:
    """Every column in the table's key or an index key: {column: distribution}."""
    names = [k.name for k in table.key]
    for index in schema.indexes_of(table.name):
        names += [k.name for k in index.key if k.name not in names]
    return {n: infer(table, table.column(n)) for n in dict.fromkeys(names)}


def check_schema(schema: Schema, stated: dict[str, Distribution], source: Path, rows: int,
                 nodes: int, strict: bool = False, memo: SpaceMemo | None = None) -> list[SpaceCheck]:
    """Every table's key spaces, parents first, each table's key before its indexes. `memo`:
    the spaces modelled before (by default the process's own, SHARED_MEMO)."""
    from keybench.check.inference import infer

    spaces = sum(1 + len(schema.indexes_of(t.name)) for t in schema.tables)
    modeller = SpaceModeller(nodes, memo, helper=spaces >= HELPER_SPACES)
    try:
        pending = []
        started = said = time.monotonic()
        for number, table in enumerate(schema.tables, 1):
            interrupt_point()
            distributions = key_distributions(schema, table, lambda t, c: infer(schema, t, c, stated, strict))
            pending.append(check_table(schema, table, distributions, source, rows, modeller))
            if time.monotonic() - said >= PROGRESS_EVERY_S and number < len(schema.tables):
                # A large schema takes minutes: say how far it got (stderr; the verdicts go to stdout).
                said = time.monotonic()
                progress(f"  {source.name}: modelling {number} of {len(schema.tables)} tables ({said - started:.0f} s)")
        return [check for table_checks in pending for check in table_checks()]
    finally:
        modeller.close()
