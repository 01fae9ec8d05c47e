"""One Spanner emulator per test module of the check: the one SPANNER_EMULATOR_HOST names
(the session's, when the whole suite runs), else a native one started for the module and
stopped by its PID. The check itself finds it through SPANNER_EMULATOR_HOST, as a user's would."""

from __future__ import annotations

import os

import pytest

from loadtests.infra import emulators


@pytest.fixture(scope="module")
def spanner_emulator(state_dir):
    variable = emulators.ENV_VARS["spanner"]
    if os.environ.get(variable):
        yield os.environ[variable]
        return
    if emulators.binary("spanner") is None:
        pytest.skip(f"no Spanner emulator: {variable} unset and no native binary; {emulators.fix_hint('spanner')}")
    emulator = emulators.start("spanner", emulators.free_port(), "pytest tests/check", detach=False)
    os.environ[variable] = emulator.address
    try:
        yield emulator.address
    finally:
        os.environ.pop(variable, None)
        emulator.stop()
