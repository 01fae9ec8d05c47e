"""keybench check on real public schemas and row keys (tests/check/corpus/, sources in each
file's first line): every verdict written before the first run is met, by default and under
--strict; a refused input is one line; a proposed fix checks out spread.
benchmarks/check_corpus.py runs the same corpus and counts the answers."""

from __future__ import annotations

import pytest

from tests.check.corpus_cases import (
    CORPUS,
    MODES,
    bigtable_keys,
    run_bigtable,
    run_spanner,
    spanner_inputs,
    spanner_path,
)

HOT = ("hotspot", "hot_row")


@pytest.mark.parametrize("name", spanner_inputs())
def test_a_real_spanner_schema_gets_the_verdicts_written_for_it(spanner_emulator, name):
    default = None
    for mode in MODES:
        outcome = default = run_spanner(name, mode, same_as=default)
        assert not outcome.mismatches, f"{name} ({mode}): " + "; ".join(outcome.mismatches)
        bad_fixes = {s: v for s, v in outcome.fixed.items() if v in HOT}
        assert not bad_fixes, f"{name} ({mode}): after the fixes: {bad_fixes}"


@pytest.mark.parametrize("key", bigtable_keys(), ids=lambda k: k["name"])
def test_a_real_bigtable_row_key_gets_the_verdict_written_for_it(key):
    outcome = run_bigtable(key)
    assert not outcome.mismatches, f"{key['name']} {key['template']}: {outcome.mismatches[0]}"
    assert next(iter(outcome.fixed.values())) not in HOT, f"{key['name']}: the fixed key is still hot"


def test_the_corpus_is_as_large_and_as_varied_as_promised_and_says_where_each_input_comes_from():
    inputs = spanner_inputs()
    folders = [n for n in inputs if spanner_path(n).is_dir()]
    assert len(inputs) >= 45 and len(folders) >= 13 and sum(n.startswith("pg_") for n in inputs) >= 10
    assert len(bigtable_keys()) >= 6
    files = [f for f in (CORPUS / "spanner").rglob("*.sql")]
    unsourced = [f.name for f in files if not f.read_text().startswith("-- source: https://github.com/")]
    assert files and not unsourced, f"no source line: {unsourced}"
    assert all(k["source"] and k["quote"] and k["why"] for k in bigtable_keys())
