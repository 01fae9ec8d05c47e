"""Key columns of many events at once (model/keycolumns.py)."""

import numpy as np
import pytest

from keybench.model.keycolumns import distinct_inverse


@pytest.mark.parametrize("values", [
    [3, 1, 3, 7, 1, 0],  # small entities: one pass, no sort
    [5],
    [],
    [10**12, 4, 10**12],  # too sparse for a table of every value: np.unique itself
    [-2, 5, -2],
])
def test_distinct_inverse_is_numpys_unique_with_its_inverse(values):
    values = np.array(values, dtype=np.int64)
    distinct, where = distinct_inverse(values)
    expected, expected_where = np.unique(values, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert where.tolist() == expected_where.tolist()
    assert (distinct[where] == values).all()
