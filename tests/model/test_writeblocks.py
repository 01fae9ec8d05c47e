"""Blocks of writes: taken one at a time, they go to disk a block at a time, and come back
as they were written."""

import tracemalloc

import numpy as np

from keybench.model import writeblocks
from keybench.model.writeblocks import WriteBlocks


def key(i: int) -> bytes:
    return b"%040d" % i + (b"\x00" if i % 3 == 0 else b"")  # some end in NUL: their length says so


def test_writes_taken_one_at_a_time_go_to_disk_a_block_at_a_time_and_leave_the_process(monkeypatch):
    monkeypatch.setattr(writeblocks, "BLOCK_WRITES", 1_000)
    blocks = WriteBlocks()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(20_000):
            blocks.add_one(float(i), key(i), 7)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 400_000, held  # as arrays in memory: about 1 MB; as Python objects: about 2.4 MB
    times, keys, lengths, units = blocks.arrays()
    assert len(blocks) == 20_000 and list(times[:3]) == [0.0, 1.0, 2.0] and set(units) == {7}
    assert [keys[i].ljust(int(lengths[i]), b"\x00") for i in (0, 1, 12_345, 19_999)] == [
        key(0), key(1), key(12_345), key(19_999)]


def test_a_watcher_that_asks_for_the_new_writes_leaves_no_block_behind(monkeypatch):
    monkeypatch.setattr(writeblocks, "BLOCK_WRITES", 100)
    blocks, seen = WriteBlocks(), []
    for i in range(1_050):
        blocks.add_one(float(i), key(i), 41)
        if i % 7 == 0:  # the web UI's model asks every few seconds for what came since it last looked
            seen.extend(blocks.after(len(seen))[0])
    seen.extend(blocks.after(len(seen))[0])
    assert seen == [float(i) for i in range(1_050)]
    assert len(blocks.blocks) == 10  # full blocks only: the 50 asked about are still one at a time
    assert np.array_equal(blocks.arrays()[0], np.arange(1_050, dtype=np.float64))
    assert len(blocks.blocks) == 11  # arrays() keeps its join only for blocks in memory: these are on disk
