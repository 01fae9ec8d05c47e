"""The worker process of `keybench run --workers N` (drive/worker.py)."""

import subprocess
import sys

from tests.conftest import REPO

# Stops the worker where it would join its master, and says which bindings it had imported by then.
PROBE = """
import sys
from locust.env import Environment

def join(self, *args, **kwargs):
    print(sorted(m for m in ("keybench.backends.spanner", "keybench.backends.bigtable") if m in sys.modules))
    raise SystemExit(0)

Environment.create_worker_runner = join
from keybench.drive import worker
worker.main(["--master-port", "1"])
"""


def test_a_worker_imports_every_backends_client_library_before_it_joins_its_master():
    """The stage it is handed may be either backend's, and an import after the handout stops
    its heartbeats for seconds on a loaded machine (backends.binding)."""
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "['keybench.backends.bigtable', 'keybench.backends.spanner']", result.stdout
