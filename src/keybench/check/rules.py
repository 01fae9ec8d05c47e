"""What the catalogue says of a documented rule or fix, as the check quotes it: a strategy's
provenance (the document's title, section and phrase) and its advice, which states what the
design costs, so the check cites exactly what the side-by-side comparison cites and measures."""

from __future__ import annotations

from functools import cache

from keybench.design import strategies


@cache
def rule_text(strategy_name: str, backend: str = "spanner") -> str:
    """A catalogue strategy's provenance, as `keybench strategies` prints it; a phrase quoted in
    another script or language as its English gloss, with where to read the original (a
    terminal may have no font for it, and it cannot be wrapped at spaces)."""
    source = strategies.catalogue(backend)[strategy_name].source
    if source.cited and source.gloss and not source.phrase.isascii():
        return (f'{source.title}, section "{source.section}": "{source.gloss}" (in English; the document\'s own '
                f"words: keybench strategies {strategy_name})")
    return source.text()


# What each fix the check proposes costs on the read side: the read operations that
# `keybench run` measures against the fixed design (docs: the read operations), in a line.
READ_COSTS = {
    ("spanner", "bit_reversed_sequence"): "keys no longer follow insert order: a read of the newest rows or of an "
                                          "id range is no longer one key range; index a time column for it",
    ("spanner", "uuid4_string"): "keys no longer follow insert order: a read of the newest rows needs an index on a "
                                 "time column; a point read by key is unchanged",
    ("spanner", "swapped_order"): "a read of one value of the new leading column stays one key range; a time-range "
                                  "read across all of them becomes a scan of the table",
    ("spanner", "hash_shard_generated"): "a time-range read becomes one read per shard value, merged by the "
                                         "client; a point read must compute the shard",
    ("spanner", "index_interleaved"): "the index serves reads within one parent row; a time-range read across "
                                      "parents becomes one read per parent",
    ("spanner", "index_sharded"): "a range read through the index becomes one read per shard value",
    ("bigtable", "reversed_id"): "ids in order are no longer neighbours: an id-range read becomes one read per id",
    ("bigtable", "field_promoted"): "a read of one device's time range stays one row range; a time range across "
                                    "all devices becomes a full scan",
    ("bigtable", "salted"): "a time-range read becomes one scan per salt value, merged by the client",
    ("bigtable", "new_row_per_reading"): "reading a device's latest value becomes a prefix scan of its rows, "
                                         "not one row",
}


@cache
def cost_text(strategy_name: str, backend: str = "spanner") -> str:
    """What choosing a fix costs on the read side; else the catalogue strategy's advice."""
    return READ_COSTS.get((backend, strategy_name)) or strategies.catalogue(backend)[strategy_name].advice
