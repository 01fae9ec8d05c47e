"""The simulation's helper process: the figures it gives are the ones this process gives,
block after block, and a helper that dies leaves the work to this process."""

from __future__ import annotations

import dataclasses
import os
import signal
from types import SimpleNamespace

import numpy as np
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


@pytest.mark.parametrize("here", [False, True])  # the helper hashes and orders the keys, or this process does
@pytest.mark.parametrize(("backend", "name"), [("spanner", "index_sparse"), ("spanner", "uuid4_bytes"),
                                               ("bigtable", "reverse_domain")])
def test_the_helper_process_gives_the_figures_this_process_gives(small_blocks, monkeypatch, backend, name, here):
    monkeypatch.setattr(simulate._HelpedSpace, "hashes_here", lambda self: here)
    ordered = _count_ordered_windows(monkeypatch)
    # every whole window of a block ordered here (once the helper has seen keys), or none
    monkeypatch.setattr(simulate._HelpedSpace, "windows_to_order", lambda self: 10**9 if here else 0)
    fed = _count_fed_blocks(monkeypatch)
    alone = _figures(name, backend, 150_000, helper=False)
    helped = _figures(name, backend, 150_000, helper=True)
    assert helped == alone
    assert all(space["writes"] > 0 for space in alone.values())
    assert (sum(ordered) > 0) == here
    # every space, the indexes too, went through the one helper, a block of each in flight at most
    assert {space for space, _ in fed} == set(alone)
    assert max(in_flight for _, in_flight in fed) == len(alone)


def _count_fed_blocks(monkeypatch) -> list[tuple[str, int]]:
    """(space, blocks in flight once it was sent) per block sent to the helper."""
    fed: list[tuple[str, int]] = []
    feed = simulate._Helper.feed

    def counted(helper, space, *args):
        feed(helper, space, *args)
        fed.append((space, len(helper.in_flight)))

    monkeypatch.setattr(simulate._Helper, "feed", counted)
    return fed


def _count_ordered_windows(monkeypatch) -> list[int]:
    counts: list[int] = []
    window_orders = simulate.window_orders

    def counted(*args):
        orders, ordered = window_orders(*args)
        counts.append(ordered)
        return orders, ordered

    monkeypatch.setattr(simulate, "window_orders", counted)
    return counts


def test_the_blocks_shared_with_the_helper_are_written_again_once_its_model_lets_them_go(small_blocks, monkeypatch):
    made, alive = [], [0, 0]  # blocks made; blocks open now, and the most open at once

    class Counted(simulate._SharedBlock):
        def __init__(self, size):
            super().__init__(size)
            made.append(size)
            alive[0] += 1
            alive[1] = max(alive)

        def close(self):
            super().close()
            alive[0] -= 1

    monkeypatch.setattr(simulate, "_SharedBlock", Counted)
    alone = _figures("tenant_prefix", "bigtable", 400_000, helper=False)
    assert _figures("tenant_prefix", "bigtable", 400_000, helper=True) == alone
    # ten blocks went through a few pieces of shared memory (new ones only as the keys grew
    # wider), every one of them closed at the end
    assert len(made) < 10 and alive[0] == 0 and alive[1] <= 5


@pytest.mark.parametrize(("waited", "ordering", "ordered", "then"), [
    (0.0, 0.0, 0, 0),  # never waited: nothing to order here
    (0.006, 0.0, 0, 1),  # waited longer than a first window is worth
    (0.003, 0.0, 0, 0),
    (0.030, 0.010, 2, 3),  # waited longer than ordering one window took: one more
    (0.005, 0.010, 2, 2),  # waited about as long: as many
    (0.001, 0.010, 2, 1),  # hardly waited: one fewer
    (0.0, 0.010, 0, 0),
])
def test_a_block_orders_one_window_more_while_this_process_waits_and_one_fewer_once_it_hardly_does(
        waited, ordering, ordered, then):
    pacing = SimpleNamespace(waited=waited, ordering=ordering, ordered=ordered)
    assert simulate._HelpedSpace.windows_to_order(pacing) == then


def test_window_orders_order_the_whole_windows_of_a_block_as_the_model_takes_them():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 256, size=(1000, 12), dtype=np.uint8).view("S12").ravel()
    lengths = np.full(1000, 12, dtype=np.uint16)
    # 30 writes came before: the model's windows of 100 begin at the block's writes 70, 170, ...
    orders, ordered = simulate.window_orders(keys, lengths, None, 30, 100, 5, 0)
    assert ordered == 5 and (orders[:70] == -1).all() and (orders[570:] == -1).all()
    for start in range(70, 570, 100):
        window = keys[start:start + 100]
        assert sorted(orders[start:start + 100].tolist()) == list(range(100))
        assert window[orders[start:start + 100]].tolist() == sorted(window.tolist())
    assert simulate.window_orders(keys, lengths, None, 30, 100, 99, 0)[1] == 9  # 970..1070 is not whole
    assert simulate.window_orders(keys, lengths, None, 30, 100, 5, None)[1] == 0  # the helper has seen no keys
    assert simulate.window_orders(keys, lengths, None, 30, 100, 5, 4)[1] == 0  # 12 bytes: its words decide
    units = np.full(1000, 10)  # the first 10 bytes of each key are its split unit
    orders, _ = simulate.window_orders(keys, lengths, units, 0, 1000, 1, 0)
    assert [k[:10] for k in keys[orders].tolist()] == sorted(k[:10] for k in keys.tolist())


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
