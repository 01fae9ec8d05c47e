"""The check's report as the user reads it: per table and index the verdict with its
figures, every assumption behind it, the rule the documents state and the fix as DDL; then
the same check of the fixed DDL. Every figure is modelled, and the header says so."""

from __future__ import annotations

from keybench.check.fixes import Fix
from keybench.check.keyspaces import SpaceCheck
from keybench.check.rules import cost_text, rule_text
from keybench.check.schema import DIALECT_TITLES, GOOGLESQL, key_ddl
from keybench.terminal import Sql, Verbatim

INDENT = "  "


def figures(verdict) -> str:
    return f"hot_node_share {verdict.hot_node_share:.3f}, effective_nodes {verdict.effective_nodes:.2f}"


def verdict_line(check: SpaceCheck) -> str:
    v = check.verdict
    if not check.cases:
        return f"{v.verdict} ({figures(v)} of {v.nodes} nodes)"
    unknown = ", ".join(check.unknown)
    cases = "; ".join(f"as {case}: {c.verdict} ({figures(c)})" for case, c in check.cases.items())
    if len({c.verdict for c in check.cases.values()}) == 1:
        # Every case gives the same verdict: the unknown column decides nothing, so it is not blamed.
        reason = f": {v.reason}" if v.verdict == "inconclusive" and v.reason else ""
        return f"{v.verdict} whatever {unknown} holds ({cases}){reason}"
    subject = (f"{unknown} is" if len(check.unknown) == 1
               else f"{', '.join(check.unknown[:-1])} and {check.unknown[-1]} are")
    which = "; ".join(f"{c.verdict} if {subject} {case}" for case, c in check.cases.items())
    return (f"inconclusive: {which}, and keybench cannot tell which ({cases}); "
            f"state it with --columns, e.g. {check.unknown[0]} = \"random\" (or \"sequential\", \"uuid4\", ...)")


def space_lines(check: SpaceCheck, fix: Fix | None, statements: list[str], dialect: str = GOOGLESQL,
                fixed: frozenset[str] = frozenset()) -> list[str]:
    """One key space's block; `fixed`: the tables a fix was proposed for."""
    owner = " (Spanner's own, backing a foreign key)" if check.managed else ""
    lines = [f"{check.kind} {check.name}{owner}: key ({key_ddl(check.key, dialect)})",
             f"{INDENT}verdict: {verdict_line(check)}"]
    if check.parents and not check.index:
        root = check.parents[-1]
        within = f"in {check.parents[0]}, under root {root}" if len(check.parents) > 1 else f"in {root}"
        lines.append(f"{INDENT}interleaved {within}: its rows are stored with their {root} row, so where they "
                     f"go follows the key of {root}")
    for column, distribution in check.assumptions:
        lines.append(f"{INDENT}assumes {column} = {distribution.describe()}")
    if check.verdict.verdict in ("spread", "inconclusive"):
        return lines
    if check.managed:
        lines.append(f"{INDENT}fix: not an index to change or create: Spanner keeps it for the foreign key, keyed by "
                     "the referencing column(s); the fix is in their values, or a foreign key on other columns")
        return lines
    if fix is None and check.parents and check.parents[-1] in fixed:
        root = check.parents[-1]
        lines.append(f"{INDENT}fix: the fix of {root}: its rows sit under the rows of {root}, whose key the fix "
                     "spreads")
        return lines
    if fix is None:
        lines.append(f"{INDENT}fix: none known: no key column of a documented hotspot pattern explains it")
        return lines
    lines.append(f"{INDENT}rule: {rule_text(fix.problem_rule)}")
    lines.append(f"{INDENT}fix: {fix.what}")
    lines.append(f"{INDENT}{INDENT}per {rule_text(fix.fix_rule)}")
    lines.append(f"{INDENT}{INDENT}read cost: {cost_text(fix.fix_rule)}")
    if fix.new_table:
        lines.append(f"{INDENT}{INDENT}needs a new table: Spanner never changes a table's primary key (nor a key "
                     f"column's default); create {fix.new_table} as below, with all it had, copy the rows over, then "
                     "move reads and writes to it:")
    else:
        lines.append(f"{INDENT}{INDENT}apply to the schema as it stands:")
    for statement in fix.statements(statements):
        lines += [Sql(f"{INDENT}{INDENT}{INDENT}{line}") for line in (statement + ";").splitlines()]
    if fix.alternative:
        lines.append(f"{INDENT}{INDENT}{fix.alternative}")
    return lines


def check_lines(source: str, statements: list[str], checks: list[SpaceCheck], fixes: dict[str, Fix], rows: int,
                nodes: int, fixed_checks: list[SpaceCheck] | None, dialect: str = GOOGLESQL,
                notes: tuple[str, ...] = ()) -> list[str]:
    tables = len({c.table for c in checks})
    lines = [f"keybench check {source}: {DIALECT_TITLES[dialect]} DDL, {tables} table(s), {len(checks) - tables} "
             "index(es); "
             f"verdicts from the split model over {rows:,} simulated inserts per table on {nodes} nodes "
             "(modelled, not measured)", ""]
    if notes:
        lines += [f"note: {note}" for note in notes] + [""]
    for check in checks:
        lines += space_lines(check, fixes.get(check.name), statements, dialect, frozenset(fixes))
    if fixed_checks is not None:
        lines += ["", "after the fixes (the fixed DDL applied to the emulator and checked again):"]
        for check in fixed_checks:
            lines.append(f"{INDENT}{check.kind} {check.name}: key ({key_ddl(check.key, dialect)}): "
                         f"{verdict_line(check)}")
    return lines


def failure_lines(spaces, fail_on: tuple[str, ...]) -> list[str]:
    """One line per key space (a check result's SpaceResult) whose verdict is one the caller fails
    on, never wrapped: a CI log is searched for them (`grep FAIL`)."""
    return [Verbatim(f"FAIL {s.kind} {s.name}: {s.verdict} ({figures(s)})") for s in spaces if s.verdict in fail_on]
