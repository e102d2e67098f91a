"""The private solvers: each takes arrays, public numbers and an oracle or the
validated data, and returns a :class:`~sklearn_dpgd._base.FitResult`; none sees an
estimator.

``gd``: (noisy) gradient descent over a data-independent plan; ``adaptive``: the
adaptive strategies of ``_adaptive_drivers.py`` under their Rényi filter; ``snowball``:
Snowball-SGD; ``newton``: the private damped Newton (double noise) of
``solver="newton"``; ``frank_wolfe``: private Frank-Wolfe on the L1 ball of
``solver="frank_wolfe"``; ``outpert`` and ``localization``: the baselines.
"""
