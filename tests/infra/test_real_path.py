"""The real path, run end to end: `--target real --endpoint` points it at an emulator without the
*_EMULATOR_HOST variables, so the code that runs is the real path's. It never creates an
instance; it creates only its own kb-<tag>-* databases and tables, loads and audits them, and
drops exactly those: a database or table made beforehand under a similar name survives.

Spanner's client speaks plaintext to a local endpoint with anonymous credentials (its own
rule). Bigtable's speaks TLS to any endpoint given by client_options, as it does to Google's:
its emulator is reached through a TLS front (tests/tls_front.py) whose certificate the run
trusts through gRPC's GRPC_DEFAULT_SSL_ROOTS_FILE_PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from google.auth.credentials import AnonymousCredentials

from keybench.infra import emulators
from tests.conftest import REPO
from tests.tls_front import TlsFront

PROJECT = "kb-real-path"
SECRET = "/tmp/keybench-test-secret-adc.json"  # would be a user's key file: never needed, never printed


def _run(endpoint: str, project: str, instance: str, results: Path, *args: str,
         env: dict | None = None) -> subprocess.CompletedProcess:
    """`keybench run --target real` as a user runs it, with no *_EMULATOR_HOST variable set, and
    without waiting for the service's statistics (tests/run/test_observation.py waits for them):
    a stage would wait up to the minute after its load, about 100 s here."""
    clean = {k: v for k, v in os.environ.items() if k not in emulators.ENV_VARS.values()}
    return subprocess.run(
        [sys.executable, "-m", "keybench.cli", "run", "--target", "real", "--endpoint", endpoint, "--project", project,
         "--instance", instance, "--duration", "2s", "--users", "2", "--no-report", "--run-id", "r",
         "--observe-wait", "0", "--results-dir", str(results), *args],
        cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**clean, "COLUMNS": "1000", "GOOGLE_APPLICATION_CREDENTIALS": SECRET, **(env or {})})


def _stages_created_loaded_and_audited(results: Path, endpoint: str, instance: str, count: int) -> list[str]:
    record = json.loads((results / "r" / "run.json").read_text())
    assert record["target"] == {"kind": "real", "project": PROJECT, "instance": instance, "endpoint": endpoint}
    stages = record["stages"]
    assert len(stages) == count
    for stage in stages:
        integrity = stage["integrity"]
        assert stage["location"].startswith("kb-")
        assert integrity["verified"] and integrity["acknowledged"] > 0, integrity
        assert integrity["stored"] == integrity["acknowledged"] and integrity["lost"] == 0, integrity
    return [stage["location"] for stage in stages]


@pytest.fixture
def spanner_admin(emulator_hosts):
    """A client of the session's Spanner emulator, through SPANNER_EMULATOR_HOST (the test's own
    set-up: the run under test never sees that variable)."""
    from google.cloud import spanner

    client = spanner.Client(project=PROJECT, credentials=AnonymousCredentials())
    yield client
    client.close()


def _instance(client, instance_id: str):
    from keybench.backends.spanner import EMULATOR_CONFIG

    instance = client.instance(instance_id, configuration_name=f"projects/{PROJECT}/instanceConfigs/{EMULATOR_CONFIG}",
                               node_count=1)
    if not instance.exists():
        instance.create().result(120)
    return instance


def _databases(instance) -> set[str]:
    return {d.name.rsplit("/", 1)[1] for d in instance.list_databases()}


def test_the_real_spanner_path_drops_exactly_the_databases_it_created(spanner_admin, emulator_hosts, tmp_path):
    instance = _instance(spanner_admin, "orders")
    decoy = instance.database("kb-decoy-timestamp-first")  # keybench's prefix, someone else's database
    if not decoy.exists():
        decoy.create().result(120)
    before = _databases(instance)
    endpoint = emulator_hosts["spanner"]
    done = _run(endpoint, PROJECT, "orders", tmp_path, "--backend", "spanner", "--strategies", "timestamp_first",
                "--dialects", "googlesql,postgresql")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"keybench: target real project={PROJECT} instance=orders:" in done.stdout
    created = _stages_created_loaded_and_audited(tmp_path, endpoint, "orders", 2)
    after = _databases(instance)
    assert after == before and "kb-decoy-timestamp-first" in after
    assert not set(created) & after  # created, loaded, audited and dropped
    assert SECRET not in done.stdout + done.stderr + (tmp_path / "r" / "run.json").read_text()


def test_the_real_spanner_path_never_creates_an_instance(spanner_admin, emulator_hosts, tmp_path):
    done = _run(emulator_hosts["spanner"], PROJECT, "nosuch", tmp_path, "--backend", "spanner",
                "--strategies", "uuid4_string", "--dialects", "googlesql")
    assert done.returncode != 0
    assert "instance projects/kb-real-path/instances/nosuch does not exist; keybench never creates an instance" \
        in done.stderr, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert "nosuch" not in {i.name.rsplit("/", 1)[1] for i in spanner_admin.list_instances()}


@pytest.fixture
def bigtable_front(emulator_hosts, tmp_path):
    front = TlsFront(emulator_hosts["bigtable"], tmp_path)
    yield front
    front.close()


def _tables(instance_id: str) -> set[str]:
    from google.cloud import bigtable

    client = bigtable.Client(project=PROJECT, admin=True)  # through BIGTABLE_EMULATOR_HOST (the test's set-up)
    return {t.table_id for t in client.instance(instance_id).list_tables()}


def test_the_real_bigtable_path_over_tls_drops_exactly_the_tables_it_created(bigtable_front, tmp_path):
    from google.cloud import bigtable
    from google.cloud.bigtable import column_family

    client = bigtable.Client(project=PROJECT, admin=True)
    decoy = client.instance("sensors").table("kb-decoy-salted")
    if not decoy.exists():
        decoy.create(column_families={"f": column_family.MaxVersionsGCRule(1)})
    before = _tables("sensors")
    done = _run(bigtable_front.endpoint, PROJECT, "sensors", tmp_path / "results", "--backend", "bigtable",
                "--strategies", "salted,tenant_prefix",
                env={"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(bigtable_front.certificate)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert bigtable_front.connections > 0  # over TLS, through the front: no plaintext shortcut
    created = _stages_created_loaded_and_audited(tmp_path / "results", bigtable_front.endpoint, "sensors", 2)
    after = _tables("sensors")
    assert after == before and "kb-decoy-salted" in after
    assert not any(t == c or t.startswith(c + "-") for t in after for c in created)  # tenant tables included


def test_an_endpoint_is_refused_without_the_real_target_or_when_malformed(tmp_path):
    from tests.conftest import keybench

    for args, message in [
        (("--endpoint", "localhost:9010"), "--project, --instance and --endpoint name a real instance"),
        (("--target", "real", "--project", "p", "--instance", "i", "--endpoint", "localhost"), "is not HOST:PORT"),
        (("--target", "real", "--project", "p", "--instance", "i", "--endpoint", "a b:1"), "is not HOST:PORT"),
        (("--target", "real", "--project", "p", "--instance", "i", "--endpoint", "h:70000"), "is not HOST:PORT"),
    ]:
        done = keybench("run", *args, "--dry-run", "--results-dir", str(tmp_path), timeout=60)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1
