"""Non-gradient-descent baselines: output perturbation and phased localization.

Both release a *non-private* solution plus Gaussian noise calibrated to how far that
solution can move when one row changes (its L2 sensitivity). Neither touches the
private gradient oracle: each is a single Gaussian mechanism per data subset, so the
non-private solver reads the data directly here, and only the noisy result leaves
``fit``.

Both clip every row to ``||x_i|| <= data_norm`` (a public parameter, never read from
the data) and append the intercept as one more coordinate fixed at 1, so each
per-example loss is ``L``-Lipschitz in the parameters with

    L = G_K * sqrt(data_norm^2 + fit_intercept)

where ``G_K`` bounds the norm of the loss's derivative in the K margins: 1 for the
binary losses (both are 1-Lipschitz in the margin), ``sqrt(2)`` for the multinomial
logistic loss (``||p - e_y|| <= sqrt(2)``) and ``sqrt(K)`` for the one-vs-rest Huber
hinge with K classes (each of its K margins moves the loss by at most 1).

Under add/remove-one neighbouring the exact number of rows ``n`` is private, so
every divisor, phase size and automatic parameter uses the *public size* ``m``
instead (:mod:`sklearn_dpgd._public_size`): a size the user declares, the exact
``n`` under replace-one, or a noisy count charged to the fit's budget. Every fit
charges the active :class:`~sklearn_dpgd.accounting.PrivacyLedger` before it runs
a private mechanism.

Both take ``sample_weight`` in ``[0, max_sample_weight]``, a public bound
``w_max``: a weighted loss ``w_i l_i`` is ``w_max L``-Lipschitz, so every
sensitivity above is multiplied by ``w_max`` (see each class).

References
----------
Chaudhuri, K., Monteleoni, C., Sarwate, A. D. (2011). Differentially private
empirical risk minimization. JMLR 12, Alg. 1, Cor. 8 and Thm 6.
Lowy, A., Razaviyayn, M. (2021). Output perturbation for differentially private
convex optimization with improved population loss bounds, runtimes and applications
to private adversarial training. arXiv:2102.04704, Alg. 6 (the output-perturbation
baseline of Fay, Magnusson, Sjolund & Johansson, Adaptive hyperparameter selection
for differentially private gradient descent, TMLR 2023, Sec. 5).
Feldman, V., Koren, T., Talwar, K. (2020). Private stochastic convex optimization:
optimal rates in linear time. STOC, Sec. 4 (localization).
Dong, J., Roth, A., Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1),
Cor. 3.3 (composition of Gaussian mechanisms).
"""

from ._localization import PhasedLocalizationClassifier
from ._output_perturbation import OutputPerturbationClassifier

__all__ = ["OutputPerturbationClassifier", "PhasedLocalizationClassifier"]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
