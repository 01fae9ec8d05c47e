"""keybench.cli.prepare_process: every command runs on gevent, made ready before grpc is
imported, except `record`, whose proxies relay on threads; and the command is found past the
global options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from keybench.cli import command_word

PATCHED = ("import sys; from keybench.cli import prepare_process; prepare_process(sys.argv[1:]); "
           "import grpc, os; from gevent import monkey; "
           "print(monkey.is_module_patched('socket'), os.environ['GRPC_ENABLE_FORK_SUPPORT'], "
           "os.environ['GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW'])")


@pytest.mark.parametrize("argv, expected", [
    (["record", "--", "python", "app.py"], "False false false"),
    (["--config", "record", "run", "--smoke"], "True false false"),  # a settings file named `record`
    (["--no-config", "record", "--listen"], "False false false"),
    (["run", "--smoke"], "True false false"),
    (["check", "schema.sql"], "True false false"),
])
def test_only_record_runs_without_gevent_and_every_command_gets_the_grpc_environment(argv, expected):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    done = subprocess.run([sys.executable, "-c", PATCHED, *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected.split()


@pytest.mark.parametrize("argv, word", [
    (["record", "--", "app"], "record"), (["--config=k.toml", "check"], "check"),
    (["--config", "k.toml", "record"], "record"), (["--version"], None), ([], None),
])
def test_the_command_word_is_found_past_the_global_options(argv, word):
    assert command_word(argv) == word
