"""The check's findings for machines: one JSON document, SARIF 2.1.0 (code scanning marks the
statement that creates a hot table or index) and JUnit XML (one test case per table, index or
row key). Each says the same as the text report, from the same CheckResult.

A space is *flagged* when its verdict is one `--fail-on-verdict` names (the check then exits
1); without that option, when it is hotspot or hot_row, so that a report read without a gate
still shows the problems. Flagged: a SARIF error, a JUnit failure."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree

from keybench import __version__
from keybench.check.check_result import CheckResult, SpaceResult
from keybench.model.verdict import HOT_ROW, HOTSPOT, INCONCLUSIVE, SPREAD

JSON_FORMAT_VERSION = 1  # bumped when a field of the JSON document changes meaning or goes
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
UNGATED_FLAGS = (HOTSPOT, HOT_ROW)  # flagged when no --fail-on-verdict is given

# One SARIF rule per verdict but spread, which is no finding.
RULES = {
    HOTSPOT: ("KeyHotspot", "The key sends new writes to one node",
              "The busiest node of the split model takes at least 2/N of the writes: the key's leading part grows "
              "or shrinks with time, or a few values take most writes. Spanner: schema design best practices; "
              "Bigtable: schema design best practices."),
    HOT_ROW: ("HotRow", "One row (or one row tree) takes the writes",
              "The busiest split unit alone takes more than 1.5/N of the writes, or rewritten rows keep being "
              "written: no split can cut a row, so one node serves it."),
    INCONCLUSIVE: ("KeyInconclusive", "The verdict depends on values the schema does not state",
                   "keybench cannot tell from the schema how a key column is filled; state it with --columns, or "
                   "record the application's writes."),
}


def flagged(space: SpaceResult, fail_on: tuple[str, ...]) -> bool:
    return space.verdict in (fail_on or UNGATED_FLAGS)


def render(result: CheckResult, fmt: str, fail_on: tuple[str, ...], exit_code: int) -> str:
    """The findings in `fmt` (one of CHECK_FORMATS but text), as the text printed on stdout."""
    if fmt == "json":
        return json.dumps(check_document(result, fail_on, exit_code), indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif_log(result, fail_on), indent=2) + "\n"
    if fmt == "junit":
        return junit_xml(result, fail_on)
    raise ValueError(f"unknown format {fmt!r}")


def space_document(space: SpaceResult, fail_on: tuple[str, ...]) -> dict:
    fix = None if space.fix is None else {
        "what": space.fix, "ddl": list(space.fix_ddl), "key": space.fixed_key, "verdict_after": space.fixed_verdict}
    return {
        "kind": space.kind, "name": space.name, "table": space.table, "index": space.index,
        "verdict": str(space.verdict), "flagged": flagged(space, fail_on),
        "hot_node_share": round(space.hot_node_share, 4), "effective_nodes": round(space.effective_nodes, 3),
        "nodes": space.nodes, "reason": space.reason, "assumptions": dict(space.assumptions),
        "cases": dict(space.cases), "guessed": list(space.guessed), "managed": space.managed,
        "fix": fix, "file": space.file, "line": space.line,
    }


def check_document(result: CheckResult, fail_on: tuple[str, ...], exit_code: int) -> dict:
    """The JSON document of `keybench check --format json` (docs: Machine-readable output)."""
    return {
        "format_version": JSON_FORMAT_VERSION, "keybench": __version__, "command": "check",
        "source": result.source, "backend": "spanner" if result.dialect else "bigtable", "dialect": result.dialect,
        "fail_on": list(fail_on), "exit_code": exit_code,
        "counts": {verdict: sum(s.verdict == verdict for s in result.spaces)
                   for verdict in (HOTSPOT, HOT_ROW, SPREAD, INCONCLUSIVE)},
        "spaces": [space_document(s, fail_on) for s in result.spaces],
        "notes": list(result.notes),
    }


def _message(space: SpaceResult) -> str:
    facts = space.facts()
    return ". ".join(line.rstrip(".") for line in facts) + "."


def _artifact(file: str) -> dict:
    """A file as SARIF names it: relative to the folder keybench ran in (the repository, for
    code scanning) when it lies inside it, else its absolute file URI."""
    path = Path(file)
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return {"uri": path.resolve().as_uri()}
    return {"uri": relative.as_posix(), "uriBaseId": "%SRCROOT%"}


def sarif_log(result: CheckResult, fail_on: tuple[str, ...]) -> dict:
    """A SARIF 2.1.0 log: one result per table, index or row key that is not spread."""
    rule_ids = list(RULES)
    results = []
    for space in result.spaces:
        if space.verdict not in RULES:
            continue
        level = "error" if flagged(space, fail_on) else "note" if space.verdict == INCONCLUSIVE else "warning"
        finding: dict = {
            "ruleId": RULES[space.verdict][0], "ruleIndex": rule_ids.index(space.verdict), "level": level,
            "message": {"text": _message(space)},
            # the same table or index keeps its identity when its statement moves in the file
            "partialFingerprints": {"keybenchSpace/v1": f"{space.kind}:{space.name}"},
            "properties": {"verdict": str(space.verdict), "hot_node_share": round(space.hot_node_share, 4),
                           "effective_nodes": round(space.effective_nodes, 3), "nodes": space.nodes,
                           "fix": space.fix, "fix_ddl": list(space.fix_ddl), "fixed_key": space.fixed_key,
                           "fixed_verdict": space.fixed_verdict},
        }
        if space.file is not None:
            location: dict = {"artifactLocation": _artifact(space.file)}
            if space.line is not None:
                location["region"] = {"startLine": space.line}
            finding["locations"] = [{"physicalLocation": location,
                                     "logicalLocations": [{"name": space.name, "kind": "object"}]}]
        results.append(finding)
    run: dict = {
        "tool": {"driver": {
            "name": "keybench", "version": __version__, "semanticVersion": __version__,
            "rules": [{"id": rule_id, "name": rule_id, "shortDescription": {"text": short},
                       "fullDescription": {"text": full}, "help": {"text": full},
                       "defaultConfiguration": {"level": "warning" if verdict != INCONCLUSIVE else "note"},
                       "properties": {"verdict": verdict}}
                      for verdict, (rule_id, short, full) in RULES.items()]}},
        "results": results,
        "columnKind": "unicodeCodePoints",
        # what the check left out or rewrote (a statement the emulator refused, seed DML): the
        # notes of the text report, as the run's notifications
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "note", "message": {"text": note}} for note in result.notes]}],
    }
    if any(r.get("locations") and r["locations"][0]["physicalLocation"]["artifactLocation"].get("uriBaseId")
           for r in results):
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def junit_xml(result: CheckResult, fail_on: tuple[str, ...]) -> str:
    """JUnit XML as CI systems read it: one testsuite for the check, one testcase per space. A
    flagged space fails; an inconclusive one that is not flagged is skipped (not judged)."""
    failures = sum(flagged(s, fail_on) for s in result.spaces)
    skipped = sum(not flagged(s, fail_on) and s.verdict == INCONCLUSIVE for s in result.spaces)
    counts = {"tests": str(len(result.spaces)), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    suites = ElementTree.Element("testsuites", {"name": "keybench check", **counts})
    suite = ElementTree.SubElement(suites, "testsuite", {"name": f"keybench check {result.source}", "time": "0",
                                                         **counts})
    for space in result.spaces:
        attributes = {"classname": f"keybench.check.{space.kind.replace(' ', '_')}", "name": space.name, "time": "0"}
        if space.file is not None:
            attributes["file"] = os.path.relpath(space.file) if Path(space.file).is_absolute() else space.file
            if space.line is not None:
                attributes["line"] = str(space.line)
        case = ElementTree.SubElement(suite, "testcase", attributes)
        facts = "\n".join(space.facts())
        summary = f"{space.verdict}: {space.reason}" if space.reason else str(space.verdict)
        if flagged(space, fail_on):
            ElementTree.SubElement(case, "failure", message=summary, type=str(space.verdict)).text = facts
            continue
        if space.verdict == INCONCLUSIVE:
            ElementTree.SubElement(case, "skipped", message=summary)
        ElementTree.SubElement(case, "system-out").text = facts
    if result.notes:  # what the check left out or rewrote, as the text report's note: lines say it
        ElementTree.SubElement(suite, "system-out").text = "\n".join(f"note: {note}" for note in result.notes)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
