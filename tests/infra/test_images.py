"""`python -m keybench.infra.images`: local stand-ins for the emulator images, built on the
session's Docker engine, rebuilt only when their sources change."""

import io
import subprocess
import sys
import tarfile

from keybench.infra import images
from tests.conftest import REPO
from tests.dockerd import docker


def test_a_second_build_with_the_same_sources_does_nothing_and_says_so(docker_engine):
    result = subprocess.run([sys.executable, "-m", "keybench.infra.images"], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{images.SPANNER_IMAGE}: up to date (sources {images.spanner_spec().fingerprint()})",
        f"{images.CLI_IMAGE}: up to date (sources {images.cli_spec().fingerprint()})",
    ]


def test_changed_sources_rebuild_the_image_and_the_gcloud_shim_refuses_other_commands(docker_engine):
    spec = images.cli_spec()
    spec.name = "keybench-test/cli:changed"
    spec.writes["/etc/keybench-test"] = "first"
    try:
        assert "built from this machine's files" in images.build(spec)
        assert "up to date" in images.build(spec)
        spec.writes["/etc/keybench-test"] = "second"
        assert "built from this machine's files" in images.build(spec)
        run = docker(docker_engine, "run", "--rm", spec.name, "gcloud", "components", "list")
        assert run.returncode == 2 and "only runs: gcloud beta emulators bigtable start" in run.stderr
        shown = docker(docker_engine, "run", "--rm", spec.name, "cat", "/etc/keybench-test")
        assert shown.stdout == "second"
    finally:
        docker(docker_engine, "rmi", "-f", spec.name)


def test_an_image_keybench_did_not_build_is_left_alone(docker_engine):
    name = "keybench-test/foreign:latest"
    empty = io.BytesIO()
    with tarfile.open(fileobj=empty, mode="w"):
        pass
    imported = subprocess.run(["docker", "import", "-", name], input=empty.getvalue(), capture_output=True,
                              timeout=60)
    assert imported.returncode == 0, imported.stderr
    try:
        spec = images.spanner_spec()
        spec.name = name
        assert images.build(spec).startswith(f"{name}: left alone")
    finally:
        docker(docker_engine, "rmi", "-f", name)


def test_no_docker_engine_is_one_line_and_exit_2(tmp_path):
    result = subprocess.run([sys.executable, "-m", "keybench.infra.images"], cwd=REPO, capture_output=True,
                            text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "DOCKER_HOST": f"unix://{tmp_path}/none.sock"})
    assert result.returncode == 2
    assert result.stderr.startswith("images: error: docker version failed:") and result.stderr.count("\n") == 1
