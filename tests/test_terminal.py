"""keybench.terminal: what keybench prints cannot drive the terminal it is printed on."""

from __future__ import annotations

from keybench.terminal import Sql, Verbatim, visible, wrapped
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


def test_a_long_line_wraps_under_its_own_indent_and_a_word_longer_than_the_width_stays_whole():
    line = "  assumes CreatedAt = time: a TIMESTAMP named for the write's time " + "x" * 50
    lines = wrapped([line], 40)
    assert " ".join(part.strip() for part in lines) == line.strip()
    assert all(part.startswith("      ") for part in lines[1:]) and "x" * 50 in [p.strip() for p in lines]


def test_a_command_to_copy_is_never_wrapped():
    command = Verbatim("  keybench check " + "a/very/long/path " * 6)
    assert wrapped([command], 40) == [command]


def test_sql_breaks_only_outside_its_quotes_and_reads_the_same():
    statement = Sql("    ALTER TABLE T ADD COLUMN C STRING(MAX) DEFAULT ('a  b; c\\'d  e') OPTIONS "
                    '(description = "x  y") AS (`my  col`);')
    lines = wrapped([statement], 30)
    assert len(lines) > 2 and all(line.startswith("        ") for line in lines[1:])
    assert "('a  b; c\\'d  e')" in "\n".join(lines) and '"x  y"' in "\n".join(lines)
    assert "`my  col`" in "\n".join(lines)
    assert " ".join(line.strip() for line in lines) == statement.strip()
