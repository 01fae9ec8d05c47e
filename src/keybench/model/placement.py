"""Ranks of keys, the greedy placement of ranges on nodes, and the cross-fitted estimates of
one window: the pieces the split model (splitmodel.SpaceModel) and the heatmaps share."""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass

import numpy as np


def rank_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, rank of each key among them). Rewrites of one row share a rank.
    Keys that differ only by trailing NUL bytes compare equal here (numpy 'S' padding)."""
    if len(keys) == 0:
        return keys, np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    distinct = ordered if new.all() else ordered[new]  # distinct keys: no second copy
    del ordered
    ranks = np.empty(len(keys), dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    return distinct, ranks


def rank_of(distinct: np.ndarray, key: bytes) -> int:
    """How many distinct keys sort before `key` (numpy truncates a needle wider than the
    array; every key equal to the truncated needle is then smaller than the needle)."""
    width = distinct.dtype.itemsize
    if len(key) > width:
        return int(np.searchsorted(distinct, np.array(key[:width], dtype=distinct.dtype), side="right"))
    return int(np.searchsorted(distinct, np.array(key, dtype=distinct.dtype), side="left"))


def interval_ranks(distinct: np.ndarray, start: bytes, end: bytes) -> tuple[int, int]:
    """[start, end) bytes as [lo, hi) ranks; end b"" is the end of the space."""
    lo = rank_of(distinct, start) if start else 0
    hi = len(distinct) if not end else rank_of(distinct, end)
    return lo, max(lo, hi)


# --- placement and the cross-fitted estimates ----------------------------------------------------


def assign_greedy(loads: np.ndarray, nodes: int, capacity: int | None = None) -> np.ndarray:
    """Node of each range: the loaded ranges heaviest first, each onto the least-loaded node
    that holds fewer than `capacity` ranges (None: no limit); then the ranges without load
    onto the nodes holding the fewest ranges, as a balancer by size would place them."""
    heap = [(0.0, 0, n) for n in range(nodes)]
    placed = [0] * nodes  # ranges per node
    order = np.argsort(-loads, kind="stable")
    loaded = order[loads[order] > 0]
    # Python numbers in the loop: a numpy scalar per step would cost more than the heap does.
    nodes_of_loaded = []
    for load in loads[loaded].tolist():
        total, _, node = heapq.heappop(heap)
        while capacity is not None and placed[node] >= capacity and heap:  # full: skip it for good
            total, _, node = heapq.heappop(heap)
        nodes_of_loaded.append(node)
        placed[node] += 1
        heapq.heappush(heap, (total + load, placed[node], node))
    assignment = np.zeros(len(loads), dtype=np.int64)
    assignment[loaded] = nodes_of_loaded
    counts = np.array(placed, dtype=np.int64)
    idle = order[len(loaded):]
    if len(idle):
        # Deal the idle ranges out so the range counts even up: the emptiest nodes first.
        per_node = math.ceil((len(loads)) / nodes)
        room = np.maximum(per_node - counts, 0)
        slots = np.repeat(np.argsort(counts, kind="stable"), room[np.argsort(counts, kind="stable")])
        if len(slots) < len(idle):  # more idle ranges than room: round-robin over every node
            slots = np.concatenate([slots, np.resize(np.arange(nodes), len(idle) - len(slots))])
        assignment[idle] = slots[:len(idle)]
    return assignment


def range_span(bounds: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """First and last of the ranges starting at `bounds` (sorted, from rank 0) that an interval
    of ranks [lo, hi) spans; an empty interval still asks the range holding lo."""
    first, last = np.searchsorted(bounds, [lo, max(lo, hi - 1)], side="right") - 1
    return int(first), int(last)


@dataclass(frozen=True)
class WindowEstimate:
    hot_node_share: float
    simpson: float | None  # unbiased estimate of sum(node share^2); None with under 2 writes a half
    hot_unit_share: float


def _hot_node_share(fit: np.ndarray, held_out: np.ndarray, prior: np.ndarray, nodes: int) -> tuple[float, float | None]:
    """Ranges placed by their load in `fit` plus `prior` (the previous window's load, as a
    balancer remembers it); the hot node's share of `held_out`, and the unbiased sum of
    squared node shares of `held_out`. Neither placement nor the choice of the hot node sees
    `held_out`."""
    known = fit + prior
    # Each node takes an equal number of ranges, as balancing by size (the ranges hold equal
    # data) and by load together leave them; the heaviest are placed first.
    assignment = assign_greedy(known, nodes, capacity=math.ceil(len(known) / nodes))
    known_nodes = np.bincount(assignment, weights=known, minlength=nodes)
    held_nodes = np.bincount(assignment, weights=held_out, minlength=nodes)
    total = held_out.sum()
    # Ties (a window too small to tell nodes apart): the mean share of the tied nodes.
    tied = np.flatnonzero(known_nodes == known_nodes.max())
    share = float(held_nodes[tied].mean() / total) if total else 0.0
    simpson = float((held_nodes * (held_nodes - 1)).sum() / (total * (total - 1))) if total >= 2 else None
    return share, simpson


def _hot_unit_share(fit_units: np.ndarray, held_units: np.ndarray) -> float:
    """The share of `held_units` that falls on the unit most written in `fit_units` (units
    as numbers 0..n-1), the tied most written units' shares averaged."""
    if not len(fit_units) or not len(held_units):
        return 0.0
    size = int(max(fit_units.max(), held_units.max())) + 1
    fit, held = np.bincount(fit_units, minlength=size), np.bincount(held_units, minlength=size)
    top = fit == fit.max()
    return float(held[top].sum() / top.sum() / len(held_units))


@functools.lru_cache(maxsize=4)
def window_halves(writes: int) -> tuple[np.ndarray, np.ndarray]:
    """A window's writes dealt into two halves at random (seeded by the window's size, so a
    replay is repeatable), not alternately: a bit-reversed counter sends consecutive writes
    to opposite ends of the key space, and alternate halves would then never meet on a node.
    Each half as the ascending indexes of its writes: taking them is far faster than a
    boolean mask whose elements alternate at random."""
    in_first = np.random.default_rng(writes).permutation(writes) < (writes + 1) // 2
    return np.flatnonzero(in_first), np.flatnonzero(~in_first)


def estimate_window(loads: tuple[np.ndarray, np.ndarray], units: tuple[np.ndarray, np.ndarray] | None, nodes: int,
                    previous: np.ndarray | None = None) -> WindowEstimate:
    """The cross-fitted estimates of one window: `loads` each half's writes per range,
    `units` its writes' split units (as numbers 0..n-1; None when no unit is written twice, so
    that none takes a share of the other half), `previous` the previous window's writes
    per range."""
    loads = (np.asarray(loads[0], dtype=np.float64), np.asarray(loads[1], dtype=np.float64))
    writes = loads[0].sum() + loads[1].sum()
    prior = np.zeros(len(loads[0]))
    if previous is not None and previous.sum():
        prior = previous * (writes / 2 / previous.sum())
    shares, simpsons, unit_shares = [], [], []
    for fit, held in ((0, 1), (1, 0)):
        share, simpson = _hot_node_share(loads[fit], loads[held], prior, nodes)
        shares.append(share)
        if simpson is not None:
            simpsons.append(simpson)
        unit_shares.append(_hot_unit_share(units[fit], units[held]) if units is not None else 0.0)
    return WindowEstimate(float(np.mean(shares)), float(np.mean(simpsons)) if simpsons else None,
                          float(np.mean(unit_shares)))
