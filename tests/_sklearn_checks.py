"""scikit-learn's estimator checks with short test ids, and their expected failures,
each with its privacy reason."""

from functools import partial

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator

# Every estimator takes sample_weight=None in its fit signature and refuses any other
# value (sklearn_dpgd._errors.refuse_sample_weight), so scikit-learn's checks that fit
# with weights fail by design.
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
_SAMPLE_WEIGHT_REASON = (
    "privacy: sample_weight is refused with a ValueError, because a weight above 1 "
    "gives one row more influence than the clipping bound the noise is calibrated to"
)


def expected_failed_checks(estimator):
    """The ``expected_failed_checks`` argument of ``parametrize_with_checks``."""
    return dict.fromkeys(_SAMPLE_WEIGHT_CHECKS, _SAMPLE_WEIGHT_REASON)


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
