"""`keybench check --format json|sarif|junit`: the same findings as the text report, as one
JSON document, as SARIF 2.1.0 that validates against the standard's schema and points at the
statement that creates each hot table or index, and as JUnit XML that a CI parser reads."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
from junitparser import Failure, JUnitXml, Skipped

from keybench.check.check_result import CheckResult, SpaceResult
from keybench.check.formats import render
from tests.conftest import keybench

SARIF_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-2.1.0-rtm.5.json").read_text())

# A migration folder as teams keep one: comments, blank lines, statements over several lines.
MIGRATIONS = {
    "001_users.sql": """\
        -- users, keyed by their last access first (the documents' first anti-pattern)

        CREATE TABLE Users (
          LastAccess TIMESTAMP NOT NULL,
          UserId STRING(36) NOT NULL,
        ) PRIMARY KEY (LastAccess, UserId);
        """,
    "002_orders.sql": """\
        /* orders: a UUID key, which spreads,
           and two indexes */
        CREATE TABLE Orders (
          OrderId STRING(36) NOT NULL DEFAULT (GENERATE_UUID()),
          CreatedAt TIMESTAMP,
          Status STRING(MAX),
        ) PRIMARY KEY (OrderId);

        CREATE INDEX OrdersByCreatedAt
          ON Orders(CreatedAt);
        CREATE INDEX OrdersByStatus ON Orders(Status);
        """,
    "003_seed.sql": "INSERT INTO Orders (OrderId, Status) VALUES ('a', 'new');\n",  # a note, in every format
}
NOTE = "1 INSERT statement(s) skipped (003_seed.sql statement 1): not DDL, no bearing on keys"
# What the check must find, written before running it: kind, name -> verdict, file, line.
EXPECTED = {
    ("table", "Users"): ("hotspot", "001_users.sql", 3),
    ("table", "Orders"): ("spread", "002_orders.sql", 3),
    ("index", "Orders.OrdersByCreatedAt"): ("hotspot", "002_orders.sql", 9),
    ("index", "Orders.OrdersByStatus"): ("inconclusive", "002_orders.sql", 11),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project folder holding migrations/, where keybench runs (as in a CI job)."""
    root = tmp_path_factory.mktemp("project")
    (root / "migrations").mkdir()
    for name, text in MIGRATIONS.items():
        (root / "migrations" / name).write_text(textwrap.dedent(text))
    return root


@pytest.fixture(scope="module")
def outputs(spanner_emulator, project) -> dict:
    """Each format's stdout and exit code, gated on hotspot."""
    found = {}
    for fmt in ("json", "sarif", "junit"):
        done = keybench("check", "migrations", "--format", fmt, "--fail-on-verdict", "hotspot", cwd=project)
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        found[fmt] = (done.returncode, done.stdout)
    return found


@pytest.mark.emulator
def test_json_has_every_table_and_index_with_its_verdict_its_statement_and_its_fix(outputs):
    code, stdout = outputs["json"]
    assert code == 1
    document = json.loads(stdout)  # stdout is the document alone
    assert document["command"] == "check" and document["dialect"] == "googlesql" and document["exit_code"] == 1
    spaces = {(s["kind"], s["name"]): s for s in document["spaces"]}
    assert {key: (s["verdict"], Path(s["file"]).name, s["line"]) for key, s in spaces.items()} == EXPECTED
    assert document["counts"] == {"hotspot": 2, "hot_row": 0, "spread": 1, "inconclusive": 1}
    assert {key for key, s in spaces.items() if s["flagged"]} == {("table", "Users"),
                                                                   ("index", "Orders.OrdersByCreatedAt")}
    users = spaces["table", "Users"]
    assert users["fix"]["verdict_after"] == "spread" and "PRIMARY KEY (UserId, LastAccess)" in " ".join(
        users["fix"]["ddl"])
    assert users["assumptions"]["LastAccess"].startswith("time")
    assert document["notes"] == [NOTE]


@pytest.mark.emulator
def test_sarif_validates_and_each_finding_points_at_the_statement_that_creates_it(outputs):
    code, stdout = outputs["sarif"]
    assert code == 1
    log = json.loads(stdout)
    jsonschema.validate(log, SARIF_SCHEMA, cls=jsonschema.Draft4Validator)
    [run] = log["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    found = {}
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        found[result["partialFingerprints"]["keybenchSpace/v1"]] = (
            result["ruleId"], result["level"], physical["artifactLocation"]["uri"], physical["region"]["startLine"])
    assert found == {  # spread is no finding; the gate makes a hotspot an error; inconclusive is a note
        "table:Users": ("KeyHotspot", "error", "migrations/001_users.sql", 3),
        "index:Orders.OrdersByCreatedAt": ("KeyHotspot", "error", "migrations/002_orders.sql", 9),
        "index:Orders.OrdersByStatus": ("KeyInconclusive", "note", "migrations/002_orders.sql", 11),
    }
    [invocation] = run["invocations"]
    assert invocation["toolExecutionNotifications"] == [{"level": "note", "message": {"text": NOTE}}]
    hot_index = next(r for r in run["results"] if r["partialFingerprints"]["keybenchSpace/v1"].endswith("CreatedAt"))
    assert "fix: " in hot_index["message"]["text"] and hot_index["properties"]["fix_ddl"]


@pytest.mark.emulator
def test_junit_has_a_test_case_per_table_and_index_that_a_ci_parser_reads(outputs):
    code, stdout = outputs["junit"]
    assert code == 1
    report = JUnitXml.fromstring(stdout.encode())
    [suite] = list(report) if isinstance(report, JUnitXml) else [report]
    assert (suite.tests, suite.failures, suite.skipped, suite.errors) == (4, 2, 1, 0)
    places = {case.get("name"): (case.get("file"), case.get("line")) for case in ElementTree.fromstring(stdout).iter(
        "testcase")}  # file and line: attributes GitLab and Jenkins read, which junitparser does not model
    outcomes = {}
    for case in suite:
        [result] = case.result or [None]
        outcome = ("failed" if isinstance(result, Failure) else "skipped" if isinstance(result, Skipped) else "passed")
        outcomes[case.name] = (outcome, *places[case.name])
    assert outcomes == {
        "Users": ("failed", "migrations/001_users.sql", "3"),
        "Orders": ("passed", "migrations/002_orders.sql", "3"),
        "Orders.OrdersByCreatedAt": ("failed", "migrations/002_orders.sql", "9"),
        "Orders.OrdersByStatus": ("skipped", "migrations/002_orders.sql", "11"),
    }
    assert ElementTree.fromstring(stdout).findtext("testsuite/system-out").strip() == f"note: {NOTE}"


def test_a_bigtable_template_has_no_file_and_its_sarif_still_validates():
    done = keybench("check", "--bigtable", "{ts}#{device}", "--format", "sarif")
    assert done.returncode == 0, done.stderr[-2000:]
    log = json.loads(done.stdout)
    jsonschema.validate(log, SARIF_SCHEMA, cls=jsonschema.Draft4Validator)
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "KeyHotspot" and "locations" not in result
    assert result["properties"]["fixed_key"] and result["properties"]["fixed_verdict"] == "spread"


def _space(name: str, verdict: str) -> SpaceResult:
    return SpaceResult("table", name, verdict, 0.5, 2.0, 8, "a reason", {})


@pytest.mark.parametrize("fail_on, levels", [
    ((), {"Hot": "error", "Maybe": "note"}),  # no gate: the problems are still flagged
    (("inconclusive",), {"Hot": "warning", "Maybe": "error"}),  # the gate decides what is an error
])
def test_what_is_flagged_follows_the_gate_and_without_one_the_hot_verdicts(fail_on, levels):
    result = CheckResult("s.sql", (), (_space("Hot", "hotspot"), _space("Even", "spread"), _space("Maybe",
                                                                                                    "inconclusive")))
    sarif = json.loads(render(result, "sarif", fail_on, 0))
    assert {r["partialFingerprints"]["keybenchSpace/v1"][6:]: r["level"] for r in sarif["runs"][0]["results"]} == levels
    document = json.loads(render(result, "json", fail_on, 0))
    assert {s["name"] for s in document["spaces"] if s["flagged"]} == {n for n, lv in levels.items() if lv == "error"}


def test_load_with_a_document_format_is_one_line_exit_2(tmp_path):
    done = keybench("check", "--bigtable", "{ts}#{device}", "--format", "json", "--load", "5s")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "--load" in done.stderr, done.stderr


@pytest.mark.emulator
def test_the_text_report_fits_100_columns_and_its_ddl_and_commands_stay_whole(spanner_emulator, project):
    done = keybench("check", "migrations", env={"COLUMNS": "100"}, cwd=project)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert max(len(line.encode()) for line in lines) <= 100  # bytes: awk and wc count them
    assert "PRIMARY KEY (UserId, LastAccess);" in done.stdout  # the fixed table's DDL, as it was
    assert "  keybench check migrations --write-columns columns.toml" in lines  # a command to copy, on one line
