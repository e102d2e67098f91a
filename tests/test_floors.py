"""The declared dependency floors hold: code paths that differ between the oldest
supported releases (``pyproject.toml``) and the newest.

``.ci/floors.sh`` runs the whole suite on the floors; these tests reproduce the two
differences on the newest stack, so a regression shows without that run.
"""

import contextvars
import inspect
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from joblib._parallel_backends import ThreadingBackend

from sklearn_dpgd import DPLogisticRegression, _sklearn_compat
from sklearn_dpgd.accounting._joblib import LedgerThreadingBackend

ROOT = Path(__file__).resolve().parents[1]
_PROBE = contextvars.ContextVar("test_floors_probe", default="empty")


def _run_in_new_thread(self, func, callback=None):
    # joblib 1.3/1.4's pool: the task runs in a fresh thread (an empty context).
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("value", func()))
    worker.start()
    worker.join()
    return out["value"]


@pytest.mark.parametrize("method", ["submit", "apply_async"])
def test_threading_backend_carries_the_context_by_submit_and_apply_async(
    monkeypatch, method
):
    # joblib>=1.5 schedules by submit, 1.3 and 1.4 by apply_async: both must run
    # the task in the caller's context, or the worker threads lose the ledgers.
    monkeypatch.setattr(ThreadingBackend, method, _run_in_new_thread, raising=False)
    backend = LedgerThreadingBackend()
    token = _PROBE.set("caller")
    try:
        backend._context = contextvars.copy_context()
    finally:
        _PROBE.reset(token)
    assert getattr(backend, method)(_PROBE.get) == "caller"


def test_sample_weight_check_works_without_allow_all_zero_weights(monkeypatch):
    # scikit-learn 1.6-1.8's _check_sample_weight has no allow_all_zero_weights:
    # a weighted fit must not pass it there.
    real = _sklearn_compat._sklearn_check_sample_weight
    allow = (
        {"allow_all_zero_weights": True} if _sklearn_compat._HAS_ALLOW_ALL_ZERO else {}
    )

    def old_signature(
        sample_weight, X, dtype=None, copy=False, only_non_negative=False
    ):
        # 1.6-1.8 do not refuse all-zero weights.
        return real(sample_weight, X, dtype=dtype, copy=copy, **allow)

    monkeypatch.setattr(_sklearn_compat, "_sklearn_check_sample_weight", old_signature)
    monkeypatch.setattr(_sklearn_compat, "_HAS_ALLOW_ALL_ZERO", False)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    weights = np.full(60, 0.5)
    clf = DPLogisticRegression(classes=[0, 1], max_iter=3)
    clf.fit(X, y, sample_weight=weights)
    assert np.all(np.isfinite(clf.coef_))
    np.testing.assert_array_equal(
        _sklearn_compat._check_sample_weight(np.zeros(4), np.ones((4, 2))), 0.0
    )


def test_no_private_scikit_learn_keyword_outside_the_compat_module():
    # Keywords of scikit-learn's private helpers that older releases lack belong
    # in _sklearn_compat.py, behind a check of the installed signature.
    for path in (ROOT / "sklearn_dpgd").rglob("*.py"):
        if path.name == "_sklearn_compat.py":
            continue
        assert "allow_all_zero_weights" not in path.read_text(encoding="utf-8"), path


def _floors():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1)
    return dict(re.findall(r'^\s*"([A-Za-z0-9_.\-]+)>=([^",;]+)"', deps, re.M))


def test_declared_floors_can_be_installed_together():
    # dp-accounting 0.4.0 and 0.4.1 pin scipy below 1.10 (the scipy floor); the
    # tests use its gaussian_mechanism module and neighboring_relation (0.6).
    floors = _floors()
    assert tuple(map(int, floors["dp-accounting"].split("."))) >= (0, 6)
    assert tuple(map(int, floors["scipy"].split("."))) >= (1, 10)


def test_ci_runs_the_floors():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "floors.sh" in run
    script = (ROOT / ".ci" / "floors.sh").read_text(encoding="utf-8")
    assert "--constraint" in script and "3.10" in script
    assert 'requires-python = ">=3.10"' in (ROOT / "pyproject.toml").read_text()
    assert inspect.signature(_sklearn_compat._check_sample_weight).parameters
