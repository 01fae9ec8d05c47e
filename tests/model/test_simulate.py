"""The simulation's helper process: the figures it gives are the ones this process gives,
block after block, and a helper that dies leaves the work to this process."""

from __future__ import annotations

import dataclasses
import os
import signal

import pytest

import keybench.children
from keybench.design import strategies
from keybench.model import simulate
from keybench.model.params import SplitParams


def _figures(name: str, backend: str, rows: int, helper: bool) -> dict:
    params = dataclasses.replace(SplitParams(), nodes=32)
    result = simulate.simulate_model(strategies.catalogue(backend)[name], rows, params,
                                     read_window_s=params.window_size(rows) / 10 / 1000, helper=helper)
    return {space: dataclasses.asdict(metrics) for space, metrics in result.spaces.items()}


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 40,000 inserts: a short stream passes several through the helper's memory,
    each larger than the last block's space would be if the keys grew."""
    monkeypatch.setattr(simulate, "CHUNK_ROWS", 40_000)


@pytest.mark.parametrize("hashed_here", [False, True])  # the helper hashes the keys, or this process does
@pytest.mark.parametrize(("backend", "name"), [("spanner", "index_sparse"), ("spanner", "uuid4_bytes"),
                                               ("bigtable", "reverse_domain")])
def test_the_helper_process_gives_the_figures_this_process_gives(small_blocks, monkeypatch, backend, name,
                                                                 hashed_here):
    monkeypatch.setattr(simulate._HelpedSpace, "hashes_here", lambda self: hashed_here)
    alone = _figures(name, backend, 150_000, helper=False)
    helped = _figures(name, backend, 150_000, helper=True)
    assert helped == alone
    assert all(space["writes"] > 0 for space in alone.values())


class _DiesAtItsThirdCall(keybench.children.PlainProcess):
    """A helper killed (by its PID) when its third call is sent: after it opened the table's
    model and took one block."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def send(self, function, *args):
        self.calls += 1
        if self.calls == 3:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        super().send(function, *args)


def test_a_helper_that_dies_mid_run_leaves_the_work_to_this_process(small_blocks, monkeypatch, capfd):
    alone = _figures("uuid4_string", "spanner", 150_000, helper=False)
    monkeypatch.setattr(keybench.children, "PlainProcess", _DiesAtItsThirdCall)
    assert _figures("uuid4_string", "spanner", 150_000, helper=True) == alone
    said = capfd.readouterr().err
    assert "the model's helper process failed" in said and "killed by SIGKILL" in said, said
