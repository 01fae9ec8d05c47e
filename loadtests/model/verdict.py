"""A verdict on one modelled key space: does it hotspot, hammer one row, or spread?

STAND-IN: the real module is being written with the split model's rewrite; this one keeps
its interface (VERDICTS, Verdict, judge) so that callers can be written against it now.
It never says hot_row."""

from __future__ import annotations

from dataclasses import dataclass

from loadtests.model.splitmodel import ModelResult

VERDICTS = ("hotspot", "hot_row", "spread", "inconclusive")
HOTSPOT_SHARE = 0.9  # the busiest node takes at least this share of the writes
SPREAD_FACTOR = 1.5  # spread: the busiest node takes at most this many times its fair share (1 / nodes)


@dataclass(frozen=True)
class Verdict:
    verdict: str
    hot_node_share: float
    effective_nodes: float
    hot_row_share: float
    nodes: int


def judge(result: ModelResult) -> Verdict:
    """The verdict on a model result's worst key space."""
    worst = result.spaces[result.hot_space]
    share = worst.hot_node_share
    if share >= HOTSPOT_SHARE:
        verdict = "hotspot"
    elif share <= SPREAD_FACTOR / result.nodes:
        verdict = "spread"
    else:
        verdict = "inconclusive"
    return Verdict(verdict, share, worst.effective_nodes, 0.0, result.nodes)
