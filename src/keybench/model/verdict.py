"""The verdict: hotspot, hot_row, spread or inconclusive, from the split model's estimates.

One rule serves every design, catalogue or user schema (results/README.md, "The verdict"):

- hot_row, whatever the key ranges look like, when either
  - the busiest split unit (a row, or a root row with everything interleaved in it) alone
    takes more than the spread bound, 1.5/N of the writes: no split can cut a unit, so no
    placement can spread it; or
  - a row's time bucket closes it (model/shape.py) and the busiest row, at its write rate,
    holds more than the documented 100 MB by the bucket's end; a bucketed row that stays under
    it is judged as any other key, by its nodes, with its size at the bucket's end in the reason;
  - the key sets no end to a row, writes rewrite rows written before (at least REWRITE_SHARE of them, enough to judge),
    and the rewritten rows go on being written across the stream (their first to last
    write spans at least REWRITE_LIFETIME of it, weighted by rewrites): the same rows keep
    taking writes and grow without bound (versions or cells), where an interval's row (an
    aggregate per second) stops growing when its interval ends. A row rewritten at random
    times spans a third of the stream with two writes, more with more;
- hotspot, when every write of a time bucket shares one of at most N/2 prefixes (few values
  ahead of the key's first time part): each bucket starts at those few places, each 2/N or more
  of the writes, however the model spreads the writes inside one bucket;
- hotspot: the busiest node carries at least twice its fair share, 2/N (at most 0.9), and
  clearly more than 1.5/N: by more than two standard errors;
- spread: the busiest node carries at most 1.5/N, or no more than an even design shows in
  as few writes: within two standard errors of 1/N;
- inconclusive: anything else, or too few writes to measure a window.

The standard error of the hot node's share h over m measured writes is sqrt(h(1-h)/m) (each
measured write counts once, on the half that did not choose the hot node). For an even
design at 32 nodes that is about 0.009 at 500 writes and 0.0025 at 5,000: a short stream's
figure can pass 1.5/N = 0.047 by chance, which the verdict does not take for a hotspot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from keybench.design.strategies import BIGTABLE_ROW_BYTES
from keybench.errors import KeybenchError
from keybench.model.params import hot_bound, spread_bound
from keybench.model.shape import NO_SHAPE, KeyShape, size_text

HOTSPOT, HOT_ROW, SPREAD, INCONCLUSIVE = "hotspot", "hot_row", "spread", "inconclusive"
REWRITE_SHARE = 0.1  # enough rewrites to judge their lifetime: one write in ten
REWRITE_LIFETIME = 0.25  # two writes at random times in a stream are a third of it apart
VERDICTS = (HOTSPOT, HOT_ROW, SPREAD, INCONCLUSIVE)


def check_verdicts(verdicts, option: str = "--fail-on-verdict") -> None:
    """Refuse, in one line, a verdict name that is none of VERDICTS."""
    unknown = [v for v in verdicts if v not in VERDICTS]
    if unknown:
        raise KeybenchError(f"{option}: unknown verdict {', '.join(map(repr, unknown))}; valid: {', '.join(VERDICTS)}")


@dataclass(frozen=True)
class Verdict:
    verdict: str
    hot_node_share: float
    hot_node_share_se: float  # its standard error
    effective_nodes: float
    hot_row_share: float  # the busiest split unit's share of the writes
    nodes: int
    reason: str  # the figure and the bound that decided it

    def agrees(self, claim: str) -> bool:
        return self.verdict == claim

    def agreement(self, claim: str) -> str:
        """The summary's `agrees`: yes or no against the claim; n/a for a design that claims
        nothing (a user's own)."""
        return "n/a" if not claim else "yes" if self.agrees(claim) else "no"


def standard_error(share: float, measured_writes: int) -> float:
    return math.sqrt(share * (1 - share) / measured_writes) if measured_writes else 1.0


def decide(hot_node_share: float, se: float, hot_unit_share: float, rewrite_share: float, rewrite_lifetime: float,
           nodes: int, measured: bool, shape: KeyShape = NO_SHAPE, row_writes_per_s: float = 0.0,
           key_bytes: float = 0.0) -> tuple[str, str]:
    """(verdict, reason) from the model's shares at N nodes; `se` is hot_node_share's standard error;
    `shape` what the key says past the stream's end, `row_writes_per_s` the busiest row's rate and
    `key_bytes` the mean key's size."""
    hot = hot_bound(nodes)
    closing = ""
    if shape.row_life_s is not None and rewrite_share >= REWRITE_SHARE:
        rate, whose = ((shape.row_rate_per_s, "a row takes the stated") if shape.row_rate_per_s is not None
                       else (row_writes_per_s, "the busiest row takes"))
        size = rate * shape.row_life_s * (shape.payload_bytes + key_bytes)
        figure = (f"{whose} {rate:,.4g} writes/s and holds {size_text(size)} at the end "
                  f"of its {shape.row_life_s:,.0f}-s bucket")
        if size > BIGTABLE_ROW_BYTES:
            return HOT_ROW, f"{figure} > {BIGTABLE_ROW_BYTES // 2**20} MB, the documented row size"
        closing = f"; {figure}"
    elif measured and rewrite_share >= REWRITE_SHARE and rewrite_lifetime >= REWRITE_LIFETIME:
        # (measured: a few writes that happen to hit one row twice are no evidence of a hot row)
        return HOT_ROW, (f"{rewrite_share:.2f} of the writes rewrite a row, and rewritten rows are written over "
                         f"{rewrite_lifetime:.2f} of the stream: the same rows grow without bound")
    if shape.bucket_prefixes is not None and shape.bucket_prefixes <= nodes / 2:
        return HOTSPOT, (f"new keys start under {shape.bucket_prefixes} prefix(es) only ({shape.bucket_prefix}): "
                         f"each takes 1/{shape.bucket_prefixes} >= {hot:.3f} (2/N) of the writes at its end of the "
                         f"key space{closing}")
    verdict, reason = _by_nodes(hot_node_share, se, hot_unit_share, nodes, measured)
    return verdict, reason + closing


def _by_nodes(hot_node_share: float, se: float, hot_unit_share: float, nodes: int, measured: bool) -> tuple[str, str]:
    spread, hot = spread_bound(nodes), hot_bound(nodes)
    if not measured:
        return INCONCLUSIVE, f"too few writes measured for {nodes} nodes"
    if hot_unit_share > spread:
        return HOT_ROW, f"one split unit takes {hot_unit_share:.3f} of the writes > {spread:.3f} (1.5/N)"
    figure = f"the busiest node takes {hot_node_share:.3f} +/- {se:.3f}"  # ASCII: a CI log may not be UTF-8
    if hot_node_share >= hot and hot_node_share - 2 * se > spread:
        return HOTSPOT, f"{figure} >= {hot:.3f} (2/N, at most 0.9)"
    if hot_node_share <= spread:
        return SPREAD, f"{figure} <= {spread:.3f} (1.5/N)"
    if hot_node_share - 2 * se <= 1 / nodes:
        return SPREAD, f"{figure}: within two standard errors of 1/N = {1 / nodes:.3f}"
    return INCONCLUSIVE, f"{figure}: neither clearly above 1.5/N = {spread:.3f} and at 2/N, nor near 1/N"


def judge(result) -> Verdict:
    """The verdict over a `splitmodel.ModelResult`: its worst key space decides."""
    if not result.spaces:
        return Verdict(INCONCLUSIVE, 0.0, 1.0, 0.0, 0.0, result.nodes, "no writes")
    s = result.summary()
    se = standard_error(s["hot_node_share"], s["measured_writes"])
    verdict, reason = decide(s["hot_node_share"], se, s["hot_unit_share"], s["rewrite_share"], s["rewrite_lifetime"],
                             result.nodes, s["measured"], result.shape, s["row_writes_per_s"],
                             s["mean_key_bytes"])
    return Verdict(verdict, s["hot_node_share"], se, s["effective_nodes"], s["hot_unit_share"], result.nodes, reason)
