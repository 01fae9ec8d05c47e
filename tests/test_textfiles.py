"""keybench.textfiles: a user's file as an editor or a tool wrote it is read as the text it is;
what is no text, or too large to be a schema, is one line naming the file."""

from __future__ import annotations

import codecs
import os

import pytest

from keybench.errors import KeybenchError
from keybench.textfiles import read_text

TEXT = "CREATE TABLE Bestellungen (Größe INT64) PRIMARY KEY (Größe);\n-- 注文\n"


@pytest.mark.parametrize("encoding, mark", [
    ("utf-8", b""), ("utf-8", codecs.BOM_UTF8), ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
    ("utf-32-le", codecs.BOM_UTF32_LE), ("utf-32-be", codecs.BOM_UTF32_BE),
], ids=["utf-8", "utf-8 with a mark", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_file_is_decoded_by_its_byte_order_mark(tmp_path, encoding, mark):
    path = tmp_path / "schema.sql"
    path.write_bytes(mark + TEXT.encode(encoding))
    assert read_text(path) == TEXT


def test_windows_and_old_mac_line_ends_read_as_newlines(tmp_path):
    path = tmp_path / "schema.sql"
    path.write_bytes(b"CREATE TABLE A (X INT64) PRIMARY KEY (X);\r\n-- one\r-- two\r\n")
    assert read_text(path) == "CREATE TABLE A (X INT64) PRIMARY KEY (X);\n-- one\n-- two\n"


@pytest.mark.parametrize("make, message", [
    (lambda p: p / "missing.sql", "DDL file {p}/missing.sql: no such file"),
    (lambda p: p, "DDL file {p}: is a folder, not a file"),
    (lambda p: _written(p, "latin1.sql", "Größe".encode("latin-1")), "not UTF-8 text (byte 2: b'\\xf6'); save it as"),
    (lambda p: _written(p, "nul.sql", b"CREATE TABLE\x00"), "holds NUL characters, so it is no text file"),
    (lambda p: _written(p, "big.sql", b"-" * 2049), "larger than 0 MiB, too large to be one"),
])
def test_what_is_no_text_file_is_one_line_naming_it(tmp_path, make, message):
    with pytest.raises(KeybenchError) as err:
        read_text(make(tmp_path), "DDL file", limit=2048)
    assert message.format(p=tmp_path) in str(err.value) and "\n" not in str(err.value)


def test_an_endless_file_is_refused_after_the_cap_not_read_whole(tmp_path):
    link = tmp_path / "schema.sql"
    os.symlink("/dev/zero", link)
    with pytest.raises(KeybenchError, match="too large to be one"):
        read_text(link, "DDL file", limit=1 << 20)


def _written(folder, name: str, data: bytes):
    path = folder / name
    path.write_bytes(data)
    return path
