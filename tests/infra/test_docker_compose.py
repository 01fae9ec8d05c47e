"""No Docker engine runs here, so the Compose file is checked against keybench's defaults."""

import yaml

from loadtests.infra.emulators import DEFAULT_PORTS
from tests.conftest import IMAGES, REPO


def compose():
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]


def published(service):
    return {int(p.split(":")[0]): int(p.split(":")[1]) for p in service["ports"]}


def test_spanner_service_runs_the_official_image_on_keybench_ports():
    spanner = compose()["spanner"]
    assert spanner["image"] == IMAGES["spanner"][0] == "gcr.io/cloud-spanner-emulator/emulator"
    assert published(spanner) == {DEFAULT_PORTS["spanner"]: 9010, 9020: 9020}


def test_bigtable_service_runs_the_cli_image_emulator_on_keybench_port():
    bigtable = compose()["bigtable"]
    assert bigtable["image"] == IMAGES["bigtable"][0]
    assert " ".join(bigtable["command"]) == IMAGES["bigtable"][1]
    assert published(bigtable) == {DEFAULT_PORTS["bigtable"]: 8086}


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
        assert service["build"] == "."
        assert service["environment"] == {"SPANNER_EMULATOR_HOST": "spanner:9010", "BIGTABLE_EMULATOR_HOST": "bigtable:8086"}
    assert master["depends_on"]["bigtable"]["condition"] == "service_healthy"
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "COPY loadtests loadtests" in dockerfile and "COPY schemas schemas" in dockerfile and "pip install" in dockerfile
