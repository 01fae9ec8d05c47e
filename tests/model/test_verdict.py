"""The verdict from the model's shares (model/verdict.py)."""

from __future__ import annotations

from keybench.model.verdict import HOT_ROW, INCONCLUSIVE, decide


def test_rewrites_make_a_hot_row_only_once_the_writes_are_enough_to_measure():
    # Five writes of a recorded test, three to one row: a share and lifetime of rewrites that a
    # long stream would call a hot row, but too few writes to say anything (keybench record).
    few = decide(1.0, 0.0, 0.6, 0.4, 0.8, 8, False)
    assert few == (INCONCLUSIVE, "too few writes measured for 8 nodes")
    verdict, reason = decide(1.0, 0.0, 0.6, 0.4, 0.8, 8, True)
    assert verdict == HOT_ROW and "0.40 of the writes rewrite a row" in reason
