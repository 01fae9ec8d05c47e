"""`keybench check --write-columns FILE`: the key columns the verdicts depend on, written as
the --columns file to edit, each under its reason; passed back, it gives the verdicts it
states; and the output ends with the command to run next."""

from __future__ import annotations

import pytest

from keybench.check.command import check
from keybench.check.inference import read_columns_file
from keybench.check.request import CheckRequest
from keybench.errors import KeybenchError

pytestmark = pytest.mark.emulator

SCHEMA = """
CREATE TABLE Singers (SingerId INT64 NOT NULL, Email STRING(MAX), Status STRING(10)) PRIMARY KEY (SingerId);
CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId STRING(36) NOT NULL) PRIMARY KEY (SingerId, AlbumId),
  INTERLEAVE IN PARENT Singers;
CREATE INDEX SingersByEmail ON Singers(Email);
CREATE TABLE Events (EventId STRING(36) NOT NULL DEFAULT (GENERATE_UUID())) PRIMARY KEY (EventId);
"""


@pytest.fixture
def schema(tmp_path):
    path = tmp_path / "schema.sql"
    path.write_text(SCHEMA)
    return path


def test_the_file_holds_each_column_a_verdict_rests_on_and_states_them_when_passed_back(spanner_emulator, schema,
                                                                                      tmp_path):
    written = tmp_path / "columns.toml"
    report = check(CheckRequest(schema=schema, write_columns=written))
    assert report.lines[-2:] == [f"wrote {written}: 3 key column(s) the verdicts depend on; edit it, then run:",
                                 f"  keybench check {schema} --columns {written}"]
    stated = read_columns_file(written)
    # The unknown root key as its worst case, the guesses as guessed; no fact (EventId's default),
    # and no interleaved child's copy of its root's key (Albums.SingerId is Singers.SingerId's).
    assert {k: d.name for k, d in stated.items()} == {"Singers.SingerId": "sequential", "Singers.Email": "random",
                                                      "Albums.AlbumId": "uuid4"}
    text = written.read_text()
    assert "# unknown: an INT64 with no default or option that tells its values" in text
    assert "# decides: Singers, Albums\nSingers.SingerId" in text
    assert "# assumed from its name: uuid4:" in text

    again = check(CheckRequest(schema=schema, columns=written, write_columns=written))
    body = "\n".join(again.lines)
    assert "table Singers: key (SingerId)\n  verdict: hotspot" in body
    assert "table Albums: key (SingerId, AlbumId)\n  verdict: hotspot" in body
    assert "  interleaved in Singers: its rows are stored with their Singers row, so where they go follows the " \
           "key of Singers" in body
    assert "# as stated: sequential: stated in columns.toml" in written.read_text(), "updated in place"


def test_without_the_option_the_check_ends_with_the_command_that_writes_the_file(spanner_emulator, schema):
    report = check(CheckRequest(schema=schema))
    assert report.lines[-2:] == ["next: 3 key column(s) are unknown or guessed; to state them, run:",
                                 f"  keybench check {schema} --write-columns columns.toml"]


@pytest.mark.parametrize(("request_of", "message"), [
    (lambda s, t: CheckRequest(schema=s, write_columns=s), "the file exists; name a new file, or the --columns file"),
    (lambda s, t: CheckRequest(schema=s, write_columns=t / "no" / "c.toml"), "no folder"),
    (lambda s, t: CheckRequest(bigtable="{device}#{ts}", write_columns=t / "c.toml"), "applies to Spanner DDL only"),
])
def test_a_file_it_must_not_write_is_refused_before_any_work(schema, tmp_path, request_of, message):
    with pytest.raises(KeybenchError, match=message):
        check(request_of(schema, tmp_path))
    assert not (tmp_path / "c.toml").exists()
