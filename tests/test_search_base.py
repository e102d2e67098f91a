"""The shared machinery of the private searches: the coin split of the rows."""

import numpy as np

from sklearn_dpgd._search_base import _coin_split


def test_coin_split_is_per_row_and_ignores_n():
    seed = np.random.SeedSequence(7)
    train, val = _coin_split(1001, 0.3, seed)
    side = np.zeros(1001, bool)
    side[val] = True
    assert np.array_equal(np.sort(np.concatenate([train, val])), np.arange(1001))
    for n in (1, 2, 17, 500, 1000):
        tr, va = _coin_split(n, 0.3, seed)
        # The first n rows keep their side whatever the number of rows.
        np.testing.assert_array_equal(va, np.flatnonzero(side[:n]))
        np.testing.assert_array_equal(tr, np.flatnonzero(~side[:n]))
    # A public probability: about 30% of the rows in validation.
    assert abs(val.shape[0] / 1001 - 0.3) < 0.05
