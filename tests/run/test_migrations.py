"""The migration strategies of "Spanner: Primary key migration strategies": database-generated
keys must never collide with the migrated source's keys, and a wrong sequence configuration must
show up as collisions."""

import shutil

import pytest

from keybench.design import strategies
from keybench.design.hashing import bit_reversed
from keybench.measure.summary import read_summary
from keybench.run import RunOptions, run

DIALECTS = ("googlesql", "postgresql")


def inserts(results, run_id):
    return {(r["strategy"], r["dialect"]): r
            for r in read_summary(results / run_id / "summary.csv") if r["operation"] == "insert"}


def test_both_migrations_generate_no_colliding_key(emulator_hosts, tmp_path):
    # migrate_skip_range's counter starts at 2^31, whose value 2^31 is a source key: only the
    # skip range keeps it from colliding (the next test takes the skip range away).
    options = RunOptions(backends=("spanner",), strategies=("migrate_skip_range", "migrate_start_counter"),
                         users=4, duration_s=2.0, results_dir=tmp_path, run_id="ok")
    assert run(options) == 0
    rows = inserts(tmp_path, "ok")
    for name in ("migrate_skip_range", "migrate_start_counter"):
        for dialect in DIALECTS:
            row = rows[(name, dialect)]
            assert int(row["requests"]) > 0
            print(f"{name}[{dialect}] with the documented setting: collisions {row['collisions']}")
            assert row["collisions"] == "0" and row["emulator_bound"] == "yes"
            # the preloaded source rows are part of what the audit expects back
            assert int(row["stored"]) == int(row["acknowledged"]) > strategies.catalogue(
                "spanner")[name].preload["rows"]


@pytest.fixture
def wrong_schemas(tmp_path, monkeypatch):
    root = tmp_path / "schemas"
    shutil.copytree(strategies.schemas_root(), root)
    monkeypatch.setenv("KEYBENCH_SCHEMAS", str(root))
    return root / "spanner"


def without(path, text: str) -> None:
    """The fixture file with `text` taken out; the test is void if it was not there."""
    before = path.read_text()
    assert text in before, (path, text)
    path.write_text(before.replace(text, ""))


@pytest.mark.parametrize("name, documented_setting", [
    # The same source and counter start (2^31, which reverses to 2^31, a source key) as the
    # shipped fixture, but no skip range: the first generated key is a migrated one.
    ("migrate_skip_range", {"googlesql": "  skip_range_min = 1,\n  skip_range_max = 4294967296,\n",
                            "postgresql": " SKIP RANGE 1 4294967296"}),
    # A counter from 1 reverses to the very keys the source made from its counters 1..1000.
    ("migrate_start_counter", {"googlesql": "ALTER SEQUENCE LogIdSequence SET OPTIONS (start_with_counter = 11000);",
                               "postgresql": " START COUNTER WITH 11000"}),
])
def test_without_the_documented_setting_the_sequence_collides_and_the_run_fails(emulator_hosts, wrong_schemas, tmp_path,
                                                                                name, documented_setting):
    for dialect, text in documented_setting.items():
        without(wrong_schemas / name / f"{dialect}.sql", text)
    options = RunOptions(backends=("spanner",), strategies=(name,), users=2, duration_s=2.0,
                         results_dir=tmp_path / "results", run_id="undocumented")
    assert run(options) == 1
    rows = inserts(tmp_path / "results", "undocumented")
    collided = {dialect: int(rows[(name, dialect)]["collisions"]) for dialect in DIALECTS}
    print(f"{name} without the documented setting: collisions {collided}")
    assert all(count > 0 for count in collided.values()), collided
    assert all(rows[(name, dialect)]["integrity"] == "ok" for dialect in DIALECTS)  # a refused insert loses nothing


def test_a_skip_range_that_misses_the_source_keys_collides_and_fails_the_run(emulator_hosts, wrong_schemas, tmp_path):
    # This source used bit-reversed counters, which lie far above 2^32: skipping 1..2^32
    # protects nothing, and the sequence generates the source's own keys again.
    variant = wrong_schemas / "migrate_skip_range" / "strategy.toml"
    variant.write_text(variant.read_text().replace('keys = "uint32"', 'keys = "bit_reversed_counter"'))
    for dialect, start in (("googlesql", ",\n  start_with_counter = 2147483648"),
                           ("postgresql", " START COUNTER WITH 2147483648")):
        without(wrong_schemas / "migrate_skip_range" / f"{dialect}.sql", start)  # the counter from 1, as the source's
    options = RunOptions(backends=("spanner",), strategies=("migrate_skip_range",), users=2, duration_s=2.0,
                         results_dir=tmp_path / "results", run_id="wrong")
    assert run(options) == 1
    for dialect in DIALECTS:
        row = inserts(tmp_path / "results", "wrong")[("migrate_skip_range", dialect)]
        assert int(row["collisions"]) > 0
        assert row["integrity"] == "ok"  # a refused insert loses nothing


def test_the_sequence_generates_bit_reversed_counters(emulator_hosts, tmp_path):
    from keybench.backends import open_backend
    from keybench.drive.settings import WorkloadSettings
    from keybench.drive.stage import Stage
    from keybench.infra.target import INSTANCE, PROJECT

    strategy = strategies.catalogue("spanner")["bit_reversed_sequence"]
    stage = Stage(strategy, open_backend(strategy, "kb-seq-test", PROJECT, INSTANCE), WorkloadSettings(), seed=1)
    stage.setup()
    try:
        user = stage.new_user()
        for _ in range(64):
            stage.insert(user)
        keys = sorted(k[0] for k, _ in stage.recent)
        assert keys == sorted(bit_reversed(n) for n in range(1, 65))
        assert {k * 4 // 2**63 for k in keys} == {0, 1, 2, 3}  # spread over every quarter of the range
    finally:
        stage.teardown()
