"""
Re-auditing a fitted model from its ledger
==========================================

Every fit records what ran in ``ledger_``: a tuple of
:class:`~sklearn_dpgd.accounting.GaussianSteps` (noise multiplier, sampling rate,
count of identical steps). The ledger is public and is all an auditor needs to
recompute the budget with an accountant of their choice:
:func:`~sklearn_dpgd.accounting.ledger_epsilon` with the exact GDP closed form
(full batch), Rényi DP, or dp-accounting's privacy-loss distributions (PLD).

Here we fit one full-batch and one minibatch model, re-audit both, and draw the
whole privacy curve ``delta(epsilon)`` of the full-batch run from its GDP
parameter.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer

from sklearn_dpgd import DPLogisticRegression
from sklearn_dpgd.accounting import (
    gdp_delta,
    gdp_epsilon,
    gdp_mu_from_noise_multipliers,
    gdp_to_zcdp,
    ledger_epsilon,
    zcdp_epsilon,
)
from sklearn_dpgd.preprocessing import DPStandardScaler

# Fixed seeds make this example reproducible. They also make the noise subtractable
# by anyone who knows them, so they warn; never use one for a release.
warnings.filterwarnings("ignore", message=r".*random_state=.* fixes the noise")

X, y = load_breast_cancer(return_X_y=True)
# Private preprocessing, on its own budget (not part of the ledgers audited below).
X = make_pipeline(
    FunctionTransformer(np.log1p),  # value by value: reads no statistic
    # A DP mean and variance of every column inside one public range, on its own
    # budget (spent once, before the classifiers' budgets below).
    DPStandardScaler(bounds=(0.0, 9.0), epsilon=0.2, delta=1e-8, random_state=0),
    Normalizer(),  # unit-norm rows, row by row
).fit_transform(X)
delta = 1e-5

full = DPLogisticRegression(epsilon=1.0, delta=delta, classes=[0, 1], random_state=0)
full.fit(X, y)
mini = DPLogisticRegression(
    epsilon=1.0,
    delta=delta,
    batch_size=32,
    max_iter=100,
    classes=[0, 1],
    random_state=0,
).fit(X, y)

# %%
# Full batch: the ledger is runs of Gaussian steps. GDP composes them in closed
# form, and the exact conversion gives ``epsilon_`` back. RDP and PLD are upper
# bounds on the same curve: slightly larger.
print("ledger:", full.ledger_)
# Under add/remove-one neighbouring the first entry is the noisy count of the rows
# (the public size, ``public_n_samples_``); the second and the last are the
# utility diagnostics' noisy counts (``utility_diagnostics``: unscaled rows before
# the training steps, predicted classes after them). All are part of the spend.
mu = gdp_mu_from_noise_multipliers(
    np.concatenate([np.full(s.count, s.noise_multiplier) for s in full.ledger_])
)
print(f"mu_ = {full.mu_:.6f}, recomputed mu = {mu:.6f}")
print(f"epsilon_ (reported)  = {full.epsilon_:.6f}")
for accountant in ("gdp", "rdp", "pld"):
    epsilon = ledger_epsilon(full.ledger_, delta, accountant)
    print(f"ledger_epsilon {accountant} = {epsilon:.6f}")
print(f"zCDP conversion      = {zcdp_epsilon(gdp_to_zcdp(mu), delta):.6f}")

# %%
# Minibatch: no closed form. The estimator calibrated to and reported the
# (pessimistic) PLD epsilon, which the ledger reproduces; RDP is a looser, also
# valid, cross-check.
print("ledger:", mini.ledger_)
print(f"epsilon_ (reported)  = {mini.epsilon_:.6f}")
for accountant in ("rdp", "pld"):
    epsilon = ledger_epsilon(mini.ledger_, delta, accountant)
    print(f"ledger_epsilon {accountant} = {epsilon:.6f}")

# %%
# A ``mu``-GDP guarantee is a whole curve of ``(epsilon, delta)`` pairs; the fit
# is one point on it. The zCDP conversion used in the papers is a looser curve
# for the same steps.
eps_grid = np.linspace(0.05, 3.0, 120)
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(
    eps_grid, [gdp_delta(mu, e) for e in eps_grid], label=f"exact GDP, mu={mu:.3f}"
)
rho = gdp_to_zcdp(mu)
d_grid = np.logspace(-12, -0.5, 120)
ax.semilogy(
    [zcdp_epsilon(rho, d) for d in d_grid], d_grid, "--", label="zCDP conversion"
)
ax.plot(
    [full.epsilon_], [delta], "ko", label=f"the fit: ({full.epsilon_:.3f}, {delta:g})"
)
ax.set_xlim(0, 3)
ax.set_ylim(1e-12, 1)
ax.set_xlabel("epsilon")
ax.set_ylabel("delta(epsilon)")
ax.set_title("privacy curve of the full-batch fit, from its ledger")
ax.legend()
fig.tight_layout()
print(f"check: gdp_epsilon(mu, delta) = {gdp_epsilon(mu, delta):.6f}")
