"""The classification table of the scikit-learn boundary: one line per construct.

Every frame of scikit-learn or another third-party package found on the call stack
between the user's code and a private fit is looked up here (see
:mod:`sklearn_dpgd._boundary`), by the classes of its ``self`` (through the MRO) or
by the module and name of its function. What is not here is *not known to be
private* and warns (default-deny). A new construct is one line of :data:`TABLE`
(and, for a new kind of leak, one message in :data:`MESSAGES`).

The statuses:

``PRIVATE``
    Known-private: runs what it is given and releases nothing from the data
    (``clone``, joblib and ``sklearn.utils.parallel`` plumbing, ``SelectFromModel``
    thresholding a private model's coefficients, ``FixedThresholdClassifier``).
``CONTAINER``
    Known-private once each of its steps passes the step check
    (:func:`~sklearn_dpgd._boundary.privacy_leaks`): ``Pipeline``,
    ``FeatureUnion``, ``ColumnTransformer``.
``TARGET``
    ``TransformedTargetRegressor``: known-private with a row-wise ``func``, no
    inverse check and no ``transformer``; otherwise leaky (kind ``"target"``).
``LEAKY``
    Releases a value computed from the private rows without noise; the message
    names it and what to use instead.
``COMPOSING``
    Fits several private models: each reports one fit's ``epsilon_``, the wrapper
    costs their composition; the message says so, with the per-fit budget.
"""

__all__ = [
    "COMPOSING",
    "CONTAINER",
    "COVERS",
    "DEFAULT_NAMES",
    "LEAKY",
    "MESSAGES",
    "PLUMBING_MODULES",
    "PRIVATE",
    "TABLE",
    "TARGET",
    "UNKNOWN_MESSAGE",
]

PRIVATE = "known-private"
CONTAINER = "container"
TARGET = "target"
LEAKY = "known-leaky"
COMPOSING = "composing"

# Modules (and their submodules) whose every frame is plumbing: they call what they
# are given and read no data themselves.
PLUMBING_MODULES = (
    "joblib",
    "loky",
    "cloudpickle",
    "threadpoolctl",
    "sklearn.utils.parallel",
    "sklearn.utils._param_validation",
    "sklearn.utils._set_output",
    "sklearn.utils._metadata_requests",
    "sklearn.utils._available_if",
    # Input checks, and (scikit-learn < 1.7) the keyword-only deprecation wrapper
    # _deprecate_positional_args.<locals>.inner_f around public functions.
    "sklearn.utils.validation",
    "sklearn.utils.metaestimators",
    # scikit-learn's estimator checks (check_estimator, parametrize_with_checks):
    # a developer's test harness fitting on synthetic data, not a construct of a
    # model on private rows.
    "sklearn.utils.estimator_checks",
    "sklearn.utils._testing",
    # Test runners and notebook kernels: they call the user's code, which calls the
    # fit; they see no rows. Needed where the outermost frame counts as user code
    # (pytest-xdist's workers start from a `python -c` bootstrap, so pytest's own
    # frames would otherwise sit between that "user" frame and the test).
    "_pytest",
    "pytest",
    "pluggy",
    "execnet",
    "xdist",
    "IPython",
    "ipykernel",
)

_VAL = "sklearn.model_selection._validation"
_THRESHOLD = "sklearn.model_selection._classification_threshold"
_RFE = "sklearn.feature_selection._rfe"

# (module, class or function) -> (status, kind). A class matches through the MRO of
# a frame's ``self``; a function (or a closure or generator inside it) by the first
# part of its qualified name. ``kind`` keys MESSAGES.
TABLE = {
    # Plumbing.
    ("sklearn.base", "clone"): (PRIVATE, None),
    ("sklearn.base", "_clone_parametrized"): (PRIVATE, None),
    ("sklearn.base", "_fit_context"): (PRIVATE, None),
    ("sklearn.base", "BaseEstimator"): (PRIVATE, None),
    ("sklearn.base", "TransformerMixin"): (PRIVATE, None),
    ("sklearn.pipeline", "_fit_transform_one"): (PRIVATE, None),
    ("sklearn.pipeline", "_fit_transform_one_with_callbacks"): (PRIVATE, None),
    ("sklearn.pipeline", "_fit_one"): (PRIVATE, None),
    ("sklearn.pipeline", "_transform_one"): (PRIVATE, None),
    ("sklearn.ensemble._base", "_fit_single_estimator"): (PRIVATE, None),
    # Containers: private when their steps are.
    ("sklearn.pipeline", "Pipeline"): (CONTAINER, None),
    ("sklearn.pipeline", "FeatureUnion"): (CONTAINER, None),
    ("sklearn.compose._column_transformer", "ColumnTransformer"): (CONTAINER, None),
    ("sklearn.compose._target", "TransformedTargetRegressor"): (TARGET, "target"),
    # Known-private wrappers: they post-process the private model only.
    ("sklearn.feature_selection._from_model", "SelectFromModel"): (PRIVATE, None),
    (_THRESHOLD, "FixedThresholdClassifier"): (PRIVATE, None),
    # Known-leaky.
    ("sklearn.model_selection._search", "BaseSearchCV"): (LEAKY, "search"),
    (_VAL, "_fit_and_score"): (LEAKY, "cv"),
    (_VAL, "cross_validate"): (LEAKY, "cv"),
    (_VAL, "cross_val_score"): (LEAKY, "cv"),
    (_VAL, "learning_curve"): (LEAKY, "cv"),
    (_VAL, "validation_curve"): (LEAKY, "cv"),
    (_VAL, "permutation_test_score"): (LEAKY, "cv"),
    (_VAL, "_permutation_test_score"): (LEAKY, "cv"),
    (_VAL, "_incremental_fit_estimator"): (LEAKY, "cv"),
    (_VAL, "cross_val_predict"): (LEAKY, "predict"),
    (_VAL, "_fit_and_predict"): (LEAKY, "predict"),
    ("sklearn.calibration", "CalibratedClassifierCV"): (LEAKY, "calibration"),
    ("sklearn.calibration", "_fit_classifier_calibrator_pair"): (LEAKY, "calibration"),
    ("sklearn.ensemble._stacking", "_BaseStacking"): (LEAKY, "stacking"),
    ("sklearn.ensemble._bagging", "BaseBagging"): (LEAKY, "bagging"),
    ("sklearn.ensemble._bagging", "_parallel_build_estimators"): (LEAKY, "bagging"),
    ("sklearn.ensemble._weight_boosting", "BaseWeightBoosting"): (LEAKY, "boosting"),
    (_RFE, "RFECV"): (LEAKY, "rfecv"),
    (_RFE, "_rfe_single_fit"): (LEAKY, "rfecv"),
    ("sklearn.feature_selection._sequential", "SequentialFeatureSelector"): (
        LEAKY,
        "sequential",
    ),
    (_THRESHOLD, "TunedThresholdClassifierCV"): (LEAKY, "tuned"),
    (_THRESHOLD, "_fit_and_score_over_thresholds"): (LEAKY, "tuned"),
    ("sklearn.semi_supervised._self_training", "SelfTrainingClassifier"): (
        LEAKY,
        "self_training",
    ),
    ("sklearn.multiclass", "OutputCodeClassifier"): (LEAKY, "output_code"),
    ("sklearn.linear_model._ransac", "RANSACRegressor"): (LEAKY, "ransac"),
    ("sklearn.impute._iterative", "IterativeImputer"): (LEAKY, "iterative_imputer"),
    # Composing (several private fits; some also read the label set).
    ("sklearn.multiclass", "OneVsRestClassifier"): (COMPOSING, "ovr"),
    ("sklearn.multiclass", "_fit_binary"): (COMPOSING, "ovr"),
    ("sklearn.multiclass", "OneVsOneClassifier"): (COMPOSING, "ovo"),
    ("sklearn.multiclass", "_fit_ovo_binary"): (COMPOSING, "ovo"),
    # A regressor reads no label set (its row before _BaseVoting's in the MRO).
    ("sklearn.ensemble._voting", "VotingRegressor"): (COMPOSING, "voting_regressor"),
    ("sklearn.ensemble._voting", "_BaseVoting"): (COMPOSING, "voting"),
    (_RFE, "RFE"): (COMPOSING, "rfe"),
    ("sklearn.multioutput", "_MultiOutputEstimator"): (COMPOSING, "multioutput"),
    ("sklearn.multioutput", "_fit_estimator"): (COMPOSING, "multioutput"),
    ("sklearn.multioutput", "_BaseChain"): (COMPOSING, "chain"),
}

# The name of a construct recognised by a worker function only (its object is in
# another thread's or process's stack).
DEFAULT_NAMES = {
    "cv": "cross-validation",
    "predict": "cross_val_predict",
    "search": "a hyperparameter search",
    "calibration": "CalibratedClassifierCV",
    "ovr": "OneVsRestClassifier",
    "ovo": "OneVsOneClassifier",
    "bagging": "BaggingClassifier",
    "rfecv": "RFECV",
    "tuned": "TunedThresholdClassifierCV",
    "multioutput": "MultiOutputClassifier/MultiOutputRegressor",
}

# A construct that contains another's leak says it: a search's message covers the
# scores of its cross-validation, stacking's and calibration's cover their
# cross-validated predictions, and so on.
COVERS = {
    "search": {"cv"},
    "stacking": {"predict", "cv"},
    "calibration": {"predict", "cv"},
    "rfecv": {"cv", "rfe"},
    "sequential": {"cv"},
    "tuned": {"cv"},
    "chain": {"predict", "cv"},
    "output_code": {"ovr"},
    "ovo": {"ovr"},
}

_USE_PRIVATE_SEARCH = (
    "Use sklearn_dpgd.model_selection.PrivateGridSearchCV, which pays for the selection"
)
_COMPOSE = (
    "each fit spends its own budget (epsilon={epsilon:g} here), so the wrapper costs "
    "the composition of all its fits{total}, not the epsilon_ one fit reports: open "
    "a PrivacyLedger around it and read ledger.epsilon(delta) for the exact "
    "composed total."
)
MESSAGES = {
    "search": "{name} selects hyperparameters by the scores of its candidates on "
    "held-out private rows: best_params_, best_score_, cv_results_ and the refit's "
    "choice are exact functions of the data, released without noise and not "
    f"covered by any epsilon_. {_USE_PRIVATE_SEARCH}.",
    "cv": "scikit-learn's cross-validation (cross_validate, cross_val_score, "
    "learning_curve, a search's folds) scores each private fit on held-out private "
    "rows: the scores are exact functions of those rows, released without noise "
    "and not covered by epsilon_. Score on a test set you do not release, or "
    "select privately with sklearn_dpgd.model_selection.PrivateGridSearchCV, which "
    "pays for the selection.",
    "predict": "cross_val_predict returns a prediction for every private row from "
    "a model fitted without it: each prediction is a function of its own row, "
    "released without noise and not covered by epsilon_. Predict on data you may "
    "release.",
    "calibration": "{name} fits a sigmoid or isotonic calibrator on predictions for "
    "private rows without noise; the calibrator is not covered by epsilon_. "
    "DPLogisticRegression calibrates privately (calibration='auto', the default).",
    "stacking": "{name} fits its final estimator on cross-validated predictions for "
    "the private rows, and reads the label set, without noise: neither is covered "
    "by epsilon_. Fit the base models privately and combine them with public "
    "weights.",
    "bagging": "{name} fits on bootstrap samples, where a row drawn k times has k "
    "times the influence each fit's noise is calibrated to: no fit's epsilon_ "
    "holds, and the ensemble's cost composes over all fits. Train one private "
    "model on all rows instead.",
    "subsets": "{name} fits one private model per estimator, on subsets of the "
    "rows or features drawn without replacement: " + _COMPOSE,
    "boosting": "{name} reweights the rows by each model's exact training errors "
    "and weighs the models by them: the weights, estimator_errors_ and "
    "estimator_weights_ are functions of every private row, released without "
    "noise and not covered by epsilon_ (and the fits' spends compose). Train one "
    "private model instead.",
    "rfecv": "{name} chooses the number of features by exact held-out scores on "
    "private rows (cv_results_, n_features_): released without noise and not "
    "covered by epsilon_, and its fits' spends compose. Choose the features on "
    "public grounds, or use RFE with a public n_features_to_select inside a "
    "PrivacyLedger.",
    "sequential": "{name} adds or removes features by exact cross-validated scores "
    "on private rows: the chosen support is a function of them, released without "
    "noise and not covered by epsilon_. Choose the features on public grounds.",
    "tuned": "{name} picks the decision threshold that maximises an exact score on "
    "held-out private rows: best_threshold_ and best_score_ are released without "
    "noise and not covered by epsilon_. Fix a public threshold with "
    "FixedThresholdClassifier.",
    "self_training": "{name} labels unlabelled private rows with the model's exact "
    "predictions and refits on them: the pseudo-labels (labeled_iter_, "
    "transduction_) are per-row functions of the private data, released without "
    "noise, and the refits' spends compose. Fit one private model on the labelled "
    "rows.",
    "output_code": "{name} reads the label set from y and fits one private model "
    "per bit of its code book: the label set is released without noise and the "
    "fits' spends compose. Use the estimator's own multiclass support with "
    "classes=[...].",
    "ransac": "{name} sets its residual_threshold to the exact median absolute "
    "deviation of the private y, marks every row as inlier or outlier "
    "(inlier_mask_) by the exact residuals, and fits up to max_trials private "
    "models: the threshold and the mask are functions of the private rows, "
    "released without noise and not covered by epsilon_, and the fits' spends "
    "compose. Fit one private model on all rows (its clipping bounds the "
    "influence of outliers).",
    "iterative_imputer": "{name} fits one private model per column with missing "
    "values in every round and stops on an exact convergence check of the "
    "imputed values: the imputations, the check and n_iter_ are functions of the "
    "private rows, released without noise and not covered by epsilon_, and the "
    "fits' spends compose. Impute with a public constant "
    "(SimpleImputer(strategy='constant', keep_empty_features=True)) or with "
    "sklearn_dpgd.preprocessing.DPSimpleImputer.",
    "target": "{name} fits its transformer (or checks func against inverse_func) "
    "on the private target y: the transformer's statistics (a StandardScaler's "
    "mean and scale of y) are exact functions of y, released without noise and "
    "not covered by epsilon_. Give the regressor public y_bounds, or a public "
    "row-wise func (e.g. np.log1p) with check_inverse=False and no transformer.",
    "ovr": "{name} reads the label set from y and fits one private model per "
    "class: the label set is released without noise, and " + _COMPOSE + " Use the "
    "estimator's own multiclass support with classes=[...] (one fit, one budget).",
    "ovo": "{name} reads the label set from y and fits one private model per pair "
    "of classes: the label set is released without noise, and " + _COMPOSE + " "
    "Use the estimator's own multiclass support with classes=[...].",
    "voting": "{name} reads the label set from y without noise, and " + _COMPOSE + " "
    "Give each estimator classes=[...].",
    "voting_regressor": "{name} fits one private model per estimator: " + _COMPOSE,
    "rfe": "{name} refits the private model once per elimination step: " + _COMPOSE,
    "multioutput": "{name} fits one private model per output column: " + _COMPOSE,
    "chain": "{name} fits one private model per output, each on the previous "
    "outputs: " + _COMPOSE,
}

UNKNOWN_MESSAGE = (
    "{name} ({module}) runs this private fit but is not known to be private: the "
    "package classifies the scikit-learn and third-party constructs it has checked "
    "(the privacy page lists them), and this one may read the private rows without "
    "noise (statistics, scores, a choice made by them) or compose several fits. "
    "Check what it releases; fit the private model yourself and apply the construct "
    "to public data or to the model's outputs, or silence this warning "
    "deliberately with a warnings filter."
)
