"""--target real, safely: the refusals, the dry run, drop-only-what-we-created, no
credentials printed; and two runs at once on one emulator (the real path itself runs in
test_real_path.py)."""

import json
import os
import re
import subprocess
import sys

import pytest

from keybench.design import strategies
from keybench.drive.settings import WorkloadSettings
from keybench.errors import KeybenchError
from keybench.infra import target
from keybench.infra.target import location_name
from keybench.run import RunOptions
from tests.conftest import REPO, keybench

SECRET = "/tmp/keybench-test-secret-adc.json"


def test_dry_run_on_a_real_target_prints_the_plan_and_contacts_nothing(tmp_path, no_emulator_env, monkeypatch):
    monkeypatch.setenv("KEYBENCH_GCLOUD_SDK_ROOT", str(tmp_path / "no-sdk"))  # nothing could be started
    result = keybench("run", "--target", "real", "--project", "acme-prod", "--instance", "orders",
                      "--backend", "bigtable", "--strategies", "salted,tenant_prefix", "--rate", "100",
                      "--duration", "10s", "--dry-run", "--results-dir", str(tmp_path / "results"),
                      env={"GOOGLE_APPLICATION_CREDENTIALS": SECRET}, timeout=60)
    assert result.returncode == 0, result.stderr
    estimate = [line for line in result.stdout.splitlines() if line.startswith("keybench: target real")]
    assert len(estimate) == 1, result.stdout
    tag = re.fullmatch(r"keybench: target real project=acme-prod instance=orders: about ([\d,]+) writes into 2 new "
                       r"databases/tables named kb-([0-9a-z]+)-\*", estimate[0])
    assert tag, estimate[0]
    # two stages of 100 inserts/s from the writers for 10 s, and the one row a reader may write
    assert int(tag.group(1).replace(",", "")) == 2 * (100 * 10 + 1)
    names = re.findall(r"would create table (\S+)", result.stdout)
    assert names == [f"kb-{tag.group(2)}-salted", f"kb-{tag.group(2)}-tenant-prefix"]
    assert SECRET not in result.stdout + result.stderr
    assert not (tmp_path / "results").exists() or list((tmp_path / "results").iterdir()) == []


def test_dry_run_on_the_emulator_target_starts_nothing(tmp_path, no_emulator_env, monkeypatch):
    monkeypatch.setenv("KEYBENCH_GCLOUD_SDK_ROOT", str(tmp_path / "no-sdk"))
    result = keybench("run", "--dry-run", "--backend", "spanner", "--strategies", "uuid7", "--repeat", "2",
                      "--results-dir", str(tmp_path / "results"), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("would create database kb-") == 4  # two dialects, two repetitions
    assert re.search(r"^keybench: target emulator: at most about [\d,]+ writes into 4 new", result.stdout,
                     re.MULTILINE)


def test_every_name_a_run_creates_carries_the_prefix_and_the_run_tag():
    for backend in strategies.BACKENDS:
        for dialect in strategies.DIALECTS[backend]:
            for strategy in strategies.catalogue(backend, dialect).values():
                name = location_name("tag0001", strategy)
                assert name.startswith("kb-tag0001-"), name
                assert len(name) <= 30, name  # Spanner's database id limit


def test_the_estimate_counts_inserts_parent_upserts_and_preloaded_rows():
    options = RunOptions(backends=("spanner",), rate=50.0, duration_s=4.0,
                         settings=WorkloadSettings(mix={"insert": 1, "point_read": 1}))
    catalogue = strategies.catalogue("spanner")
    # the writers' 50 inserts/s x 4 s, and the one row the reader writes to start from
    assert target.stage_writes(catalogue["uuid7"], options) == 201
    assert target.stage_writes(catalogue["interleaved"], options) == 402  # each insert upserts its parent too
    assert target.stage_writes(catalogue["migrate_skip_range"], options) == 201 + 2000
    closed = RunOptions(users=3, duration_s=1.0, settings=WorkloadSettings(mix={"insert": 1}))
    assert target.stage_writes(catalogue["uuid7"], closed) == 3 * target.CLOSED_LOOP_OPS_PER_USER_CEILING
    closed_with_a_reader = RunOptions(users=3, duration_s=1.0)
    assert target.stage_writes(catalogue["uuid7"],
                               closed_with_a_reader) == 2 * target.CLOSED_LOOP_OPS_PER_USER_CEILING + 1


def test_the_target_record_names_the_instance_and_nothing_else():
    real = RunOptions(target="real", project="p", instance="i")
    assert target.record(real) == {"kind": "real", "project": "p", "instance": "i", "endpoint": None}
    assert target.record(RunOptions())["kind"] == "emulator"


class FakeBackend:
    counts_aborts = emulator_bound_inserts = False

    def __init__(self, location, fail_create=False):
        self.location, self.fail_create, self.dropped, self.closed = location, fail_create, 0, 0

    def create(self):
        if self.fail_create:
            raise KeybenchError(f"cannot create {self.location}: already exists")

    def drop(self):
        self.dropped += 1

    def close(self):
        self.closed += 1


def test_only_what_this_stage_created_is_dropped():
    from keybench.drive.stage import Stage

    salted = strategies.catalogue("bigtable")["salted"]
    taken = FakeBackend("kb-tag-salted", fail_create=True)  # the name is someone else's
    stage = Stage(salted, taken, WorkloadSettings(), seed=1)
    with pytest.raises(KeybenchError):
        stage.setup()
    stage.teardown()
    assert taken.dropped == 0 and taken.closed == 1

    ours = FakeBackend("kb-tag-salted")
    stage = Stage(salted, ours, WorkloadSettings(), seed=1)
    stage.setup()
    stage.teardown()
    stage.teardown()  # a second clean-up drops nothing more
    assert ours.dropped == 1


def test_two_runs_at_once_on_one_emulator_do_not_collide(emulator_hosts, tmp_path):
    env = {"GOOGLE_APPLICATION_CREDENTIALS": SECRET}
    runs = []
    for name, extra in (("a", ["--mix", "insert=5,point_read=1,latest_n=1"]), ("b", [])):
        cmd = [sys.executable, "-m", "keybench.cli", "run", "--backend", "bigtable", "--strategies", "salted",
               "--duration", "2s", "--users", "2", "--no-report", "--run-id", "same", *extra,
               "--results-dir", str(tmp_path / name)]
        runs.append(subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **env}, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outputs = [p.communicate(timeout=180) for p in runs]
    for p, (out, err) in zip(runs, outputs, strict=True):
        assert p.returncode == 0, err
        assert SECRET not in out + err
    records = [json.loads((tmp_path / name / "same" / "run.json").read_text()) for name in ("a", "b")]
    for record, name in zip(records, ("a", "b"), strict=True):
        text = (tmp_path / name / "same" / "run.json").read_text()
        assert SECRET not in text and "GOOGLE_APPLICATION_CREDENTIALS" not in text
        assert record["target"]["kind"] == "emulator" and record["endpoints"]["bigtable"]["target"] == "emulator"
        assert all(stage["integrity"]["lost"] == 0 and stage["integrity"]["unexpected"] == 0
                   for stage in record["stages"])
    assert records[0]["settings"]["workload"]["mix"] == {"insert": 5, "point_read": 1, "latest_n": 1}
    assert records[0]["stages"][0]["location"] != records[1]["stages"][0]["location"]
    assert all("integrity ok" in err for _, err in outputs)


def test_a_real_target_without_credentials_is_one_line_before_anything_starts(tmp_path, no_emulator_env):
    """Not a failed stage per strategy and a run directory marked failed: one line, exit 2,
    nothing written, and the key file's path never printed."""
    result = keybench("run", "--target", "real", "--project", "acme-prod", "--instance", "orders",
                      "--backend", "spanner", "--strategies", "uuid4_string",
                      "--results-dir", str(tmp_path / "results"),
                      env={"GOOGLE_APPLICATION_CREDENTIALS": SECRET, "CLOUDSDK_CONFIG": str(tmp_path / "gcloud")},
                      timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("keybench: error: --target real: no usable Google "
                                                             "credentials"), result.stderr
    assert "Traceback" not in result.stderr and SECRET not in result.stdout + result.stderr
    assert not (tmp_path / "results").exists() or list((tmp_path / "results").iterdir()) == []


def test_a_real_spanner_dry_run_says_each_stage_waits_for_the_services_statistics(tmp_path, no_emulator_env):
    args = ("run", "--target", "real", "--project", "acme-prod", "--instance", "orders", "--backend", "spanner",
            "--strategies", "uuid7", "--dialects", "googlesql", "--repeat", "2", "--dry-run")
    waits = keybench(*args, "--observe-wait", "90s", env={"GOOGLE_APPLICATION_CREDENTIALS": SECRET}, timeout=60)
    assert waits.returncode == 0, waits.stderr
    assert "after each stage: wait at most 90 s for the service's statistics of its minutes" in waits.stdout
    skips = keybench(*args, "--observe-wait", "0", env={"GOOGLE_APPLICATION_CREDENTIALS": SECRET}, timeout=60)
    assert skips.returncode == 0 and "statistics" not in skips.stdout, skips.stdout
    refused = keybench(*args, "--observe-wait", "2h", timeout=60)
    assert refused.returncode == 2 and "--observe-wait" in refused.stderr and refused.stderr.count("\n") == 1
