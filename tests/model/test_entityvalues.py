"""An entity-only key part's values, remembered across blocks (model/entityvalues.py)."""

import pytest

from keybench.design import strategies
from keybench.model import entityvalues
from keybench.model.keycolumns import encode_events, make_events, per_event_keys


@pytest.mark.parametrize("memo_size", [1 << 22, 150])  # every entity remembered; some past the memo
@pytest.mark.parametrize("name", ["tenant_prefix", "table_per_tenant", "reverse_domain", "forward_domain",
                                  "field_promoted"])
def test_entity_parts_remembered_across_blocks_are_the_per_event_keys(monkeypatch, name, memo_size):
    """The second block meets the entities the first remembered and new ones (population 300,
    500 events a block); with a memo of 150 entities, a block past it is computed whole."""
    monkeypatch.setattr(entityvalues, "ENTITY_MEMO_SIZE", memo_size)
    strategy = strategies.catalogue("bigtable")[name]
    for first, population in ((0, 120), (500, 300), (1000, 300)):
        events = make_events(500, population=population, seed=5, rate_per_s=1000, first=first)
        [(keys, lengths, _)] = encode_events(strategy, events, seed=5).values()
        [slow] = per_event_keys(strategy, events, seed=5).values()
        assert [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)] == slow
