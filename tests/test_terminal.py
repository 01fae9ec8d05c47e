"""keybench.terminal: what keybench prints cannot drive the terminal it is printed on."""

from __future__ import annotations

from keybench.terminal import visible
from tests.conftest import keybench


def test_control_characters_and_reordering_marks_are_shown_as_escapes():
    assert visible("\x1b]0;title\x07\x1b[2J\x1b[31mred\u202eevil\x9b") == \
        "\\x1b]0;title\\x07\\x1b[2J\\x1b[31mred\\u202eevil\\x9b"


def test_newlines_tabs_and_letters_of_any_script_stay():
    text = "Größe\tサイズ\n→ 注文 ok"
    assert visible(text) == text


def test_a_name_with_an_escape_sequence_reaches_the_terminal_harmless(tmp_path):
    hostile = tmp_path / "\x1b]0;pwned\x07\x1b[2Jschema.sql"
    done = keybench("check", str(hostile), timeout=60)
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]0;pwned\\x07\\x1b[2Jschema.sql: no such file" in done.stderr
