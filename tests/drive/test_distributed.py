"""`keybench run --workers N`: Locust's distributed mode, histograms merged on the master."""

import csv
import json

from keybench.measure.summary import read_summary
from keybench.run import RunOptions, run


def test_two_workers_add_up_to_the_summary_and_to_the_rows_read_back(emulator_hosts, tmp_path):
    options = RunOptions(strategies=("uuid4_string", "salted"), dialects=("googlesql",), users=4, workers=2,
                         duration_s=3.0, results_dir=tmp_path, run_id="dist", report=False)
    assert run(options) == 0
    run_dir = tmp_path / "dist"
    rows = read_summary(run_dir / "summary.csv")
    stages = json.loads((run_dir / "run.json").read_text())["stages"]
    assert len(stages) == 2
    for stage in stages:
        mine = [r for r in rows if (r["backend"], r["strategy"]) == (stage["backend"], stage["strategy"])]
        per_worker = stage["operations_per_worker"]
        assert sorted(per_worker) == ["0", "1"] and all(n > 0 for n in per_worker.values()), per_worker
        assert sum(int(r["requests"]) for r in mine) == sum(per_worker.values())
        inserts = next(r for r in mine if r["operation"] == "insert")
        # every acknowledged insert of both workers was read back by the audit, nothing more
        assert int(inserts["requests"]) == int(inserts["acknowledged"]) == int(inserts["stored"]) > 0, inserts
        assert inserts["integrity"] == "ok" and inserts["collisions"] == "0"
        assert stage["integrity"]["lost"] == 0 and stage["integrity"]["unexpected"] == 0
        # Locust's own statistics, gathered by its master from the workers, count the same requests
        name = f"{stage['backend']}-{stage['strategy']}" + (f"-{stage['dialect']}" if stage["dialect"] else "")
        with open(run_dir / "locust" / f"{name}_stats.csv") as f:
            locust = {r["Name"]: int(r["Request Count"]) for r in csv.DictReader(f) if r["Name"] != "Aggregated"}
        assert locust == {r["operation"]: int(r["requests"]) for r in mine if int(r["requests"])}
