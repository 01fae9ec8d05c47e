"""docker-compose.yml, checked against keybench's defaults and then run for real on the
session's Docker engine (tests/dockerd.py): the emulators come up healthy on host ports
from the environment, `keybench run --smoke` passes against them, and the `load` profile
runs a Locust master and two workers in containers."""

import csv
import os
import re

import pytest
import yaml

from keybench.infra import emulators, images
from keybench.infra.containers import COMMANDS, IMAGES
from tests.conftest import REPO, keybench
from tests.dockerd import docker

# Spanner: timestamp_first, hash_shard; Bigtable: timestamp_first, salted
SMOKE_STRATEGIES = "timestamp_first,hash_shard,salted"
LOAD_WORKERS = 2


def compose():
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]


def published(service):
    """container port -> (host address, the variable that chooses the host port, its default)."""
    found = {}
    for entry in service["ports"]:
        address, variable, default, port = re.fullmatch(r"([\d.]+):\$\{(\w+):-(\d+)\}:(\d+)", entry).groups()
        found[int(port)] = (address, variable, int(default))
    return found


def test_spanner_service_runs_the_official_image_on_keybench_ports_chosen_by_the_environment():
    spanner = compose()["spanner"]
    assert spanner["image"] == IMAGES["spanner"] == "gcr.io/cloud-spanner-emulator/emulator"
    assert published(spanner) == {9010: ("127.0.0.1", "SPANNER_GRPC_PORT", emulators.DEFAULT_PORTS["spanner"]),
                                  9020: ("127.0.0.1", "SPANNER_REST_PORT", 9020)}


def test_bigtable_service_runs_the_cli_image_emulator_on_keybench_port_chosen_by_the_environment():
    bigtable = compose()["bigtable"]
    assert bigtable["image"] == IMAGES["bigtable"]
    assert " ".join(bigtable["command"]) == COMMANDS["bigtable"]
    assert published(bigtable) == {8086: ("127.0.0.1", "BIGTABLE_GRPC_PORT", emulators.DEFAULT_PORTS["bigtable"])}


def test_both_emulators_have_health_checks():
    services = compose()
    assert "8086" in " ".join(services["bigtable"]["healthcheck"]["test"])
    ready = services["spanner-ready"]
    assert ready["depends_on"] == ["spanner"] and "healthcheck" in ready
    assert "spanner:9020" in " ".join(ready["command"])


def test_the_load_profile_runs_a_locust_master_and_scalable_workers_against_both_emulators():
    services = compose()
    master, worker = services["locust-master"], services["locust-worker"]
    assert master["profiles"] == worker["profiles"] == ["load"]
    assert "--master " in master["command"] and "--expect-workers ${WORKERS:-2}" in master["command"]
    assert "--worker --master-host locust-master" in worker["command"]
    assert "ports" not in worker and "container_name" not in worker  # `--scale locust-worker=N` needs neither
    for service in (master, worker):
        assert service["build"] == {"context": ".", "args": ["BASE_IMAGE"]} and service["image"] == "keybench-locust"
        assert service["environment"] == {"SPANNER_EMULATOR_HOST": "spanner:9010",
                                          "BIGTABLE_EMULATOR_HOST": "bigtable:8086"}
    assert master["depends_on"]["bigtable"]["condition"] == "service_healthy"
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "FROM ${BASE_IMAGE}" in dockerfile and "COPY src src" in dockerfile and "pip install" in dockerfile


# ---------------------------------------------------------------- for real


@pytest.fixture(scope="module")
def compose_up(docker_engine, tmp_path_factory):
    """`docker compose up -d --wait` on free host ports; `docker compose down` afterwards."""
    results = tmp_path_factory.mktemp("compose-results")
    env = {"SPANNER_GRPC_PORT": str(emulators.free_port()), "SPANNER_REST_PORT": str(emulators.free_port()),
           "BIGTABLE_GRPC_PORT": str(emulators.free_port()), "RESULTS_DIR": str(results),
           "COMPOSE_PROJECT_NAME": f"keybench-test-{os.getpid()}"}
    up = docker(docker_engine, "compose", "up", "-d", "--wait", env=env, cwd=REPO)
    print(up.stdout + up.stderr)
    try:
        assert up.returncode == 0, up.stderr[-2000:]
        yield env
    finally:
        down = docker(docker_engine, "compose", "--profile", "load", "down", "--timeout", "2", "--volumes",
                      env=env, cwd=REPO)
        assert down.returncode == 0, down.stderr[-2000:]
        left = docker(docker_engine, "ps", "-aq", "--filter",
                      f"label=com.docker.compose.project={env['COMPOSE_PROJECT_NAME']}")
        assert left.stdout.strip() == ""


def test_compose_up_brings_both_emulators_to_healthy_and_keybench_smoke_runs_against_them(
        docker_engine, compose_up, tmp_path):
    ps = docker(docker_engine, "compose", "ps", "--format", "{{.Service}} {{.Health}}", env=compose_up, cwd=REPO)
    health = dict(line.split(" ", 1) for line in ps.stdout.strip().splitlines())
    assert health == {"spanner": "", "spanner-ready": "healthy", "bigtable": "healthy"}, ps.stdout
    env = {"SPANNER_EMULATOR_HOST": f"127.0.0.1:{compose_up['SPANNER_GRPC_PORT']}",
           "BIGTABLE_EMULATOR_HOST": f"127.0.0.1:{compose_up['BIGTABLE_GRPC_PORT']}"}
    run = keybench("run", "--smoke", "--backend", "all", "--strategies", SMOKE_STRATEGIES,
                   "--results-dir", str(tmp_path), "--no-report", env=env)
    print(run.stdout)
    assert run.returncode == 0, run.stderr[-2000:]
    [summary] = tmp_path.glob("*/summary.csv")
    rows = list(csv.DictReader(summary.open()))
    designs = {(r["backend"], r["strategy"]) for r in rows}
    assert designs == {("spanner", "timestamp_first"), ("spanner", "hash_shard"),
                       ("bigtable", "timestamp_first"), ("bigtable", "salted")}
    assert {r["integrity"] for r in rows} == {"ok"} and {r["fresh_emulator"] for r in rows} == {"no"}
    writes = {(r["backend"], r["strategy"],
               r["dialect"]): int(r["requests"]) for r in rows if r["operation"] == "insert"}
    assert len(writes) == 6 and min(writes.values()) > 0, writes  # Spanner's two in both dialects


@pytest.mark.minutes(2.5)
def test_the_load_profile_runs_a_master_and_two_workers_and_leaves_csvs_and_the_audited_table(
        docker_engine, compose_up, python_image):
    env = {**compose_up, "BASE_IMAGE": python_image, "WORKERS": str(LOAD_WORKERS), "USERS": "4", "DURATION": "10s"}
    run = docker(docker_engine, "compose", "--profile", "load", "up", "--build", "--scale",
                 f"locust-worker={LOAD_WORKERS}", "--abort-on-container-exit", "--exit-code-from", "locust-master",
                 env=env, cwd=REPO, timeout=600)
    out = run.stdout + run.stderr
    print("\n".join(line for line in out.splitlines() if "workers connected" in line or "integrity:" in line))
    assert run.returncode == 0, out[-3000:]
    assert f"{LOAD_WORKERS} workers connected" in out
    results = compose_up["RESULTS_DIR"]
    with open(f"{results}/compose_stats.csv") as stats:
        inserts = [r for r in csv.DictReader(stats) if r["Name"] == "insert"]
    assert len(inserts) == 1 and int(inserts[0]["Request Count"]) > 0
    table = open(f"{results}/compose_keybench.txt").read()
    # Every acknowledged write is stored, and every stored row is acknowledged or was in flight
    # when a user was cut off (its outcome unknown until read back).
    audited = re.search(r"integrity: ok \((\d+) acknowledged, (\d+) stored, 0 lost, 0 duplicated, 0 unexpected"
                        r"(?:; (\d+) with unknown outcome, (\d+) of them stored)?\)", table)
    assert audited, table
    acknowledged, stored, unknown_stored = int(audited[1]), int(audited[2]), int(audited[4] or 0)
    assert acknowledged > 0 and stored == acknowledged + unknown_stored, table


@pytest.fixture(scope="session")
def python_image(docker_engine):
    """A local Python base for keybench's image, built once per session (no registry to pull one from)."""
    spec = images.python_spec()
    print(images.build(spec))
    return spec.name
