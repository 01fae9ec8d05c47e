"""`keybench run` end to end, with Locust as a library and the real emulators."""

import json
import re
import time

import pytest

from keybench.drive.settings import WorkloadSettings
from keybench.measure.summary import read_results
from keybench.run import RunOptions, parse_duration, run, schedule_stages
from tests.conftest import FAILS_FAST_S, keybench

OPERATIONS = {
    "spanner": {"insert", "point_read", "latest_n", "time_window"},
    "bigtable": {"insert", "point_read", "latest_n", "prefix_scan", "time_window", "number_range"},
}


def test_durations_parse_in_the_usual_units():
    assert [parse_duration(t) for t in ("30s", "2m", "1h", "45", "1.5s", "500ms")] == [30, 120, 3600, 45, 1.5, 0.5]


def test_a_name_shared_by_both_backends_runs_on_each():
    stages = schedule_stages(RunOptions(strategies=("timestamp_first", "salted")))
    assert [(s.backend, s.name, s.dialect) for s in stages] == [
        ("spanner", "timestamp_first", "googlesql"), ("spanner", "timestamp_first", "postgresql"),
        ("bigtable", "timestamp_first", ""), ("bigtable", "salted", ""),
    ]


@pytest.mark.minutes(1.5)
def test_smoke_run_of_every_strategy_writes_a_clean_summary(emulator_hosts, tmp_path):
    # report=False: the report and heatmaps have their own tests. Two readers reading back to
    # back: in 1 s, one reader resting by the default --read-share may not reach all five
    # Bigtable reads, and this test wants every read of every strategy to run.
    # --rate 300: the writers paced, so that each table's audit reads back hundreds of rows, not
    # thousands (this test is about correctness, over all 68 stages).
    options = RunOptions(users=4, duration_s=1.0, results_dir=tmp_path, smoke=True, run_id="smoke", report=False,
                         rate=300, settings=WorkloadSettings(readers=2, read_share=1.0))
    assert run(options) == 0
    rows = read_results(tmp_path / "smoke" / "summary.csv")
    seen = {(r["backend"], r["strategy"], r["operation"]) for r in rows}
    for stage in schedule_stages(options):
        assert {(stage.backend, stage.name, op) for op in OPERATIONS[stage.backend]} <= seen
    for r in rows:
        assert int(r["requests"]) > 0, r
        assert int(r["failures"]) == 0, r
        assert r["integrity"] == "ok" and int(r["lost"]) == 0, r
        if r["operation"] != "insert" and r["strategy"] != "unpadded_numbers":
            assert (r["wrong_rows"], r["missing_rows"]) == ("0", "0"), r
    assert {(r["strategy"], r["operation"]) for r in rows if r["operation"] == "tenant_drop"} == {
        ("tenant_prefix", "tenant_drop"), ("table_per_tenant", "tenant_drop")}
    inserts = [r for r in rows if r["operation"] == "insert"]
    spanner_units = {(r["strategy"], r["dialect"]) for r in inserts if r["backend"] == "spanner"}
    assert spanner_units == {(s.name, d) for s in schedule_stages(options) if s.backend == "spanner"
                             for d in ("googlesql", "postgresql")}
    pg_desc = [r for r in inserts if r["dialect"] == "postgresql" and r["strategy"] == "desc_timestamp"]
    assert {r["note"] != "" for r in pg_desc} == {True}
    assert all(r["aborts"].isdigit() and r["collisions"] == "0" for r in inserts if r["backend"] == "spanner")
    assert {r["strategy"] for r in inserts if r["emulator_bound"] == "yes"} == {
        "bit_reversed_sequence", "migrate_skip_range", "migrate_start_counter", "uuid4_generated", "migrate_uuid"}
    assert all(r["aborts"] == "" for r in rows if r["backend"] == "bigtable")
    preloaded = {s.name: (s.preload or {}).get("rows", 0) for s in schedule_stages(options)}
    for r in inserts:  # every acknowledged insert, and every migrated row, is stored
        assert int(r["stored"]) >= int(r["acknowledged"]) == int(r["requests"]) + preloaded[r["strategy"]], r
    locust_csvs = {p.name for p in (tmp_path / "smoke" / "locust").iterdir()}
    assert locust_csvs == {f"{s.backend}-{s.name}" + (f"-{s.dialect}" if s.dialect else "") + f"_{kind}.csv"
                           for s in schedule_stages(options) for kind in ("stats", "failures")}
    assert [p.name for p in tmp_path.iterdir()] == ["smoke"]
    # the split model's (modelled) columns, from a key stream saved per variant
    # (0 is possible: on a loaded machine a 1 s stage may write so few keys that every window's
    # held-out half misses the node its other half chose)
    for r in inserts:
        assert 0 <= float(r["hot_node_share"]) <= 1 and float(r["mean_key_bytes"]) > 0, r
    assert len(list((tmp_path / "smoke" / "keystream").glob("*.npz"))) == len(spanner_units) + sum(
        1 for s in schedule_stages(options) if s.backend == "bigtable")
    per_second = read_results(tmp_path / "smoke" / "timeseries.csv")
    for r in rows:  # the time series adds up to the summary, series by series
        if r["operation"] != "tenant_drop":
            key = (r["backend"], r["strategy"], r["dialect"], r["operation"])
            mine = [s for s in per_second if (s["backend"], s["strategy"], s["dialect"], s["operation"]) == key]
            assert sum(int(s["ops"]) for s in mine) == int(r["requests"]), key
            assert sum(int(s["failures"]) for s in mine) == int(r["failures"]), key


def test_each_stage_runs_on_a_fresh_emulator_whatever_the_order(native_binaries, no_emulator_env, tmp_path):
    """The Spanner emulator slows down with every commit it has served until it restarts;
    keybench restarts the emulators it started, so a stage never inherits another's history."""
    pids = {}
    for order in (("timestamp_first", "hash_shard"), ("hash_shard", "timestamp_first")):
        run_id = "-".join(order)
        options = RunOptions(backends=("spanner",), strategies=order, users=2, duration_s=1.5,
                             results_dir=tmp_path, run_id=run_id, dialects=("googlesql",))
        assert run(options) == 0
        stages = json.loads((tmp_path / run_id / "run.json").read_text())["stages"]
        assert [s["strategy"] for s in stages] == list(order)
        assert all(s["fresh_emulator"] for s in stages)
        assert len({s["emulator_pid"] for s in stages}) == 2, "the emulator was not restarted between stages"
        rows = read_results(tmp_path / run_id / "summary.csv")
        assert {r["fresh_emulator"] for r in rows} == {"yes"}
        pids[order] = [s["emulator_pid"] for s in stages]
    assert not set(pids[("timestamp_first", "hash_shard")]) & set(pids[("hash_shard", "timestamp_first")])


def test_unreachable_emulator_fails_fast_with_one_line_and_no_run_directory(tmp_path):
    started = time.monotonic()
    result = keybench("run", "--backend", "spanner", "--results-dir", str(tmp_path),
                      env={"SPANNER_EMULATOR_HOST": "127.0.0.1:1"}, timeout=60)
    assert time.monotonic() - started < FAILS_FAST_S
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "127.0.0.1:1" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_smoke_fails_on_failed_operations_where_a_full_run_reports_them(emulator_hosts, tmp_path, monkeypatch):
    import shutil

    from keybench.design import strategies

    root = tmp_path / "schemas"
    shutil.copytree(strategies.schemas_root(), root)
    ddl = root / "spanner" / "swapped_order" / "googlesql.sql"
    # A real constraint the database enforces: every insert for user 3 fails.
    ddl.write_text(ddl.read_text().replace("  Payload STRING(MAX),\n", "  Payload STRING(MAX),\n"
                                           "  CONSTRAINT NoUserThree CHECK (UserId != 3),\n"))
    monkeypatch.setenv("KEYBENCH_SCHEMAS", str(root))
    common = dict(backends=("spanner",), strategies=("swapped_order",), users=2, duration_s=2.0,
                  dialects=("googlesql",),
                  results_dir=tmp_path / "results", settings=WorkloadSettings(population=5))
    assert run(RunOptions(**common, smoke=True, run_id="smoke")) == 1
    assert run(RunOptions(**common, smoke=False, run_id="full")) == 0
    for run_id in ("smoke", "full"):
        rows = read_results(tmp_path / "results" / run_id / "summary.csv")
        [insert] = [r for r in rows if r["operation"] == "insert"]
        assert int(insert["failures"]) > 0 and insert["integrity"] == "ok"


def test_smoke_fails_when_an_operation_of_the_mix_never_ran(emulator_hosts, tmp_path, capsys):
    """--spawn-rate 1e-9: the writer starts at once, the reader never does. The smoke stage
    waits past its duration for the reads (COVER_WAIT_S), then fails naming them; a full run
    of the same settings reports the empty rows and passes."""
    common = dict(backends=("bigtable",), strategies=("salted",), users=2, duration_s=1.0, spawn_rate=1e-9,
                  results_dir=tmp_path / "results")
    assert run(RunOptions(**common, smoke=True, run_id="smoke")) == 1
    err = capsys.readouterr().err
    assert "not run yet: the load goes on until each has run once" in err, err[-2000:]
    assert "--smoke: 5 operation(s) of the mix never ran: bigtable:salted point_read" in err, err[-2000:]
    assert run(RunOptions(**common, smoke=False, run_id="full")) == 0
    rows = read_results(tmp_path / "results" / "full" / "summary.csv")
    assert {r["operation"] for r in rows if r["requests"] == "0"} == {
        "point_read", "latest_n", "prefix_scan", "time_window", "number_range"}


def test_a_stage_that_fails_after_creating_its_table_still_drops_it(emulator_hosts, tmp_path, monkeypatch, capsys):
    from google.cloud import bigtable

    from keybench.drive.stage import Stage
    from keybench.infra.target import INSTANCE, PROJECT

    def tables():
        return {t.table_id for t in bigtable.Client(project=PROJECT, admin=True).instance(INSTANCE).list_tables()}

    def failing_preload(self):
        raise RuntimeError("preload refused")

    monkeypatch.setattr(Stage, "preload", failing_preload)  # after create(), before the load
    before = tables()
    options = RunOptions(backends=("bigtable",), strategies=("salted",), users=1, duration_s=1.0,
                         results_dir=tmp_path, run_id="failed-start", report=False)
    assert run(options) == 1
    assert "bigtable:salted could not start: RuntimeError: preload refused" in capsys.readouterr().err
    assert tables() == before


def test_repetitions_interleave_and_the_summary_shows_their_spread(emulator_hosts, tmp_path):
    options = RunOptions(backends=("bigtable",), strategies=("salted", "timestamp_first"), users=2, duration_s=1.5,
                         results_dir=tmp_path, run_id="rep", repeat=2)
    assert run(options) == 0
    stages = json.loads((tmp_path / "rep" / "run.json").read_text())["stages"]
    assert [(s["strategy"], s["repetition"]) for s in stages] == [
        ("salted", 1), ("timestamp_first", 1), ("salted", 2), ("timestamp_first", 2)]
    rows = read_results(tmp_path / "rep" / "summary.csv")
    assert len(rows) == 12  # one row per (strategy, operation), not per repetition
    # A busy machine may run no read of some kind in 1.5 s; the inserts always run.
    measured = [r for r in rows if int(r["requests"])]
    assert {("salted", "insert"), ("timestamp_first", "insert")} <= {(r["strategy"], r["operation"]) for r in measured}
    for r in rows:
        assert r["repetitions"] == "2"
        if r in measured:
            assert float(r["p50_min_ms"]) <= float(r["p50_ms"]) <= float(r["p50_max_ms"]), r
            assert float(r["p99_min_ms"]) <= float(r["p99_max_ms"]), r
        else:  # no latency in either repetition: no spread either
            assert r["p50_ms"] == r["p50_min_ms"] == r["p50_max_ms"] == r["p99_min_ms"] == r["p99_max_ms"] == "", r
    acknowledged = sum(s["integrity"]["acknowledged"] for s in stages if s["strategy"] == "salted")
    [insert] = [r for r in rows if r["strategy"] == "salted" and r["operation"] == "insert"]
    assert int(insert["acknowledged"]) == acknowledged == int(insert["requests"])


def test_fail_on_verdict_gates_ci_on_the_modelled_verdict_and_the_answer_prints_first(emulator_hosts, tmp_path):
    done = keybench("run", "--backend", "spanner", "--strategies", "timestamp_first,uuid4_string", "--dialects",
                    "googlesql", "--duration", "3s", "--no-report", "--results-dir", str(tmp_path), "--run-id", "gate",
                    "--fail-on-verdict", "hotspot,hot_row", timeout=240)
    assert done.returncode == 1, done.stderr[-2000:]
    gate = [line for line in done.stderr.splitlines() if "--fail-on-verdict" in line]
    assert len(gate) == 1 and "spanner:timestamp_first verdict hotspot" in gate[0], done.stderr
    # The verdict table comes before the first latency table.
    assert re.search(r"^design +verdict", done.stdout, re.M).start() < done.stdout.index("spanner latency")
    verdicts = {r["strategy"]: (r["verdict"], r["agrees"]) for r in read_results(tmp_path / "gate" / "summary.csv")
                if r["operation"] == "insert"}
    assert verdicts == {"timestamp_first": ("hotspot", "yes"), "uuid4_string": ("spread", "yes")}
    refused = keybench("run", "--fail-on-verdict", "hot", "--dry-run")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "unknown verdict 'hot'" in refused.stderr


def test_run_json_says_where_the_wall_time_went(tmp_path):
    from keybench.run.timing import PHASES, WallClock

    clock = WallClock()
    with clock.phase("setup"):
        time.sleep(0.05)
    clock.add_load(0.2, 0.3)
    record = clock.record()
    assert record["load_s"] == 0.2 and record["outside_load_s"]["start_and_stop"] == 0.1
    assert record["outside_load_s"]["setup"] >= 0.05 and set(record["outside_load_s"]) == {*PHASES, "other"}
    assert "load 0 s" in clock.describe() and "setup" not in clock.describe()  # under half a second: left out


def test_format_json_prints_one_document_of_the_verdicts_and_every_summary_row(emulator_hosts, tmp_path):
    done = keybench("run", "--backend", "bigtable", "--strategies", "salted", "--duration", "1s", "--no-report",
                    "--results-dir", str(tmp_path), "--run-id", "j", "--format", "json", timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Warning" not in done.stderr  # the audit's read-back child too builds its clients quietly
    document = json.loads(done.stdout)  # stdout is the document alone: progress went to stderr
    rows = read_results(tmp_path / "j" / "summary.csv")
    assert document["status"] == "complete" and document["results"] == str(tmp_path / "j")
    [verdict] = document["verdicts"]
    insert = next(r for r in rows if r["operation"] == "insert")
    assert (verdict["strategy"], verdict["verdict"]) == ("salted", insert["verdict"])
    assert [op["operation"] for op in document["operations"]] == [r["operation"] for r in rows]
    assert document["operations"][0]["requests"] == int(insert["requests"])  # a number, not text
