"""The locustfiles' scenarios (drive/scenario.py), loaded as Locust loads them."""

import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize("backend", ["spanner", "bigtable"])
def test_a_locustfile_imports_its_client_library_before_a_worker_could_join_its_master(backend):
    """A plain Locust worker joins its master right after the locustfile loads; importing the
    client library once the stage is handed out held its greenlets for seconds on a loaded
    machine, its heartbeats stopped and the master counted it missing."""
    probe = (f"import runpy, sys; runpy.run_path('loadtests/{backend}_locustfile.py'); "
             "print([m for m in ('keybench.backends.spanner', 'keybench.backends.bigtable') if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"'keybench.backends.{backend}'" in result.stdout, result.stdout
