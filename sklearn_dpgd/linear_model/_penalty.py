"""The penalty of the private linear classifiers: ``C`` or ``alpha``, and ``l1_ratio``.

The objective is ``mean loss + alpha ((1 - l1_ratio) ||w||^2 / 2 + l1_ratio
||w||_1)`` over the public size ``m`` (intercepts are not penalised). ``C`` is
scikit-learn's ``LogisticRegression`` spelling (1.8+: ``C`` and ``l1_ratio``
replace ``penalty``): ``C sum loss + (1 - l1_ratio) ||w||^2 / 2 + l1_ratio
||w||_1``, divided by ``C m``, is this objective with ``alpha = 1 / (C m)``;
``C=np.inf`` is no penalty. ``alpha`` is the ``SGDClassifier`` spelling. Only one of
them may be set: ``C=None`` (the default) means "use ``alpha``", and ``C`` with an
``alpha`` other than the estimator's default raises a ValueError naming both.

The penalty is public (it reads ``m`` only): its L2 gradient is added without noise
and its L1 part is a proximal step on the privatised iterate
(:func:`sklearn_dpgd._solvers.gd.noisy_gradient_descent`), post-processing that
costs no privacy.
"""

import math

from ..schedules import AdaptiveSchedule, PURSchedule

__all__ = ["check_penalty", "penalty_strength"]


def check_penalty(estimator):
    """Refuse ``C`` with a non-default ``alpha``, and settings without L1 steps.

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier

    Raises
    ------
    ValueError
        If ``C`` and a non-default ``alpha`` are both set; if ``C`` is set with
        ``solver="snowball"`` (its plan is fixed before the public size); if
        ``l1_ratio > 0`` with ``solver="snowball"`` or an adaptive schedule (their
        steps have no proximal step).
    """
    default = estimator._default_alpha
    if estimator.C is not None and estimator.alpha != default:
        raise ValueError(
            f"C={estimator.C!r} and alpha={estimator.alpha!r} are both set: they "
            "are two spellings of one penalty (alpha = 1 / (C * "
            "public_n_samples_)). Set C (scikit-learn's LogisticRegression) or "
            f"alpha (SGDClassifier), and leave the other at its default "
            f"(C=None, alpha={default!r})."
        )
    if estimator.solver == "snowball" and estimator.C is not None:
        raise ValueError(
            "C is not supported by solver='snowball', whose plan is fixed before "
            "the public size is known; set alpha instead."
        )
    if estimator.solver == "frank_wolfe":
        return  # its L1 ball: _frank_wolfe.check_frank_wolfe
    no_prox = estimator.solver not in ("gd", "auto") or isinstance(
        estimator.schedule, AdaptiveSchedule
    )
    if estimator.l1_ratio > 0 and no_prox:
        raise ValueError(
            f"l1_ratio={estimator.l1_ratio!r} needs solver='gd' with a "
            "data-independent schedule: the L1 penalty is applied by proximal "
            "steps, which Snowball-SGD and the adaptive schedules do not take."
        )


def penalty_strength(estimator, schedule, public_size):
    """The penalty's total strength ``alpha`` (before the ``l1_ratio`` split).

    Parameters
    ----------
    estimator : _BaseDPLinearClassifier
    schedule : NoiseSchedule or AdaptiveSchedule
        The resolved schedule.
    public_size : int
        ``m``.

    Returns
    -------
    alpha : float
        ``1 / (C m)`` when ``C`` is set (0 for ``C=np.inf``); else ``alpha``, with
        "auto" ``1 / m`` (scikit-learn's ``C=1``) or 0 for a PURSchedule, which
        picks its analysis (convex or strongly convex) and horizon from it.
    """
    if estimator.C is not None:
        C = float(estimator.C)
        return 0.0 if math.isinf(C) else 1.0 / (C * public_size)
    if estimator.alpha != "auto":
        return float(estimator.alpha)
    if isinstance(schedule, PURSchedule):
        return 0.0
    return 1.0 / public_size
