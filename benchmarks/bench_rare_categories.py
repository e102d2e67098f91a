"""Rare categories on Adult: coefficients and accuracy with and without grouping.

``datasets.private_pipeline("adult")`` one-hot encodes the declared categories of
``adult.names``; many countries of origin are held by a few dozen of the 32,561
training rows, and their coefficients are learned from those rows alone under the
same noise as every other coordinate. With
``DPOneHotEncoder(min_frequency=100)`` the categories whose noisy count is below 100
join the ``<feature>_other`` column (Gaussian counts on the preprocessing's
budget). Printed, per setting, over the seeds: the test accuracy; the mean |coef|
and the std over seeds of the rare countries' columns (train count < 100) against
the same for the columns of frequent categories (count >= 1,000); and the output
width. Run: ``python benchmarks/bench_rare_categories.py [n_seeds] [epsilon]``.
"""

import sys
import warnings

import numpy as np

from sklearn_dpgd.datasets import load_benchmark_split, private_pipeline


def _fit(X, y, X_test, y_test, epsilon, seed, min_frequency):
    model = private_pipeline("adult", epsilon=epsilon, random_state=seed)
    if min_frequency is not None:
        model.set_params(dptablevectorizer__min_frequency=min_frequency)
    model.fit(X, y)
    vectorizer = model.pipeline_.named_steps["dptablevectorizer"]
    columns = vectorizer.pipeline_.pipeline_.named_steps["columns"]
    names = list(vectorizer.get_feature_names_out())
    coef = model.pipeline_.named_steps["dplogisticregression"].coef_.ravel()
    sigma = columns.named_transformers_["categorical"].noise_std_
    return model.score(X_test, y_test), dict(zip(names, coef, strict=True)), sigma


def main(n_seeds=3, epsilon=1.0):
    X, X_test, y, y_test = load_benchmark_split("adult")
    counts = {
        f"{c}_{v}": int(n)
        for c in X.select_dtypes("category")
        for v, n in X[c].value_counts().items()
    }
    rare = {k for k, n in counts.items() if n < 100 and "native-country" in k}
    common = {k for k, n in counts.items() if n >= 1000}
    print(
        f"Adult, epsilon={epsilon:g}, {n_seeds} seeds; {len(rare)} countries with "
        f"< 100 training rows, {len(common)} categories with >= 1,000"
    )
    print(
        f"{'setting':>22} | {'accuracy':>14} | {'rare |coef|':>11} | "
        f"{'rare std':>8} | {'common |coef|':>13} | {'common std':>10} | width"
    )
    for min_frequency in (None, 300, 1000):
        label = "declared (today)"
        if min_frequency is not None:
            label = f"min_frequency={min_frequency}"
        accs, coefs, widths = [], [], []
        for seed in range(n_seeds):
            acc, coef, sigma = _fit(X, y, X_test, y_test, epsilon, seed, min_frequency)
            accs.append(acc)
            coefs.append(coef)
            widths.append(len(coef))
        stats = {}
        for name, group in (("rare", sorted(rare)), ("common", sorted(common))):
            # The coefficient a row of the category gets: its own column's, or
            # its feature's "other" column's once grouped.
            cols = np.array(
                [
                    [c.get(k, c[k.rsplit("_", 1)[0] + "_other"]) for k in group]
                    for c in coefs
                ]
            )
            stats[name] = (
                float(np.mean(np.abs(cols))),
                float(np.mean(np.std(cols, axis=0))),
            )
        print(
            f"{label:>22} | {np.mean(accs):>7.4f}+-{np.std(accs):.3f} | "
            f"{stats['rare'][0]:>11.3f} | {stats['rare'][1]:>8.3f} | "
            f"{stats['common'][0]:>13.3f} | {stats['common'][1]:>10.3f} | "
            f"{np.mean(widths):.0f} (count noise std {sigma:.0f})"
        )


if __name__ == "__main__":
    warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")
    args = sys.argv[1:]
    main(int(args[0]) if args else 3, float(args[1]) if len(args) > 1 else 1.0)
