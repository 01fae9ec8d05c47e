"""The model of each variant, in its own process while the run goes on, gives the rows the
end-of-run model gives; a model process that dies leaves the run to model in its own."""

from __future__ import annotations

import os
import signal

import pytest

from keybench.design import strategies
from keybench.measure.rundir import RunDirectory
from keybench.model.params import SplitParams
from keybench.model.simulate import simulate_stream
from keybench.run.modelling import Modeller
from keybench.run.state import variant_name

PARAMS = SplitParams(nodes=8)
UNITS = [strategies.catalogue("spanner", "googlesql")["timestamp_first"], strategies.catalogue("bigtable")["salted"]]


def summary_rows(strategy) -> list[dict]:
    return [{"strategy": strategy.name, "operation": op} for op in ("insert", "time_window")]


def modelled(tmp_path, run_id: str, overlap: bool, kill_process: bool = False) -> tuple[list[dict], RunDirectory]:
    run_dir = RunDirectory(tmp_path, run_id)
    run_dir.open()
    modeller = Modeller(PARAMS, run_dir, heatmaps=True, payload_bytes=100, overlap=overlap)
    try:
        for i, strategy in enumerate(UNITS):
            modeller.submit(strategy, [simulate_stream(strategy, 4000, reads_per_operation=5)])
            if kill_process and i == 0:
                os.kill(modeller._process.proc.pid, signal.SIGKILL)
            modeller.wait()
        rows = modeller.rows({variant_name(s): summary_rows(s) for s in UNITS})
    finally:
        modeller.close()
    return rows, run_dir


@pytest.fixture(scope="module")
def at_end(tmp_path_factory) -> tuple[list[dict], RunDirectory]:
    return modelled(tmp_path_factory.mktemp("end"), "end", overlap=False)


@pytest.mark.slow
def test_the_model_process_gives_the_rows_and_files_the_end_of_run_model_gives(tmp_path, at_end):
    aside, aside_dir = modelled(tmp_path, "aside", overlap=True)
    at_end, end_dir = at_end
    assert aside == at_end
    assert {r["verdict"] for r in aside if r["strategy"] == "timestamp_first"} == {"hotspot"}
    assert {r["verdict"] for r in aside if r["strategy"] == "salted"} == {"spread"}
    for folder in ("keystream", "heatmaps"):
        names = sorted(p.name for p in (aside_dir.partial / folder).iterdir())
        assert names == sorted(p.name for p in (end_dir.partial / folder).iterdir()) and names
    assert (aside_dir.partial / "keystream" / "bigtable-salted.npz").read_bytes() == \
        (end_dir.partial / "keystream" / "bigtable-salted.npz").read_bytes()


@pytest.mark.slow
def test_a_model_process_that_dies_leaves_the_model_to_the_run(tmp_path, capsys, at_end):
    rows, _ = modelled(tmp_path, "killed", overlap=True, kill_process=True)
    assert rows == at_end[0]
    assert "the model process failed (pid" in capsys.readouterr().err


@pytest.mark.slow
def test_the_model_process_writes_nothing_into_the_run_until_its_stages_are_over(tmp_path):
    """The model of a variant runs beside the next stage's set-up; what it draws waits for the
    end of the run, so a small disk is filled by the stages' results first (a full disk keeps
    the run, marked failed, with its summary)."""
    run_dir = RunDirectory(tmp_path, "quiet")
    run_dir.open()
    modeller = Modeller(PARAMS, run_dir, heatmaps=True, payload_bytes=100, overlap=True)
    try:
        for strategy in UNITS:
            modeller.submit(strategy, [simulate_stream(strategy, 2000, reads_per_operation=5)])
        modeller.wait()
        assert list(run_dir.partial.rglob("*")) == []
        modeller.rows({variant_name(s): summary_rows(s) for s in UNITS})
    finally:
        modeller.close()
    assert sorted(p.name for p in (run_dir.partial / "heatmaps").iterdir())
