"""Strategy folders saved whole or not at all (design/folders.py)."""

from __future__ import annotations

import pytest

from keybench.design.folders import StrategyDraft, save_strategies
from keybench.errors import KeybenchError


def test_a_save_that_fails_half_way_leaves_no_folder_and_no_partial_one(tmp_path):
    good = StrategyDraft("spanner", "orders", "table Orders", {"strategy.toml": "x = 1\n", "googlesql.sql": "\n"})
    # its second file cannot be written (its folder would be the first file): as a full disk would fail it
    bad = StrategyDraft("spanner", "items", "table Items", {"strategy.toml": "x = 1\n", "strategy.toml/x.sql": "\n"})
    with pytest.raises(KeybenchError, match="^cannot write "):
        save_strategies([good, bad], tmp_path / "saved")
    assert list(tmp_path.iterdir()) == []
    saved = tmp_path / "saved"
    assert save_strategies([good], saved) == [f"saved: table Orders as {saved / 'spanner' / 'orders'}"]
    assert sorted(p.name for p in (tmp_path / "saved" / "spanner" / "orders").iterdir()) == [
        "googlesql.sql", "strategy.toml"]
