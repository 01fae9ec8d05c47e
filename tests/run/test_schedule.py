"""The stages of a run: a user's own designs (`--strategy-dir`) beside the catalogue, never in
place of one of its strategies."""

from __future__ import annotations

import shutil

import pytest

from keybench.design.strategies import schemas_root
from keybench.errors import FixtureError, KeybenchError
from keybench.run import RunOptions, schedule_stages


@pytest.mark.parametrize("saved_in, left_out", [("googlesql", "postgresql"), ("postgresql", "googlesql")])
def test_a_user_design_runs_beside_the_catalogue_in_the_dialects_it_has(tmp_path, saved_in, left_out):
    mine = tmp_path / "mine"
    shutil.copytree(schemas_root() / "spanner" / "hash_shard", mine / "spanner" / "my_shards")
    (mine / "spanner" / "my_shards" / f"{left_out}.sql").unlink()
    stages = schedule_stages(RunOptions(backends=("spanner",), strategies=("uuid4_string", "my_shards"),
                                        strategy_dirs=(mine,)))
    assert [(s.name, s.dialect) for s in stages] == [
        ("uuid4_string", "googlesql"), ("uuid4_string", "postgresql"), ("my_shards", saved_in)]
    assert stages[-1].directory == (mine / "spanner" / "my_shards").resolve()


def test_a_catalogue_strategy_without_a_dialect_s_fixture_is_a_fixture_error(tmp_path, monkeypatch):
    shutil.copytree(schemas_root(), tmp_path / "schemas")
    (tmp_path / "schemas" / "spanner" / "hash_shard" / "postgresql.sql").unlink()
    monkeypatch.setenv("KEYBENCH_SCHEMAS", str(tmp_path / "schemas"))
    with pytest.raises(FixtureError, match=r"hash_shard/postgresql\.sql: file is missing"):
        schedule_stages(RunOptions(backends=("spanner",), strategies=("uuid4_string",)))


def test_a_user_design_named_like_a_catalogue_strategy_is_refused_in_one_line(tmp_path):
    shutil.copytree(schemas_root() / "spanner" / "hash_shard", tmp_path / "hash_shard")
    with pytest.raises(KeybenchError) as refused:
        schedule_stages(RunOptions(backends=("spanner",), strategy_dirs=(tmp_path / "hash_shard",)))
    assert str(refused.value) == (f"--strategy-dir: spanner:hash_shard is the name of a catalogue strategy; rename the "
                                  f"folder ({(tmp_path / 'hash_shard').resolve()})")


def test_the_catalogue_given_as_a_designs_folder_runs_once(tmp_path):
    """`--schemas schemas` (the catalogue's own folder) adds nothing and refuses nothing."""
    options = RunOptions(backends=("spanner",), strategies=("uuid4_string",), dialects=("googlesql",))
    with_catalogue = schedule_stages(RunOptions(**{**options.__dict__, "strategy_dirs": (schemas_root(),)}))
    assert [(s.label, s.directory) for s in with_catalogue] == [(s.label,
                                                                 s.directory) for s in schedule_stages(options)]


def test_a_user_design_named_but_written_in_a_dialect_left_out_is_refused_in_one_line(tmp_path):
    shutil.copytree(schemas_root() / "spanner" / "hash_shard", tmp_path / "my_shards")
    (tmp_path / "my_shards" / "googlesql.sql").unlink()
    with pytest.raises(KeybenchError) as refused:
        schedule_stages(RunOptions(backends=("spanner",), strategies=("my_shards",), dialects=("googlesql",),
                               strategy_dirs=(tmp_path / "my_shards",)))
    assert str(refused.value) == ("spanner:my_shards has a fixture in postgresql only (postgresql.sql), which "
                                  "--dialects googlesql leaves out")
