"""scikit-learn's estimator checks with short test ids, and their expected failures,
each with its privacy reason."""

from functools import partial

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator

from sklearn_dpgd.schedules import AdaptiveSchedule

# Estimators that refuse every weight (the linear models with solver="snowball" or
# an adaptive schedule; a search of such a model) fail scikit-learn's checks that
# fit with weights by design.
_SAMPLE_WEIGHT_CHECKS = (
    "check_all_zero_sample_weights_error",
    "check_classifiers_one_label_sample_weights",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
    "check_sample_weights_list",
    "check_sample_weights_not_an_array",
    "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series",
    "check_sample_weights_shape",
)
_UNWEIGHTED_REASON = (
    "privacy: sample and class weights are refused with solver='newton', whose "
    "direction's sensitivity is derived for unweighted Hessians, and with "
    "solver='frank_wolfe', whose selections' sensitivities are derived unweighted"
)

# The linear models with solver="gd" or "snowball" (any schedule), the baselines
# and the searches of those weight rows (sklearn_dpgd.linear_model._weights); what
# still fails, and why.
_WEIGHTED_REASONS = {
    "check_all_zero_sample_weights_error": (
        "privacy: refusing all-zero weights would read every row's weight (the "
        "refusal tells a data set from a neighbour with one weighted row); the fit "
        "runs and releases noise, which is private"
    ),
    "check_sample_weight_equivalence_on_dense_data": (
        "privacy: weights up to 4 exceed the public bound max_sample_weight; and a "
        "private fit is random: the public size (a noisy count, or n) and the "
        "noise differ between the weighted and the repeated data"
    ),
    "check_sample_weight_equivalence_on_sparse_data": (
        "privacy: weights up to 4 exceed the public bound max_sample_weight; and a "
        "private fit is random: the public size (a noisy count, or n) and the "
        "noise differ between the weighted and the repeated data"
    ),
}
# Checks that fit with weights above 1 (3 and 10): refused under a lower bound.
_LARGE_WEIGHT_CHECKS = (
    "check_sample_weights_list",
    "check_sample_weights_not_overwritten",
)
_LARGE_WEIGHT_REASON = (
    "privacy: the check's weights (3, 10) exceed max_sample_weight, the public "
    "bound the noise is calibrated to, and are refused with a ValueError"
)
_CLASS_WEIGHT_REASON = (
    "privacy: the check weighs class 0 by 1000 on 50 rows; the noise std scales "
    "with the largest weight, so its bar (87% of predictions class 0) is met only "
    "at large budgets under add/remove (epsilon=100; see the instance with "
    "max_sample_weight=10)"
)


_ADAPTIVE_CLASS_WEIGHT_REASON = (
    "privacy: with a weight of 1000 the adaptive selections' scores move by "
    "1000 C_obj per row, so their noise (scaled to that) drowns the few dozen "
    "rows of the check even at epsilon=100 (the gd instance passes it)"
)


def _weighted(params):
    # The baselines have no solver: their one mechanism takes weights.
    return params.get("solver", "gd") not in ("newton", "frank_wolfe")


def expected_failed_checks(estimator):
    """The ``expected_failed_checks`` argument of ``parametrize_with_checks``."""
    params = estimator.get_params()
    if "estimator" in params:
        # A search passes the weights to its candidates' fits: theirs decide.
        params = params["estimator"].get_params()
    if not _weighted(params):
        failed = dict.fromkeys(_SAMPLE_WEIGHT_CHECKS, _UNWEIGHTED_REASON)
        failed["check_class_weight_classifiers"] = _UNWEIGHTED_REASON
        return failed
    failed = dict(_WEIGHTED_REASONS)
    if params["max_sample_weight"] < 10:
        failed.update(dict.fromkeys(_LARGE_WEIGHT_CHECKS, _LARGE_WEIGHT_REASON))
    if "class_weight" in params and (
        params["epsilon"] < 100 or params["neighboring"] != "add_remove"
    ):
        failed["check_class_weight_classifiers"] = _CLASS_WEIGHT_REASON
    elif isinstance(params.get("schedule"), AdaptiveSchedule):
        failed["check_class_weight_classifiers"] = _ADAPTIVE_CLASS_WEIGHT_REASON
    return failed


def _check_id(check):
    # scikit-learn's id of a check: its name and the keywords of its partial.
    if not isinstance(check, partial):
        return check.__name__
    name = check.func.__name__
    if not check.keywords:
        return name
    return f"{name}({','.join(f'{k}={v}' for k, v in check.keywords.items())})"


def parametrize_with_checks(estimators, *, expected_failed_checks=None):
    """scikit-learn's ``parametrize_with_checks``, with ids ``Class-check``.

    scikit-learn's ids hold each estimator's whole repr, so a test report (and its
    summary of expected failures) repeated whole pipelines on every line. Here an
    estimator is named by its class, with ``_2``, ``_3``, ... for the second and
    later instances of a class in ``estimators``.
    """
    params, ids, seen = [], [], {}
    for estimator in estimators:
        name = type(estimator).__name__
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}_{seen[name]}"
        failing = expected_failed_checks(estimator) if expected_failed_checks else None
        for param in estimator_checks_generator(
            estimator, legacy=True, expected_failed_checks=failing, mark="xfail"
        ):
            check = getattr(param, "values", param)[1]  # pytest.param or tuple
            params.append(param)
            ids.append(f"{name}-{_check_id(check)}")
    return pytest.mark.parametrize("estimator, check", params, ids=ids)
