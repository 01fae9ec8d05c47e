"""Bad input: one line on stderr, exit code 2, nothing written."""

import json
import shutil

import pytest

from keybench.design import strategies
from tests.conftest import REPO, keybench, test_strategy_toml


@pytest.mark.parametrize("args, complaint", [
    (["run", "--strategies", "timestamp_frist"], "unknown strategy 'timestamp_frist'"),
    (["run", "--backend", "dynamo"], "invalid choice: 'dynamo'"),
    (["run", "--duration", "soon"], "cannot parse duration 'soon'"),
    (["run", "--duration", "0s"], "duration must be positive"),
    (["run", "--users", "0"], "--users must be between 1 and"),
    (["run", "--users", "-3"], "--users must be between 1 and"),
    (["run", "--population", "0"], "--population must be between 1 and"),
    (["run", "--buckets", "0"], "--buckets must be between 1 and"),
    (["run", "--batch-size", "0"], "--batch-size must be between 1 and"),
    (["run", "--backend", "spanner", "--strategies", "bit_reversed_sequence", "--batch-size", "10"],
     "keys the database generates"),
    (["run", "--dialects", "mysql"], "unknown Spanner dialect 'mysql'"),
    (["run", "--backend", "bigtable", "--payload-bytes", "20000000"], "Bigtable's rule is a cell under 10 MB"),
    (["emulators", "sideways"], "invalid choice: 'sideways'"),
    (["emulators", "down", "--any-port"], "--any-port applies to `keybench emulators up` only"),
    (["run", "--mix", "insert=8,scan=1"], "unknown operation 'scan'; valid operations: insert, point_read"),
    (["run", "--mix", "insert=eight"], "the weight of insert must be a whole number"),
    (["run", "--mix", "insert=-2,point_read=1"], "the weight of insert must be a whole number"),
    (["run", "--mix", "insert=0,point_read=0"], "every spanner operation weight 0"),
    (["run", "--backend", "spanner", "--mix", "prefix_scan=1"], "every spanner operation weight 0"),
    (["run", "--readers", "8"], "--readers 8 leaves no writer among --users 8"),
    (["run", "--read-rate", "5", "--mix", "insert=1"], "--read-rate 5 paces the readers, and this run has none"),
    (["run", "--rate", "0"], "--rate must be positive"),
    (["run", "--rate", "-5"], "--rate must be positive"),
    (["run", "--workers", "-1"], "--workers must be between 0 and"),
    (["run", "--repeat", "0"], "--repeat must be between 1 and"),
    (["run", "--nodes", "0"], "--nodes must be between 1 and"),
    (["run", "--duration=-5s"], "cannot parse duration '-5s'"),
    (["run", "--duration", "-5s"], "argument --duration: expected one argument"),  # argparse reads -5s as an option
    (["run", "--target", "real"], "--target real needs --project and --instance"),
    (["run", "--target", "real", "--project", "p"], "--target real needs --instance"),
    (["run", "--target", "real", "--instance", "i", "--dry-run"], "--target real needs --project"),
    (["run", "--project", "p", "--instance", "i"], "keybench talks to one only with --target real"),
    (["run", "--instance", "i", "--dry-run"], "keybench talks to one only with --target real"),
    (["run", "--target", "cloud"], "invalid choice: 'cloud'"),
    # every number is bounded and finite, checked before anything is allocated or started
    (["run", "--spawn-rate", "nan"], "--spawn-rate must be a finite number"),
    (["run", "--rate", "inf", "--dry-run"], "--rate must be a finite number"),
    (["run", "--rate", "nan"], "--rate must be"),
    (["run", "--buckets", "100000000000"], "--buckets must be between 1 and 4,096"),
    (["run", "--users", "100000000"], "--users must be between 1 and 10,000"),
    (["run", "--duration", "0.0001ms"], "--duration (seconds) must be between 0.1 and"),
    (["run", "--op-timeout", "99999h"], "--op-timeout (seconds) must be between"),
    (["run", "--ranges-per-node", "0"], "--ranges-per-node must be"),
    (["run", "--skew", "zipf:-1"], "--skew must be"),
    (["simulate", "--backend", "bigtable", "--strategy", "salted", "--rows", "0"], "--rows must be between 1 and"),
    (["simulate", "--backend", "bigtable", "--strategy", "salted", "--nodes", "1000000"], "--nodes must be between"),
    # a run id is one safe path component: nothing is written outside --results-dir
    (["run", "--run-id", "../escape"], "--run-id '../escape' is not a single safe name"),
    (["run", "--run-id", "/abs/path"], "is not a single safe name"),
    (["run", "--run-id", "a/b"], "is not a single safe name"),
    (["run", "--run-id", ".."], "is not a single safe name"),
    (["run", "--strategies", ""], "--strategies names no strategy"),
    (["run", "--strategies", " , "], "--strategies names no strategy"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, complaint):
    extra = ["--results-dir", str(tmp_path / "results")] if args[0] == "run" else []
    result = keybench(*args, *extra, timeout=60)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and complaint in lines[0], result.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())


def test_unknown_strategy_names_the_valid_ones():
    result = keybench("run", "--backend", "bigtable", "--strategies", "nope", timeout=60)
    assert "field_promoted" in result.stderr and "salted" in result.stderr


def test_unwritable_results_directory(tmp_path):
    blocked = tmp_path / "results"
    blocked.write_text("a file where the directory should be")
    result = keybench("run", "--results-dir", str(blocked), timeout=60)
    assert result.returncode == 2
    assert "not writable" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert blocked.read_text() == "a file where the directory should be"


def test_strategies_lists_a_line_per_design_in_the_terminal_s_width():
    result = keybench("strategies", env={"COLUMNS": "100"}, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == sum(len(strategies.catalogue(b)) for b in strategies.BACKENDS)
    assert max(map(len, lines)) <= 100 and any(len(line) == 100 for line in lines)  # cut, not wrapped
    assert lines[0].split()[:3] == ["spanner", "timestamp_first", "hotspot"]


def test_strategies_in_json_has_every_fact_of_every_design():
    result = keybench("strategies", "--backend", "bigtable", "--format", "json", timeout=60)
    designs = {d["name"]: d for d in json.loads(result.stdout)["strategies"]}
    assert set(designs) == set(strategies.catalogue("bigtable"))
    assert designs["salted"]["reads"]["time_window"]["access"] == "full_scan"
    assert designs["salted"]["expected"].startswith("spread") and designs["salted"]["source"]["title"] is None
    assert "not in the documents" in designs["salted"]["source"]["text"]
    assert designs["field_promoted"]["source"]["title"] == "Bigtable: Schema design best practices"


def test_strategies_by_name_shows_those_in_full_and_an_unknown_name_is_one_line():
    result = keybench("strategies", "salted", "uuid7", timeout=60)
    assert [line.split()[1] for line in result.stdout.splitlines() if not line.startswith(" ")] == ["uuid7", "salted"]
    unknown = keybench("strategies", "salty", timeout=60)
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1 and "'salty'" in unknown.stderr


def test_strategies_verbose_lists_each_design_with_its_expectation_provenance_advice_and_read_plan():
    result = keybench("strategies", "--verbose", timeout=60)
    assert result.returncode == 0
    assert "time_window=multi_rangex64" in result.stdout
    designs = sum(1 for line in result.stdout.splitlines() if line.startswith(("spanner ", "bigtable ")))
    for label in ("expected: ", "source: ", "advice: ", "reads: "):
        assert sum(1 for line in result.stdout.splitlines() if line.lstrip().startswith(label)) == designs, label
    assert 'source: Optimizing schema design for Cloud Spanner, section "Anti-pattern: sequences"' in result.stdout
    assert "expected: hotspot (keybench's expectation: the milliseconds come first" in result.stdout  # uuid7


def test_run_takes_the_singular_option_names_simulate_and_check_use():
    from keybench.cli.arguments import parser

    singular = parser().parse_args(["run", "--strategy", "salted", "--dialect", "postgresql"])
    plural = parser().parse_args(["run", "--strategies", "salted", "--dialects", "postgresql"])
    assert (singular.strategies, singular.dialects) == (plural.strategies, plural.dialects) == ("salted", "postgresql")


def test_a_real_target_with_an_emulator_variable_set_is_ambiguous(tmp_path, no_emulator_env):
    result = keybench("run", "--target", "real", "--project", "p", "--instance", "i", "--dry-run",
                      "--results-dir", str(tmp_path), env={"BIGTABLE_EMULATOR_HOST": "127.0.0.1:1"}, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "BIGTABLE_EMULATOR_HOST is set: ambiguous" in lines[0], result.stderr


def test_a_run_id_already_in_the_results_directory_is_refused(tmp_path):
    (tmp_path / "taken").mkdir()
    result = keybench("run", "--run-id", "taken", "--results-dir", str(tmp_path), "--dry-run", timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "taken already exists; choose another --run-id" in lines[0], result.stderr


# ---------------------------------------------------------------- malformed fixtures
# Each case breaks one file of a copy of schemas/; the one-line error must name that file.
# --dry-run: even a fixture that failed to break would contact nothing.

LONG_LABEL = (test_strategy_toml('summary = "too long"\n'
                                 'key = [{ value = "label", text = "' + "x" * 5000 + '" }, "device", "ts"]'),
              "[column_families.cf]\ngc = { max_versions = 1 }\n")


@pytest.mark.parametrize("backend, path, text, complaint", [
    ("bigtable", "bigtable/salted/table.toml", "[column_families.cf\ngc = ", "not valid TOML"),
    ("spanner", "spanner/uuid7/strategy.toml", 'summary = "unterminated\n', "not valid TOML"),
    ("bigtable", "bigtable/salted/table.toml", "[column_families.cf]\ngc = { max_cells = 3 }\n",
     "column family 'cf': gc must be one of"),
    ("bigtable", "bigtable/salted/table.toml", "[column_families.cf]\ngc = { max_versions = 1 }\ncompression = 1\n",
     "column family 'cf': unknown option(s) ['compression']"),
    ("bigtable", "bigtable/salted/strategy.toml", 'key = ["device", "colour"]\n', "colour"),
    ("spanner", "spanner/uuid7/strategy.toml", 'table = "AccessLog"\nkey = [{ value = "colour", column = "C" }]\n',
     "colour"),
])
def test_a_malformed_fixture_is_one_line_naming_the_file(tmp_path, backend, path, text, complaint):
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "schemas", schemas)
    (schemas / path).write_text(text)
    result = keybench("run", "--backend", backend, "--dry-run", "--results-dir", str(tmp_path / "results"),
                      env={"KEYBENCH_SCHEMAS": str(schemas)}, timeout=60)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "malformed schema fixture" in lines[0], result.stderr
    assert str(schemas / path) in lines[0] and complaint in lines[0], lines[0]


def test_a_row_key_over_bigtables_4_kb_is_refused_naming_the_rule(tmp_path):
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "schemas", schemas)
    folder = schemas / "bigtable" / "long_label"
    folder.mkdir()
    (folder / "strategy.toml").write_text(LONG_LABEL[0])
    (folder / "table.toml").write_text(LONG_LABEL[1])
    result = keybench("run", "--backend", "bigtable", "--strategies", "long_label", "--dry-run",
                      "--results-dir", str(tmp_path / "results"), env={"KEYBENCH_SCHEMAS": str(schemas)}, timeout=60)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(folder) in lines[0], result.stderr
    assert "Bigtable's rule is a row key of at most 4 KB" in lines[0], lines[0]


def test_a_piped_command_ends_quietly_when_its_reader_closes():
    import subprocess
    import sys

    done = subprocess.run(f"{sys.executable} -m keybench.cli strategies | head -1", shell=True, cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("spanner ") and len(done.stdout.splitlines()) == 1
    assert done.stderr == "", done.stderr


def test_a_truncated_or_foreign_key_stream_is_one_line_and_exit_2(tmp_path):
    from keybench.model.keystream import KeyStream

    stream = KeyStream()
    stream.add_write("table", 1.0, b"k1")
    whole = stream.to_bytes()
    for name, content in (("truncated", whole[: len(whole) // 2]), ("foreign", b"not a zip at all")):
        run = tmp_path / name
        (run / "keystream").mkdir(parents=True)
        (run / "keystream" / "folder.npz").write_bytes(content)
        result = keybench("analyze", str(run), timeout=60)
        assert result.returncode == 2, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "is not a key stream keybench wrote" in result.stderr


# ---------------------------------------------------------------- documented limits
# Each case adds a design that breaks one limit of the documents; --dry-run: nothing is
# contacted, and the refusal comes before any load.

SPANNER_TABLE = ("CREATE TABLE AccessLog (LogId STRING(36) NOT NULL, {columns} UserId INT64 NOT NULL, "
                 "LastAccess TIMESTAMP NOT NULL, WriteId STRING(64) NOT NULL, Payload STRING(MAX)) "
                 "PRIMARY KEY (LogId);\n")
WIDE = [f"C{i}" for i in range(1, 17)]
LIMITS = {
    "index_of_17_columns": ("spanner", test_strategy_toml(
        'table = "AccessLog"\nkey = [{ column = "LogId", value = "uuid4_string" }]\n'
        'index = [{ name = "Wide", key = ['
        + ", ".join(f'{{ column = "{c}", value = "user" }}' for c in WIDE) + "] }]"),
        SPANNER_TABLE.format(columns=" ".join(f"{c} INT64 NOT NULL," for c in WIDE))
        + f"CREATE INDEX Wide ON AccessLog({', '.join(WIDE)});", [],
        "index Wide has 17 key columns (with the table's key); Spanner's rule is at most 16 index key columns"),
    "index_key_over_8_kib": ("spanner", test_strategy_toml(
        'table = "AccessLog"\nkey = [{ column = "LogId", value = "uuid4_string" }]\n'
        'index = [{ name = "ByTag", key = [{ column = "Tag", value = "label", text = "' + "t" * 8200 + '" }] }]'),
        SPANNER_TABLE.format(columns="Tag STRING(MAX),") + "CREATE INDEX ByTag ON AccessLog(Tag);", [],
        "index ByTag has keys of 8,236 bytes; Spanner's rule is an index key of at most 8 KiB"),
    "row_over_100_mb": ("bigtable", test_strategy_toml('key = ["device", { value = "label", text = "memusage" }]'),
        "[column_families.cf]\ngc = { max_versions = 11 }\n", ["--payload-bytes", str(10 * 1024 * 1024)],
        "rows of up to 110 MB (11 versions of a 10,485,760-byte cell in family 'cf'); "
        "Bigtable's rule is a row under 100 MB (256 MB at most)"),
    # a row per device and interval holds the interval's writes as versions, as many as its GC rule keeps
    "interval_row_over_100_mb": ("bigtable", test_strategy_toml(
        'key = ["device", { value = "interval", seconds = 60 }]'),
        "[column_families.cf]\ngc = { max_versions = 11 }\n", ["--payload-bytes", str(10 * 1024 * 1024)],
        "rows of up to 110 MB (11 versions of a 10,485,760-byte cell in family 'cf'); "
        "Bigtable's rule is a row under 100 MB (256 MB at most)"),
    "tables_over_1000": ("bigtable", test_strategy_toml(
        'key = [{ value = "tenant", tenants = 1001 }, "device", "ts"]'),
        'table_per = "tenant"\n[column_families.cf]\n', [],
        "one table per tenant needs 1,001 tables; Bigtable's rule is at most 1,000 tables per instance"),
    "qualifier_over_16_kb": ("bigtable", test_strategy_toml('key = ["device", "ts"]'),
        'payload_qualifier = "' + "q" * (16 * 1024 + 1) + '"\n[column_families.cf]\n', [],
        "a column qualifier of 16,385 bytes; Bigtable's rule is a qualifier of at most 16 KB"),
}


@pytest.mark.parametrize("name", list(LIMITS))
def test_a_design_over_a_documented_limit_is_refused_before_the_load_naming_the_rule(tmp_path, name):
    backend, strategy, fixture, extra, rule = LIMITS[name]
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "schemas", schemas)
    folder = schemas / backend / name
    folder.mkdir()
    (folder / "strategy.toml").write_text(strategy)
    for fixture_file in (("googlesql.sql", "postgresql.sql") if backend == "spanner" else ("table.toml",)):
        (folder / fixture_file).write_text(fixture)
    result = keybench("run", "--backend", backend, "--strategies", name, "--dry-run", *extra,
                      "--results-dir", str(tmp_path / "results"), env={"KEYBENCH_SCHEMAS": str(schemas)}, timeout=60)
    print(result.stderr.strip())
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and rule in lines[0], result.stderr


@pytest.mark.emulator
def test_a_schema_the_emulator_refuses_is_one_line_naming_the_fixture_the_statement_and_exit_2(tmp_path,
                                                                                                emulator_hosts):
    """README: a fixture keybench or the database refuses is bad input, exit 2; the run ends
    there (the design would be missing from every comparison), leaving no run directory."""
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "schemas", schemas)
    fixture = schemas / "spanner" / "timestamp_first" / "googlesql.sql"
    fixture.write_text(fixture.read_text() + "\nCREATE INDEX Broken ON AccessLog(NoSuchColumn);\n")
    result = keybench("run", "--backend", "spanner", "--strategies", "timestamp_first", "--dialects", "googlesql",
                      "--duration", "1s", "--users", "1", "--no-report", "--results-dir", str(tmp_path / "results"),
                      "--run-id", "r", env={"KEYBENCH_SCHEMAS": str(schemas)}, timeout=180)
    print(result.stderr)
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("keybench: error: schema fixture") and str(fixture) in last, last
    assert "CREATE INDEX Broken ON AccessLog(NoSuchColumn)" in last and "NoSuchColumn" in last.split("statement:")[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "results" / "r").exists() and not (tmp_path / "results" / ".r.partial").exists()
