"""Progress lines of ``verbose`` fits: one per tenth of the work, not one per step."""

import math


class Deciles:
    """Whether a line is due: the first time the fraction done enters each tenth.

    ``verbose=1`` prints about 10 lines a fit (the last at 100%), however many
    steps it takes; ``verbose >= 2`` prints every step (for debugging). Only
    privatised quantities are ever printed.

    Parameters
    ----------
    verbose : int
        The estimator's ``verbose``.
    """

    def __init__(self, verbose):
        self.verbose = int(verbose)
        self._tenth = 0

    def __call__(self, done):
        """``done`` in [0, 1]: True if this step's line should be printed."""
        if self.verbose <= 0:
            return False
        if self.verbose >= 2:
            return True
        tenth = min(10, math.floor(10.0 * float(done) + 1e-9))
        if tenth > self._tenth:
            self._tenth = tenth
            return True
        return False
