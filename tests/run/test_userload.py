"""`keybench check SCHEMA --load`: the user's table under `keybench run`'s load on the real
emulator, audited and timed as a run is; then the saved design beside a catalogue strategy."""

from __future__ import annotations

import pytest

from loadtests.measure.summary import read_summary
from loadtests.run import RunOptions, run
from tests.conftest import keybench

pytestmark = pytest.mark.emulator

READINGS = """
CREATE TABLE Sensors (
  SensorId STRING(16) NOT NULL,
  Site STRING(8) NOT NULL,
) PRIMARY KEY (SensorId);
CREATE TABLE Readings (
  SensorId STRING(16) NOT NULL,
  ReadAt TIMESTAMP NOT NULL,
  Reading FLOAT64 NOT NULL,
  Day DATE NOT NULL,
  Labels ARRAY<STRING(8)> NOT NULL,
  Note STRING(MAX),
) PRIMARY KEY (SensorId, ReadAt), INTERLEAVE IN PARENT Sensors;
"""


def test_check_load_audits_the_user_s_table_and_the_saved_design_runs_beside_the_catalogue(emulator_hosts, tmp_path):
    schema = tmp_path / "readings.sql"
    schema.write_text(READINGS)
    result = keybench("check", str(schema), "--load", "1s", "--save-strategy", str(tmp_path / "mine"),
                      "--results-dir", str(tmp_path / "results"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # the check's verdicts first, unchanged, then the load, its audit and its latency table
    assert out.index("table Readings: key (SensorId, ReadAt)") < out.index("load: table Sensors, table Readings") < (
        out.index("spanner / insert"))
    assert "  table Readings: each insert upserts its parent row in Sensors, in the same commit" in out
    [run_dir] = (tmp_path / "results").iterdir()
    assert f"results: {run_dir}/summary.csv" in out
    rows = read_summary(run_dir / "summary.csv")
    assert {(r["strategy"], r["operation"]) for r in rows} == {
        (s, op) for s in ("readings", "sensors") for op in ("insert", "point_read", "latest_n", "time_window")}
    for r in rows:
        assert (r["integrity"], r["failures"], r["agrees"]) == ("ok", "0", "n/a"), r
    for insert in (r for r in rows if r["operation"] == "insert"):
        assert int(insert["stored"]) == int(insert["acknowledged"]) > 0
    insert_table = out[out.index("spanner / insert"):].splitlines()
    assert [line.split()[:2] + line.split()[-1:] for line in insert_table[2:4]] == [
        ["sensors", "write", "ok"], ["readings", "write", "ok"]]

    options = RunOptions(backends=("spanner",), dialects=("googlesql",), strategies=("sequential_int", "readings"),
                         designs=(tmp_path / "mine",), users=2, duration_s=1.0, results_dir=tmp_path,
                         smoke=True, run_id="beside", report=False)
    assert run(options) == 0
    inserts = {r["strategy"]: r for r in read_summary(tmp_path / "beside" / "summary.csv") if r["operation"] == "insert"}
    assert list(inserts) == ["sequential_int", "readings"]
    assert inserts["sequential_int"]["agrees"] in ("yes", "no") and inserts["readings"]["agrees"] == "n/a"
    assert inserts["readings"]["source"] == "your own design: saved by keybench check from readings.sql"
    assert all(r["integrity"] == "ok" for r in inserts.values())
