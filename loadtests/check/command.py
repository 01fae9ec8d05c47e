"""`keybench check`, in order: read the inputs, let the emulator read the DDL, judge every
key space, propose the documented fixes, check the fixed DDL the same way, report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loadtests.check.fixes import Fix, fixed_statements, propose
from loadtests.check.inference import Distribution, infer, read_columns_file
from loadtests.check.keyspaces import check_schema
from loadtests.check.report import check_lines, failure_lines
from loadtests.check.request import MAX_CHECK_ROWS, CheckRequest
from loadtests.check.save import spanner_design, template_design
from loadtests.check.template import parse_template
from loadtests.check.schema import Schema
from loadtests.design.folders import Design, check_save_folder, save_designs
from loadtests.design.strategies import split_ddl
from loadtests.errors import KeybenchError, check_range
from loadtests.model.params import MAX_NODES
from loadtests.model.verdict import VERDICTS

@dataclass
class CheckReport:
    lines: list[str] = field(default_factory=list)
    exit_code: int = 0
    designs: list[Design] = field(default_factory=list)  # each checked table or template, as a strategy folder


def check(request: CheckRequest) -> CheckReport:
    check_range("--nodes", request.nodes, 1, MAX_NODES)
    check_range("--rows", request.rows, 1_000, MAX_CHECK_ROWS)
    unknown = [v for v in request.fail_on if v not in VERDICTS]
    if unknown:
        raise KeybenchError(f"--fail-on-verdict: unknown verdict {', '.join(map(repr, unknown))}; "
                            f"valid: {', '.join(VERDICTS)}")
    if (request.schema is None) == (request.bigtable is None):
        raise KeybenchError("keybench check takes a Spanner DDL file or --bigtable TEMPLATE (one of them)")
    if request.save_to is not None:
        check_save_folder(request.save_to)
    if request.bigtable is not None:
        from loadtests.check.template import check_template

        lines, judged = check_template(request.bigtable, request.reads, request.rows, request.nodes)
        designs = [template_design(request.bigtable, [s.spec for s in parse_template(request.bigtable)])
                   ] if request.designs_wanted else []
    else:
        if request.reads:
            raise KeybenchError("--read applies to --bigtable templates only")
        lines, judged, designs = check_spanner(request)
    if request.save_to is not None:
        lines += ["", *save_designs(designs, request.save_to)]
    failures = failure_lines(judged, request.fail_on)
    return CheckReport(lines + failures, 1 if failures else 0, designs)


def read_statements(path: Path) -> list[str]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise KeybenchError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KeybenchError(f"{path}: cannot be read: {exc}") from None
    statements = split_ddl(text)
    if not statements:
        raise KeybenchError(f"{path}: no DDL statement in it")
    return statements


def _check_stated(stated: dict[str, Distribution], schema: Schema, path: Path | None) -> None:
    """Every column the --columns file names exists: a typo would otherwise leave a column unknown."""
    names = {c.name for t in schema.tables for c in t.columns}
    qualified = {f"{t.name}.{c.name}" for t in schema.tables for c in t.columns}
    missing = [n for n in stated if n not in names and n not in qualified]
    if missing:
        raise KeybenchError(f"--columns file {path}: no such column in the schema: {', '.join(missing)}")


def check_spanner(request: CheckRequest) -> tuple[list[str], list]:
    from loadtests.check.reader import apply_ddl, read_schema, scratch_database
    from loadtests.infra import emulators

    path = request.schema
    statements = read_statements(path)
    stated = read_columns_file(request.columns) if request.columns else {}
    endpoint = emulators.resolve("spanner")
    saved_env = emulators.environment()
    emulators.use(endpoint)
    try:
        with scratch_database() as database:
            apply_ddl(database, statements, path)
            schema = read_schema(database)
        _check_stated(stated, schema, request.columns)
        checks = check_schema(schema, stated, path, request.rows, request.nodes)
        designs = [spanner_design(schema, t, path.read_text(), path, lambda t, c: infer(schema, t, c, stated))
                   for t in schema.tables] if request.designs_wanted else []
        fixes: dict[str, Fix] = {}
        fixed_schema, changed, superseded = schema, [], set()
        for space in checks:
            if space.verdict.verdict in ("hotspot", "hot_row"):
                fix = propose(space, fixed_schema, request.nodes, request.shards)
                if fix is not None:
                    fixes[space.name] = fix
                    fixed_schema, changed = fix.schema, changed + list(fix.changed)
                    superseded |= set(fix.superseded) | {s.split(".", 1)[1] for s in fix.superseded}
        fixed_checks = None
        if fixes:
            fixed_path = path.with_name(f"{path.name} (fixed)")
            with scratch_database() as database:
                apply_ddl(database, fixed_statements(statements, fixed_schema, changed), fixed_path)
                refixed = read_schema(database)
            kept = {k: v for k, v in stated.items() if k not in superseded}
            fixed_checks = check_schema(refixed, kept, fixed_path, request.rows, request.nodes)
    finally:
        endpoint.stop()
        emulators.restore_environment(saved_env)  # a later run (--load) must not find the stopped one
    judged = [(f"{c.kind} {c.name}", c.verdict) for c in checks]
    return check_lines(str(path), checks, fixes, request.rows, request.nodes, fixed_checks), judged, designs
