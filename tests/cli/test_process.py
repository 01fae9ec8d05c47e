"""keybench.cli.prepare_process: a command that runs Locust (`run`, `check --load`) runs on
gevent, made ready before grpc is imported; every other command runs without it (`record`'s
proxies relay on threads); every command gets the gRPC environment; and the command line is
read before any of that, without gRPC, gevent or numpy."""

from __future__ import annotations

import subprocess
import sys

import pytest

PATCHED = ("import sys; from keybench.cli import prepare_process; from keybench.cli.arguments import parser; "
           "prepare_process(parser().parse_args(sys.argv[1:])); "
           "import grpc, os; from gevent import monkey; "
           "print(monkey.is_module_patched('socket'), os.environ['GRPC_ENABLE_FORK_SUPPORT'], "
           "os.environ['GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW'])")


@pytest.mark.parametrize("argv, expected", [
    (["record", "--", "python", "app.py"], "False false false"),
    (["--config", "record", "run", "--smoke"], "True false false"),  # a settings file named `record`
    (["--no-config", "record", "--listen"], "False false false"),
    (["run", "--smoke"], "True false false"),
    (["check", "schema.sql"], "False false false"),
    (["check", "schema.sql", "--load", "30s"], "True false false"),
    (["emulators", "up"], "False false false"),
    (["simulate", "--backend", "spanner"], "False false false"),
    (["--no-config", "compare", "a", "b"], "False false false"),
])
def test_only_the_commands_that_run_locust_run_on_gevent_and_every_command_gets_the_grpc_environment(argv, expected):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    done = subprocess.run([sys.executable, "-c", PATCHED, *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected.split()


# What reading the command line must not import: the clients and the model's arrays, and the
# modules gevent patches (imported before it, one could hold an unpatched socket or lock).
HEAVY = ("grpc", "gevent", "numpy", "locust", "google", "socket", "ssl", "threading", "subprocess", "select")


def test_the_command_line_is_built_and_read_without_grpc_gevent_numpy_or_what_gevent_patches():
    code = ("import sys; from keybench.cli.arguments import parser; "
            "parser().parse_args(['run', '--smoke', '--backend', 'spanner']); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("argv", [["check", "--no-such-option"], ["run", "--users", "many"], ["--version"]])
def test_bad_input_and_the_version_answer_before_grpc_or_gevent_is_imported(argv):
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "keybench", *argv], capture_output=True,
                          text=True, timeout=120)
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert done.returncode == (0 if argv == ["--version"] else 2), done.stderr[-2000:]
    assert imported and not {name.split(".")[0] for name in imported} & set(HEAVY)
