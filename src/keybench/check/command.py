"""`keybench check`, in order: read the inputs, let the emulator read the DDL, judge every
key space, propose the documented fixes, check the fixed DDL the same way, report."""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from keybench.check.check_result import CheckResult, spanner_result
from keybench.check.check_text import check_lines, failure_lines
from keybench.check.columns_file import check_destination, next_step, write_columns
from keybench.check.fixes import fixed_statements, propose_all
from keybench.check.inference import Distribution, infer, read_columns_file
from keybench.check.keyspaces import check_schema
from keybench.check.request import AUTO_DIALECT, MAX_CHECK_ROWS, MAX_DEVICE_RATE, CheckRequest
from keybench.check.save import spanner_draft, template_draft
from keybench.check.schema import POSTGRESQL, Schema
from keybench.check.sources import read_statements
from keybench.check.statements import CREATE_TABLE
from keybench.check.template import parse_template
from keybench.design.ddl import up_sections
from keybench.design.folders import StrategyDraft, check_save_folder, save_strategies
from keybench.design.strategies import DIALECTS
from keybench.errors import KeybenchError, check_range
from keybench.model.params import MAX_NODES
from keybench.model.verdict import check_verdicts
from keybench.textfiles import read_text


@dataclass
class CheckReport:
    result: CheckResult
    lines: list[str] = field(default_factory=list)
    exit_code: int = 0
    drafts: list[StrategyDraft] = field(default_factory=list)  # each checked table or template, as a strategy folder
    saved: list[str] = field(default_factory=list)  # with --save-strategy: what was saved, in lines


def check(request: CheckRequest) -> CheckReport:
    """The check as `keybench check` prints it; with --save-strategy, the drafts saved."""
    if request.save_to is not None:
        check_save_folder(request.save_to)  # before any work: a folder that is taken is bad input
    if request.write_columns is not None:
        if request.schema is None:
            raise KeybenchError("--write-columns applies to Spanner DDL only")
        check_destination(request.write_columns, request.columns)
    result, drafts = findings(request)
    lines = list(result.lines)
    saved = save_strategies(drafts, request.save_to) if request.save_to is not None else []
    if saved:
        lines += ["", *saved]
    failures = failure_lines(result.spaces, request.fail_on)
    return CheckReport(result, lines + failures + list(result.closing), 1 if failures else 0, drafts, saved)


def check_result(request: CheckRequest) -> CheckResult:
    """The check's findings as values (the pytest plugin's keybench_check)."""
    return findings(request)[0]


def findings(request: CheckRequest) -> tuple[CheckResult, list[StrategyDraft]]:
    """The check's findings, and each checked table or template as a strategy folder's
    content when the request wants them (--save-strategy, --load)."""
    check_range("--nodes", request.nodes, 1, MAX_NODES)
    check_range("--rows", request.rows, 1_000, MAX_CHECK_ROWS)
    check_range("--device-rate", request.device_rate, 1e-9, MAX_DEVICE_RATE)
    check_verdicts(request.fail_on)
    if request.dialect not in (AUTO_DIALECT, *DIALECTS["spanner"]):
        raise KeybenchError(f"--dialect: unknown dialect {request.dialect!r}; valid: "
                            f"{', '.join((AUTO_DIALECT, *DIALECTS['spanner']))}")
    if (request.schema is None) == (request.bigtable is None):
        raise KeybenchError("keybench check takes a Spanner DDL file or --bigtable TEMPLATE (one of them)")
    if request.bigtable is not None:
        from keybench.check.template import check_template

        if request.dialect != AUTO_DIALECT:
            raise KeybenchError("--dialect applies to Spanner DDL only")
        result = check_template(request.bigtable, request.reads, request.rows, request.nodes, request.device_rate)
        drafts = [template_draft(request.bigtable, [s.spec for s in parse_template(request.bigtable)])
                   ] if request.drafts_wanted else []
    else:
        if request.reads or request.device_rate is not None:
            given = "--read" if request.reads else "--device-rate"
            raise KeybenchError(f"{given} applies to --bigtable templates only")
        result, drafts = check_spanner(request)
    return result, drafts


def _check_stated(stated: dict[str, Distribution], schema: Schema, path: Path | None) -> dict[str, Distribution]:
    """Every column the --columns file names exists: a typo would otherwise leave a column unknown.
    In PostgreSQL an unquoted name is stored in lower case, so CustomerId names customerid there."""
    names = {c.name for t in schema.tables for c in t.columns}
    names |= {f"{t.name}.{c.name}" for t in schema.tables for c in t.columns}
    folded = {n: n.lower() if n not in names and schema.dialect == POSTGRESQL else n for n in stated}
    missing = [n for n, name in folded.items() if name not in names]
    if missing:
        raise KeybenchError(f"--columns file {path}: no such column in the schema: {', '.join(missing)}")
    return {folded[n]: d for n, d in stated.items()}


def check_spanner(request: CheckRequest) -> tuple[CheckResult, list[StrategyDraft]]:
    from keybench.check.reader import (
        DdlRefused,
        apply_ddl,
        load_schema,
        read_schema,
        scratch_database,
    )
    from keybench.infra import emulators

    path = request.schema
    assert path is not None  # the CLI refuses a check without a schema file
    read = read_statements(path, request.more_schemas)
    statements, labels, places = read.statements, read.labels, read.places
    inputs = (path, *request.more_schemas)
    source, source_args = " ".join(map(str, inputs)), " ".join(shlex.quote(str(p)) for p in inputs)
    stated = read_columns_file(request.columns) if request.columns else {}
    endpoint = emulators.resolve("spanner")
    saved_env = emulators.environment()
    emulators.use(endpoint)
    try:
        schema = load_schema(statements, path, request.dialect, labels)
        schema = dataclasses.replace(schema, notes=(*read.notes, *schema.notes))
        if not schema.tables:
            skipped = f" ({'; '.join(schema.notes)})" if schema.notes else ""
            if any(CREATE_TABLE.match(statement) for statement in statements):
                raise KeybenchError(f"{path}: no table is left after its statements, so no key to judge: later "
                                    "statements drop every table it creates (are undo migrations among them?)"
                                    f"{skipped}")
            raise KeybenchError(f"{path}: no CREATE TABLE in it, so no key to judge{skipped}")
        stated = _check_stated(stated, schema, request.columns)
        checks = check_schema(schema, stated, path, request.rows, request.nodes, request.strict)
        ddl_text = (up_sections(read_text(path, "DDL file")) if labels is None
                    else "".join(f"{s};\n" for s in statements))
        drafts = [spanner_draft(schema, t, ddl_text, path, lambda t, c: infer(schema, t, c, stated, request.strict))
                   for t in schema.tables] if request.drafts_wanted else []
        proposed = propose_all(checks, schema, request.nodes, request.shards)
        fixes, fixed_schema, changed, superseded = (proposed.by_space, proposed.schema, list(proposed.changed),
                                                    proposed.superseded)
        fixed_checks = None
        applied: list[str] = []
        if fixes:
            fixed_path = path.with_name(f"{path.name} (fixed)")
            with scratch_database(schema.dialect) as scratch:
                apply_ddl(scratch, fixed_statements(statements, fixed_schema, changed), fixed_path, schema.dialect)
                refixed = read_schema(scratch, schema.dialect)
            kept = {k: v for k, v in stated.items() if k not in superseded}
            # the recheck models again only what the fix changed (the memo has the rest)
            fixed_checks = check_schema(refixed, kept, fixed_path, request.rows, request.nodes, request.strict)
            applicable = [s for fix in fixes.values() if not fix.new_table for s in fix.statements(statements)]
            if applicable:
                # The statements printed under "apply to the schema as it stands", applied after the
                # user's own on a fresh database: what the emulator refuses here, a team could not apply.
                applied_labels = (labels or [f"statement {n}" for n in range(1, len(statements) + 1)]) + [
                    f"fix statement {n}" for n in range(1, len(applicable) + 1)]
                with scratch_database(schema.dialect) as scratch:
                    try:
                        apply_ddl(scratch, statements + applicable, path, schema.dialect, applied_labels)
                        applied = ["", f"the statements to apply ({len(applicable)}) apply to the schema as it stands: "
                                   "the emulator took them after the schema's own"]
                    except DdlRefused as refused:
                        applied = ["", f"the statements to apply do not apply as they stand: {refused}"]
    finally:
        endpoint.stop()
        emulators.restore_environment(saved_env)  # a later run (--load) must not find the stopped one
    lines = check_lines(source, statements, checks, fixes, request.rows, request.nodes, fixed_checks, schema.dialect,
                        schema.notes) + applied
    closing = (write_columns(request.write_columns, source_args, schema, checks) if request.write_columns is not None
               else next_step(source_args, schema, checks, request.columns))
    return spanner_result(source, lines, statements, checks, fixes, fixed_checks, [""] + closing if closing else [],
                          places, schema.dialect, schema.notes), drafts
