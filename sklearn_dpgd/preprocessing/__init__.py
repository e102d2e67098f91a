"""Private preprocessing: scalers, an encoder and an imputer that charge the ledger.

Every fitted statistic of scikit-learn's scalers, encoders and imputers (a column's
minimum, mean or variance, the categories present, a fill value) is an exact function
of the private rows: released without noise, it can reveal one person (the largest
capital gain is one row's capital gain; a category seen once is one row's value).
The transformers of this module read the private data only through differentially
private mechanisms, charged to every active
:class:`~sklearn_dpgd.accounting.PrivacyLedger` *before* they read any row, or not at
all when everything they need is declared public:

* :class:`DPMinMaxScaler` clips each column to bounds and maps them to ``[0, 1]``;
  the bounds are declared or estimated by DP quantiles (the exponential mechanism
  over a public candidate range; Smith, STOC 2011);
* :class:`DPStandardScaler` standardizes with a DP mean and variance of the
  columns clipped to declared bounds (the Gaussian mechanism on clipped sums);
* :class:`DPOneHotEncoder` one-hot encodes with declared categories or categories
  selected by a stable histogram with a threshold (Korolova et al., WWW 2009;
  Wilson et al., PoPETs 2020), unknown and rare values going to one ``other``
  column per feature;
* :class:`DPSimpleImputer` fills missing values with a constant or a DP mean;
* :class:`DPTableVectorizer` chooses one of these for every column of a pandas
  DataFrame from its dtype and the declared public schema
  (:func:`schema_from_dtypes` writes the skeleton from the dtypes alone).

Each exposes ``epsilon_``/``delta_`` (what it spent; 0 when it read nothing) and
``ledger_`` (what ran), like the estimators. Row-wise and stateless scikit-learn
transformers need no budget (see the user guide, "Private preprocessing", for the
list of which are safe as they are and which are not).
"""

from ._base import row_wise
from ._encoders import DPOneHotEncoder
from ._histogram import stable_histogram_threshold
from ._imputer import DPSimpleImputer
from ._quantiles import exponential_quantile_log_weights
from ._scalers import DPMinMaxScaler, DPStandardScaler
from ._table import DPTableVectorizer, schema_from_dtypes

__all__ = [
    "DPMinMaxScaler",
    "DPOneHotEncoder",
    "DPSimpleImputer",
    "DPStandardScaler",
    "DPTableVectorizer",
    "exponential_quantile_log_weights",
    "row_wise",
    "schema_from_dtypes",
    "stable_histogram_threshold",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
