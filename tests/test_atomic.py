"""Files written whole or not at all (keybench/atomic.py)."""

from __future__ import annotations

import pytest

from keybench.atomic import write_atomically
from keybench.errors import KeybenchError


def test_a_write_that_fails_is_one_error_and_leaves_nothing(tmp_path):
    (tmp_path / "report").write_text("a file where a folder should be")
    # the write fails, and so does removing its temporary file (not there, under a file): one error
    with pytest.raises(KeybenchError, match="^cannot write .*report/summary.csv: ") as raised:
        write_atomically(tmp_path / "report" / "summary.csv", "a,b\n")
    assert raised.value.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    written = write_atomically(tmp_path / "new" / "summary.csv", b"a,b\n")
    assert written.read_bytes() == b"a,b\n" and sorted(p.name for p in written.parent.iterdir()) == ["summary.csv"]
