"""Private hyperparameter selection: every fit and every comparison is paid for.

Tuning a private model on private data leaks twice: each candidate fit spends
budget, and choosing the best candidate by its score on private rows is itself a
release. :class:`PrivateGridSearchCV` and :class:`LinearScalingSearch` pay for
both, and report the whole procedure's spend as ``epsilon_``.

**Neighbouring relation.** The estimator's: add/remove one row (the default) or
replace one row.

**The split: independent coins.** Each row goes to the validation part with
probability ``validation_fraction`` and to the train part otherwise, by its own
coin: the ``i``-th uniform of a generator seeded by ``random_state`` alone, never by
the data, so a row's side depends neither on ``n`` nor on the other rows (the
first ``n`` coins are the same for every data set of ``n`` rows or more; a
Bernoulli, or Poisson, partition). Under add/remove, conditionally on the coins
of the other rows, an added row changes exactly one part by exactly that row and
leaves the other part unchanged; the output distribution of ``D`` plus a row is
therefore a mixture, over the new row's coin, of two distributions each of which
differs from the output on ``D`` through one part only. By the joint convexity of
the hockey-stick divergence the search is as private as the worse of its two
sides: parallel composition (McSherry, "Privacy integrated queries", SIGMOD
2009, Thm 4; for ``(epsilon, delta)`` by the same conditioning argument). A
*fixed-size* split would not give this: an added row that lands in the
validation part pushes another row into the train part, which changes both.
Under replace-one the coins are tied to row positions, so the replaced row keeps
its side and again exactly one part changes, by a replacement: the parallel
composition holds under replace-one too, with each part's mechanisms at their
replace-one sensitivity. Mechanisms that read all rows (the size count, the
refit) compose sequentially with both sides. The ledger ``ledger_`` records
each mechanism with the part it read and composes accordingly.

**What is public.** Neither the exact ``n`` nor the sizes of the parts are used
under add/remove: the search resolves one public size ``m`` (the declared
``public_n_samples``; ``n`` itself under replace-one, where it is public; else a
Gaussian count of the rows, sensitivity 1, charged to the search's budget with
:data:`~sklearn_dpgd._public_size.COUNT_SHARE` of its ``mu^2``), and gives the
candidates ``public_n_samples = round((1 - validation_fraction) m)``, the expected
size of the train part, and the refit ``m``, so no candidate pays for a count of
its own. The comparison uses counts of correct predictions, which divide by
nothing.

**The comparison.** Report-noisy-max of the validation accuracy counts (the
exponential mechanism of McSherry & Talwar, FOCS 2007, sampled with the
Gumbel-max trick; Durfee & Rogers, NeurIPS 2019): each count changes by at most
one between neighbours, and under add/remove all counts move in the same
direction (a monotone utility), so Gumbel noise of scale ``1 / epsilon_select``
is ``epsilon_select``-DP (Dwork & Roth 2014, Thm 3.10 and the remark after it;
scale ``2 / epsilon_select`` under replace-one). A regressor's counts are sums
of per-row scores in [0, 1], ``1 - ((p_i - y_i) / (high - low))^2`` with the
prediction and the target clipped to its public ``y_bounds``: the same
sensitivity and monotonicity. Only the chosen index is released, never the noisy
scores.

**Which estimators a search accepts.** The budget is split in closed form among
Gaussian mechanisms (GDP: ``mu^2`` adds up; Dong, Roth & Su 2022, Cor. 3.3), so
every candidate fit must charge the active
:class:`~sklearn_dpgd.accounting.PrivacyLedger` with full-batch
:class:`~sklearn_dpgd.accounting.GaussianSteps` only. An estimator declares this
with a method ``_gdp_ledger_refusal(self)`` that returns None when a fit with its
current parameters does so, and otherwise a short reason. The linear models of
:mod:`sklearn_dpgd.linear_model` are recognised without it: they refuse
``solver="snowball"``, ``"pgd"``, ``"newton"`` and ``"frank_wolfe"`` (accounted by
their own releases), adaptive schedules (a
Rényi privacy filter, recorded as an ``(epsilon, delta)`` record) and
``batch_size`` (Poisson subsampling). Any other estimator is refused. The check
runs on every candidate's parameters before any data is read; after each fit
the search also checks what the fit recorded, and refuses to release anything
if it differs from the plan. ``solver="auto"`` (the default of
:class:`~sklearn_dpgd.DPLogisticRegression`) is run as ``"gd"`` by every candidate
and the refit: the budget split and the default grids are those of gradient
descent, so ``best_estimator_.solver_`` is ``"gd"``.

**Sample weights.** ``fit(X, y, sample_weight=w)`` passes the weights, split
with the rows, to every candidate fit and the refit (to a pipeline's final step),
as scikit-learn's ``GridSearchCV`` routes fit parameters. A weight is part of its
row, so the neighbouring relation and the split argument are unchanged; every
candidate must take weights with one public bound ``max_sample_weight`` (checked,
with the weights, before anything is charged), and each fit scales its own
sensitivity by it, so it records the same Gaussian steps as an unweighted fit and
the budget split holds. The comparison ignores the weights: it counts unweighted
correct predictions on the validation part (scikit-learn's default scorer does
the same without metadata routing), so its sensitivity stays 1.

**Randomness.** One seed (:func:`~sklearn_dpgd._engine._randomness.draw_seed`: 128 bits
of operating-system entropy for ``random_state=None``) is spawned into the seeds
of the split, the count, the comparison, the candidates and the refit. With
``random_state=None`` each candidate and the refit get ``random_state=None`` and
draw fresh entropy themselves; with a fixed ``random_state`` (debugging only;
one :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning` for the whole search)
each gets a ``RandomState`` seeded from its own spawned seed, from which it
draws 128 bits. ``secure_mode=True`` draws the search's noise from
:func:`~sklearn_dpgd._engine._randomness.make_generator`'s secure generator and is
passed on to every fit.

This differs from the random-stopping method of Papernot & Steinke ("Hyperparameter
tuning with Renyi differential privacy", ICLR 2022), which trains each candidate
on all rows and pays a constant factor over one run: here the candidates see only
the train part, so their fits and the comparison are paid by disjoint rows.
"""

from ._grids import default_candidates
from ._search import LinearScalingSearch, PrivateGridSearchCV

__all__ = [
    "LinearScalingSearch",
    "PrivateGridSearchCV",
    "default_candidates",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
