"""Expected failures of scikit-learn's estimator checks, each with its privacy reason."""

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
