"""Fetchers and loaders for the real tabular benchmark data sets of :mod:`sklearn_dpgd`.

Two binary classification data sets are supported:

- :func:`fetch_adult` / :func:`load_adult`: UCI Adult (Census Income), Kohavi &
  Becker 1996, with its standard train and test splits. :func:`fetch_adult`
  downloads the two files from the UCI repository on first use (checking their
  SHA-256) and stores them where :func:`load_adult` reads them;
- :func:`fetch_bank` / :func:`load_bank`: UCI Bank Marketing (Moro, Cortez & Rita
  2014) in the one-hot encoded version used by Lee & Kifer (KDD 2018). That file is
  not distributed by UCI, so :func:`fetch_bank` cannot download it: it checks the
  SHA-256 of a copy put in place by hand.

The folder is the ``data_home`` argument of each function or, when that is ``None``,
the environment variable ``SKLEARN_DPGD_DATA`` or, if that is unset, scikit-learn's
data home (:func:`sklearn.datasets.get_data_home`, ``~/scikit_learn_data`` unless
``SCIKIT_LEARN_DATA`` says otherwise); see :func:`get_data_home`. It holds the
files ``adult/adult.data.gz``, ``adult/adult.test.gz`` and ``bank/BANK.dat.gz``.

The loaders return raw features. The differential-privacy experiments of Lee & Kifer
(2018) one-hot encode the categorical features, scale every numeric feature to
``[0, 1]``, scale every row to unit L2 norm and use ``delta = 1e-8``; with
scikit-learn this is a :class:`~sklearn.compose.ColumnTransformer` of
:class:`~sklearn.preprocessing.OneHotEncoder` and
:class:`~sklearn.preprocessing.MinMaxScaler` followed by
:class:`~sklearn.preprocessing.Normalizer`. Note that fitting the min-max scaler on
the private data itself is not differentially private; public bounds should be used
when the privacy guarantee must cover the preprocessing too. :func:`private_pipeline`
does so: it returns the whole model, from the raw DataFrame, with every step
private and one total budget.

References
----------
.. [1] R. Kohavi and B. Becker, "Adult" (Census Income) data set, UCI Machine
   Learning Repository, 1996. https://doi.org/10.24432/C5XW20
.. [2] S. Moro, P. Cortez and P. Rita, "A data-driven approach to predict the success
   of bank telemarketing", Decision Support Systems 62:22-31, 2014. Data: UCI Bank
   Marketing, https://doi.org/10.24432/C5K306
.. [3] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
   with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.
   https://doi.org/10.1145/3219819.3220076
"""

from ._base import fetch_adult, fetch_bank, load_adult, load_bank, load_benchmark_split
from ._fetch import get_data_home
from ._recipes import paper_preprocessor, private_pipeline, public_preprocessor

__all__ = [
    "fetch_adult",
    "fetch_bank",
    "get_data_home",
    "load_adult",
    "load_bank",
    "load_benchmark_split",
    "paper_preprocessor",
    "private_pipeline",
    "public_preprocessor",
]

# Pickles and reprs name the public module, as before the subpackage existed.
for _name in __all__:
    globals()[_name].__module__ = __name__
