"""The memo of modelled spaces gives what the model gives: the same writes under another
space's name take the figures modelled before, other writes or parameters are modelled anew,
and it keeps the most recently used."""

from __future__ import annotations

import dataclasses

from keybench.design import strategies
from keybench.design.byteorder import TABLE_SPACE
from keybench.model.keystream import KeyStream
from keybench.model.memo import SpaceMemo
from keybench.model.simulate import simulate_stream
from keybench.model.splitmodel import SplitParams, model_stream
from keybench.model.verdict import judge

NODES = 8


def test_a_space_whose_stream_was_modelled_before_takes_its_figures_from_the_memo():
    """The memo gives what the model gives: the same writes under another space's name (a
    table of the same key shape) are not modelled again, other writes are."""
    catalogue = strategies.catalogue("spanner", "googlesql")
    uuid_stream = simulate_stream(catalogue["uuid4_string"], 3000, reads_per_operation=5)
    memo = SpaceMemo()
    first = model_stream(uuid_stream, SplitParams(nodes=NODES), memo=memo)
    assert memo.hits == 0
    renamed = KeyStream()
    times, keys, lengths = uuid_stream.writes(TABLE_SPACE)
    renamed.add_writes("ByEmail", times, keys, lengths, uuid_stream.unit_lengths(TABLE_SPACE))
    for t, _, intervals, op in uuid_stream.reads(TABLE_SPACE, with_operation=True):
        renamed.add_read(t, intervals, "ByEmail", op)
    again = model_stream(renamed, SplitParams(nodes=NODES), memo=memo)
    assert memo.hits == 1
    assert again.spaces["ByEmail"] == dataclasses.replace(first.spaces[TABLE_SPACE], space="ByEmail")
    assert again.spaces["ByEmail"] == model_stream(renamed, SplitParams(nodes=NODES)).spaces["ByEmail"]
    other = model_stream(simulate_stream(catalogue["timestamp_first"], 3000), SplitParams(nodes=NODES), memo=memo)
    assert memo.hits == 1 and judge(other).verdict == "hotspot"
    model_stream(uuid_stream, SplitParams(nodes=NODES * 2), memo=memo)  # other parameters: modelled anew
    assert memo.hits == 1


def test_the_memo_keeps_the_most_recently_used():
    metrics = model_stream(simulate_stream(strategies.catalogue("bigtable")["salted"], 500, reads_per_operation=0),
                           SplitParams(nodes=NODES)).spaces[TABLE_SPACE]
    memo = SpaceMemo(capacity=2)
    memo.put(b"a", metrics)
    memo.put(b"b", metrics)
    assert memo.get(b"a") is metrics  # a is now the most recent
    memo.put(b"c", metrics)
    assert memo.get(b"b") is None and memo.get(b"a") is metrics and memo.get(b"c") is metrics
