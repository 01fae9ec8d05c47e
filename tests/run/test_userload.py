"""`keybench check SCHEMA --load`: the user's table under `keybench run`'s load on the real
emulator, audited and timed as a run is; then a saved design beside a catalogue strategy."""

from __future__ import annotations

import pytest

from keybench.check.command import check
from keybench.check.request import CheckRequest
from keybench.measure.summary import read_results
from keybench.run import RunOptions, run
from tests.conftest import keybench

pytestmark = pytest.mark.emulator

# The same tables in each dialect: a child interleaved in its parent, NOT NULL columns of
# several types. PostgreSQL stores the unquoted names in lower case.
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
READINGS_POSTGRESQL = """
CREATE TABLE Sensors (
  SensorId varchar(16) NOT NULL,
  Site varchar(8) NOT NULL,
  PRIMARY KEY (SensorId)
);
CREATE TABLE Readings (
  SensorId varchar(16) NOT NULL,
  ReadAt timestamptz NOT NULL,
  Reading double precision NOT NULL,
  Day date NOT NULL,
  Total numeric NOT NULL,
  Labels varchar(8)[] NOT NULL,
  Note varchar,
  PRIMARY KEY (SensorId, ReadAt)
) INTERLEAVE IN PARENT Sensors;
"""


def test_check_load_audits_the_user_s_tables_in_their_dialect_and_a_saved_design_runs_beside_the_catalogue(
        emulator_hosts, tmp_path):
    schema = tmp_path / "readings.sql"
    schema.write_text(READINGS_POSTGRESQL)
    result = keybench("check", str(schema), "--load", "1s", "--rows", "5000", "--results-dir",
                      str(tmp_path / "results"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # the check's verdicts first, unchanged, then the load, its audit and its latency table
    assert out.index("table readings: key (sensorid, readat)") < out.index("load: table sensors, table readings") < (
        out.index("spanner latency"))
    assert "  table readings: each insert upserts its parent row in sensors, in the same commit" in out
    [run_dir] = (tmp_path / "results").iterdir()
    assert f"results: {run_dir}/summary.csv" in out
    rows = read_results(run_dir / "summary.csv")
    # in the dialect the tables were written in, and in that one only
    assert {(r["strategy"], r["dialect"], r["operation"]) for r in rows} == {
        (s, "postgresql", op) for s in ("readings", "sensors") for op in ("insert", "point_read", "latest_n",
                                                                          "time_window")}
    for r in rows:
        assert (r["integrity"], r["failures"], r["agrees"]) == ("ok", "0", "n/a"), r
    for insert in (r for r in rows if r["operation"] == "insert"):
        assert int(insert["stored"]) == int(insert["acknowledged"]) > 0
    latency = out[out.index("spanner latency"):].splitlines()
    inserts = [(latency[i - 1], *line.split()[:2]) for i, line in enumerate(latency) if line.startswith("  insert ")]
    assert inserts == [("sensors[postgresql]", "insert", "write"), ("readings[postgresql]", "insert", "write")]

    schema.write_text(READINGS)
    check(CheckRequest(schema=schema, rows=5000, save_to=tmp_path / "mine"))
    options = RunOptions(backends=("spanner",), dialects=("googlesql",), strategies=("sequential_int", "readings"),
                         strategy_dirs=(tmp_path / "mine",), users=2, duration_s=1.0, results_dir=tmp_path,
                         smoke=True, run_id="beside", report=False)
    assert run(options) == 0
    rows = read_results(tmp_path / "beside" / "summary.csv")
    inserts = {r["strategy"]: r for r in rows if r["operation"] == "insert"}
    assert list(inserts) == ["sequential_int", "readings"]
    assert inserts["sequential_int"]["agrees"] in ("yes", "no") and inserts["readings"]["agrees"] == "n/a"
    assert inserts["readings"]["source"] == "your own design: saved by keybench check from readings.sql"
    assert all(r["integrity"] == "ok" for r in inserts.values())


# DDL as teams write it: a table named by a reserved keyword (backticked), IF NOT EXISTS, a
# foreign key (whose backing index Spanner creates itself), and a referenced table.
ORDERS_AS_WRITTEN = """
CREATE TABLE IF NOT EXISTS Customer (Id INT64 NOT NULL) PRIMARY KEY (Id);
CREATE TABLE IF NOT EXISTS `Order` (
  `Desc` STRING(MAX),
  CustomerId INT64 NOT NULL,
  CreatedAt TIMESTAMP NOT NULL,
  Id INT64 NOT NULL,
  CONSTRAINT FK_OrderCustomer FOREIGN KEY (CustomerId) REFERENCES Customer (Id),
) PRIMARY KEY (CreatedAt, Id);
CREATE SCHEMA sales;
CREATE TABLE sales.Returns (Id STRING(36) NOT NULL DEFAULT (GENERATE_UUID()), ReturnedAt TIMESTAMP) PRIMARY KEY (Id);
"""


def test_check_load_takes_a_reserved_table_name_if_not_exists_a_foreign_key_and_a_named_schema(
        emulator_hosts, tmp_path):
    """The saved design keeps the quoted name, finds its CREATE TABLE IF NOT EXISTS, leaves the
    foreign key out (the load writes no Customer rows for it to find) and says so, and skips
    the foreign key's backing index; a table of a named schema is loaded under its qualified
    name: every insert is acknowledged and read back."""
    schema = tmp_path / "orders.sql"
    schema.write_text(ORDERS_AS_WRITTEN)
    result = keybench("check", str(schema), "--load", "1s", "--rows", "5000", "--results-dir",
                      str(tmp_path / "results"))
    assert result.returncode == 0, result.stderr + result.stdout
    [run_dir] = (tmp_path / "results").iterdir()
    rows = read_results(run_dir / "summary.csv")
    order = {r["operation"]: r for r in rows if r["strategy"] == "order"}
    assert order["insert"]["failures"] == "0" and int(order["insert"]["stored"]) == int(
        order["insert"]["acknowledged"]) > 0, order["insert"]
    assert "1 FOREIGN KEY constraint(s) left out of the saved DDL" in order["insert"]["note"]
    assert "is Spanner's own (backing a foreign key)" in order["insert"]["note"]
    returns = next(r for r in rows if r["strategy"] == "sales_returns" and r["operation"] == "insert")
    assert returns["failures"] == "0" and int(returns["stored"]) == int(returns["acknowledged"]) > 0, returns
