"""The evidence benchmarks of issue 42: ``benchmarks/bench_heldback.py`` and the
diffprivlib peer (``benchmarks/_diffprivlib_peer.py``) run and say what they did.

The benchmarks are scripts, not part of the package: the held-back benchmark runs
in a fresh interpreter (it limits the threads before its imports) on two small
tables made here, without diffprivlib (whose interpreter CI does not have).
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _peer_module():
    spec = importlib.util.spec_from_file_location(
        "_diffprivlib_peer", BENCHMARKS / "_diffprivlib_peer.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_diffprivlib_peer_refuses_rows_above_its_data_norm(tmp_path):
    # data_norm=1 is diffprivlib's privacy premise: one row of norm 1.01 must stop
    # the run before any interpreter is started (the path below does not exist).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[7] *= 1.01
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="norm <= 1"):
        _peer_module().run(
            str(tmp_path / "no-python"), X, X, y, y, [1.0], 1, one_thread=True
        )


def _table(seed, n=2500):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "x1": rng.normal(size=n),
            "x2": rng.uniform(0, 10, size=n),
            "colour": rng.choice(["red", "green", "blue"], size=n),
        }
    )
    logit = 2 * X["x1"] + (X["colour"] == "red") - 0.5
    return X.assign(target=(logit + rng.logistic(size=n) > 0).astype(int))


def test_bench_heldback_prints_each_cell_and_its_verdict(tmp_path):
    for seed, name in enumerate(("alpha", "beta")):
        _table(seed).to_csv(tmp_path / f"{name}.csv", index=False)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.pop("SKLEARN_DPGD_DIFFPRIVLIB_PYTHON", None)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), env.get("PYTHONPATH")])
    )
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_heldback.py"), str(tmp_path),
         "--seeds", "2", "--epsilons", "1", "4", "0.4", "--pgd-steps", "20"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "diffprivlib: skipped" in out
    assert "one thread each (2 seeds; load average" in out
    main, forced = out.split('Forced solver="pgd" against "gd"')
    rows = {}
    for line in main.splitlines():
        parts = line.split()
        if parts and parts[0] in ("alpha", "beta") and parts[1] != "train":
            rows[parts[0], float(parts[1])] = parts
    assert set(rows) == {(t, e) for t in ("alpha", "beta") for e in (1.0, 4.0, 0.4)}
    for (_, epsilon), parts in rows.items():
        default, gd, sk = float(parts[2]), float(parts[5]), float(parts[10])
        assert 60 < sk <= 100 and 50 < default <= 100 and 50 < gd <= 100
        verdict = " ".join(parts[16:])
        if epsilon == 0.4:  # outside the target: no verdict
            assert verdict == ""
        else:
            gap = float(parts[8])
            slow = float(parts[13].rstrip("x")) > 1.5
            expected = [m for m, bad in (("acc", gap < -0.3), ("time", slow)) if bad]
            assert verdict == (
                "met" if not expected else "missed: " + "+".join(expected)
            )
    # The forced-"pgd" table: one row per table and epsilon, its accuracy and its
    # difference to "gd" consistent with the two accuracies printed.
    forced_rows = [line.split() for line in forced.splitlines()[2:]]
    forced_rows = [r for r in forced_rows if r and r[0] in ("alpha", "beta")]
    assert len(forced_rows) == 6
    for r in forced_rows:
        gd, pgd, diff = float(r[3]), float(r[6]), float(r[9])
        assert abs((pgd - gd) - diff) < 0.011


def test_bench_heldback_refuses_an_empty_directory(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_heldback.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    assert proc.returncode != 0
    assert "no table (*.csv)" in proc.stderr
