"""Key columns of many events at once (model/keycolumns.py)."""

import numpy as np

from keybench.design.events import spanner_timestamp_text as one_text
from keybench.model.keycolumns import spanner_timestamp_text
from keybench.model.textcolumns import join


def _joined(keys, lengths) -> list[bytes]:
    return [k.ljust(int(n), b"\x00") for k, n in zip(keys, lengths, strict=True)]


def test_spanner_timestamp_text_of_many_times_is_cast_as_string():
    rng = np.random.default_rng(11)
    base = 1_790_000_000_000_000
    ts = np.concatenate([base + rng.integers(0, 400 * 86_400_000_000, 3000),  # both offsets, µs fractions
                         base + rng.integers(0, 10**6, 500) * 1000,  # whole milliseconds
                         base + rng.integers(0, 10**6, 500) * 1_000_000])  # whole seconds
    keys, lengths = join(spanner_timestamp_text(ts), len(ts))
    assert [k.decode() for k in _joined(keys, lengths)] == [one_text(int(t)) for t in ts]
    assert len(set(lengths.tolist())) == 3  # no fraction, milliseconds, microseconds
