"""What a check found, typed, for code that asserts on it (the pytest plugin, a user's
script): per key space the verdict with its figures, the assumptions behind it, the fix
and the verdict after the fix; and the report's lines as printed. `keybench check` prints
`lines`; everything else is the same facts as values."""

from __future__ import annotations

from dataclasses import dataclass, field

from keybench.check.check_text import figures
from keybench.check.fixes import Fix
from keybench.check.keyspaces import SpaceCheck
from keybench.design.ddl import INDEX_KIND, TABLE_KIND, declaring_foreign_key, last_creating
from keybench.errors import KeybenchError
from keybench.model.verdict import Verdict


class UnknownSpace(KeybenchError, LookupError):
    """A table, index or row key the check did not judge: the message lists those it did."""


class SpaceVerdict(str):
    """A space's verdict, a plain string that knows its space: a failed `assert
    space.verdict == "spread"` can then say which space it was and why (the pytest plugin's
    assertion explanation)."""

    space: SpaceResult


@dataclass(frozen=True)
class SpaceResult:
    """The verdict on one key space: a table's key, an index, or a Bigtable row key."""

    kind: str  # "table", "index" or "row key"
    name: str  # Orders, Orders.OrdersByCreatedAt, or the row-key template
    verdict: str  # hotspot, hot_row, spread or inconclusive
    hot_node_share: float
    effective_nodes: float
    nodes: int
    reason: str  # the figure and the bound that decided the verdict
    assumptions: dict[str, str]  # key column (Bigtable: segment) -> what keybench takes it to be, and why
    cases: dict[str, str] = field(default_factory=dict)  # an unknown column's cases: {"sequential": "hotspot", ...}
    fix: str | None = None  # the documented fix in one line; None: none proposed
    fix_ddl: tuple[str, ...] = ()  # Spanner: the statements the fix adds or rewrites
    fixed_key: str | None = None  # Bigtable: the fixed row-key template
    fixed_verdict: str | None = None  # the verdict after the fixes; None: nothing was fixed and checked again
    guessed: tuple[str, ...] = ()  # key columns whose distribution is a guess from their name (--strict drops it)
    managed: bool = False  # Spanner's own index, backing a foreign key: not the user's to change
    file: str | None = None  # the DDL file whose statement creates it, as given; None: a template, or not found
    line: int | None = None  # that statement's first line in the file

    def __post_init__(self):
        verdict = SpaceVerdict(self.verdict)
        verdict.space = self
        object.__setattr__(self, "verdict", verdict)

    @classmethod
    def of(cls, kind: str, name: str, verdict: Verdict, assumptions: dict[str, str], **rest) -> SpaceResult:
        return cls(kind, name, verdict.verdict, verdict.hot_node_share, verdict.effective_nodes, verdict.nodes,
                   verdict.reason, assumptions, **rest)

    # A Spanner name holds no dot: the last one in an index's name ends its table's (which may
    # be qualified with its schema: sales.Orders.OrdersByDate).
    @property
    def table(self) -> str | None:
        return {"table": self.name, "index": self.name.rpartition(".")[0]}.get(self.kind)

    @property
    def index(self) -> str | None:
        return self.name.rpartition(".")[2] if self.kind == "index" else None

    def facts(self) -> list[str]:
        """The space in a few lines: its verdict with figures and reason, assumptions, fix."""
        lines = [f"{self.kind} {self.name}: {self.verdict} ({figures(self)} of {self.nodes} nodes): {self.reason}"]
        if self.cases:
            lines.append(f"as {', as '.join(f'{case}: {verdict}' for case, verdict in self.cases.items())}")
        lines += [f"assumes {column} = {assumed}" for column, assumed in self.assumptions.items()]
        if self.fix:
            then = f", then {self.fixed_verdict}" if self.fixed_verdict else ""
            lines.append(f"fix: {self.fixed_key + ': ' if self.fixed_key else ''}{self.fix}{then}")
        return lines

    def __repr__(self) -> str:
        return f"<{'; '.join(self.facts())}>"


# A one-space result (a Bigtable row key) answers these itself: `check.verdict`.
SPACE_FIELDS = ("verdict", "hot_node_share", "effective_nodes", "nodes", "reason", "assumptions", "cases", "fix",
                "fix_ddl", "fixed_key", "fixed_verdict", "guessed")


@dataclass(frozen=True)
class CheckResult:
    source: str  # the DDL file, or the row-key template
    lines: tuple[str, ...]  # the report as `keybench check` prints it
    spaces: tuple[SpaceResult, ...]  # in the report's order
    closing: tuple[str, ...] = ()  # the report's last lines, after any FAIL line: the command to run next
    dialect: str | None = None  # the DDL's Spanner dialect as the emulator read it; None: a Bigtable template
    notes: tuple[str, ...] = ()  # what the check left out or rewrote, and why (a statement the emulator refused)

    @property
    def text(self) -> str:
        return "\n".join((*self.lines, *self.closing))

    def table(self, name: str) -> SpaceResult:
        """A table's own key space, by name (Spanner names ignore case)."""
        return self._find("table", name)

    def index(self, table_or_qualified: str, index: str | None = None) -> SpaceResult:
        """An index: index("Orders", "OrdersByCreatedAt"), index("Orders.OrdersByCreatedAt"),
        or index("OrdersByCreatedAt") (an index name is unique in a Spanner schema; in a named
        one: index("sales.OrdersByCreatedAt"))."""
        if index is not None:
            return self._find("index", f"{table_or_qualified}.{index}")
        wanted = table_or_qualified.lower()
        if any(s.kind == "index" and s.name.lower() == wanted for s in self.spaces):
            return self._find("index", table_or_qualified)
        # by the index's own name, as DDL writes it: with its schema's in a named schema (sales.ByDate)
        found = [s for s in self.spaces if s.kind == "index"
                 and f"{(s.table or '').rpartition('.')[0]}.{s.index}".lstrip(".").lower() == wanted]
        return found[0] if len(found) == 1 else self._find("index", table_or_qualified)

    def _find(self, kind: str, name: str) -> SpaceResult:
        for space in self.spaces:
            if space.kind == kind and space.name.lower() == name.lower():
                return space
        known = [s.name for s in self.spaces if s.kind == kind]
        listed = f"its {kind}es: {', '.join(known)}" if kind == "index" else f"its {kind}s: {', '.join(known)}"
        raise UnknownSpace(f"{self.source} has no {kind} {name!r}; " + (listed if known else f"it has no {kind}"))

    def __getattr__(self, name: str):
        if name in SPACE_FIELDS:
            if len(self.spaces) != 1:
                raise AttributeError(f"{self.source} has {len(self.spaces)} key spaces, each with its own {name}: "
                                     f"ask .table(name) or .index(name)")
            return getattr(self.spaces[0], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        spaces = "; ".join(f"{s.kind} {s.name}: {s.verdict}" for s in self.spaces)
        return f"<keybench check {self.source}: {spaces}>"


def space_result(check: SpaceCheck, fix: Fix | None, fixed: SpaceCheck | None, statements: list[str],
                 place: tuple[str, int] | None = None) -> SpaceResult:
    """One space's findings; `statements`: the user's DDL, which a fix's statements rewrite;
    `place`: the file and line of the statement that creates the space."""
    return SpaceResult.of(check.kind, check.name, check.verdict,
                          {column: distribution.describe() for column, distribution in check.assumptions},
                          cases={case: c.verdict for case, c in check.cases.items()},
                          fix=fix.what if fix else None, fix_ddl=tuple(fix.statements(statements)) if fix else (),
                          fixed_verdict=fixed.verdict.verdict if fixed else None,
                          guessed=tuple(c for c, d in check.assumptions if d.guessed), managed=check.managed,
                          file=place[0] if place else None, line=place[1] if place else None)


def spanner_result(source: str, lines: list[str], statements: list[str], checks: list[SpaceCheck],
                   fixes: dict[str, Fix], fixed_checks: list[SpaceCheck] | None,
                   closing: list[str] | None = None, places: list[tuple[str, int]] | None = None,
                   dialect: str | None = None, notes: tuple[str, ...] = ()) -> CheckResult:
    """`places`: each statement's file and line, where a finding points."""
    fixed = {c.name: c for c in fixed_checks or ()}

    def place(check: SpaceCheck) -> tuple[str, int] | None:
        if places is None:
            return None
        if check.managed:  # Spanner's own index: where the foreign key it backs is declared
            found = declaring_foreign_key(statements, check.table, tuple(k.name for k in check.key))
        else:
            found = last_creating(statements, *((INDEX_KIND, check.index) if check.index else (TABLE_KIND, check.name)))
        return None if found is None else places[found]

    return CheckResult(source, tuple(lines),
                       tuple(space_result(c, fixes.get(c.name), fixed.get(c.name), statements, place(c))
                             for c in checks),
                       tuple(closing or ()), dialect, notes)
