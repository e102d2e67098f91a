"""Worker of ``privacy_utility.py``: other libraries' private logistic regressions.

Run by ``benchmarks/privacy_utility.py`` with a separate interpreter that has
diffprivlib (which needs scikit-learn <= 1.7) and/or torch + Opacus; it does not
import sklearn_dpgd. It reads a JSON spec on stdin::

    {"data": "split.npz", "epsilons": [...], "seeds": [...], "delta": 1e-8,
     "methods": ["diffprivlib LogisticRegression", "Opacus DP-SGD"]}

where ``split.npz`` holds ``X_train``, ``X_test`` (preprocessed, unit-norm rows),
``y_train``, ``y_test`` (0/1), and prints one JSON line::

    {"results": {name: {"accuracy": {eps: [acc per seed]},
                        "fit_seconds": [[wall, cpu] per fit]}},
     "notes": [...]}

A method whose library is missing is skipped with a note.
"""

import json
import sys
import time
import warnings

import numpy as np

BATCH_SIZE = 256
EPOCHS = 5
CLIP_NORM = 1.0
LEARNING_RATES = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def diffprivlib_rows(data, epsilons, seeds):
    from diffprivlib.models import LogisticRegression

    X_train, X_test, y_train, y_test = data
    accs, times = {}, []
    for eps in epsilons:
        accs[eps] = []
        for seed in seeds:
            est = LogisticRegression(epsilon=eps, data_norm=1.0, random_state=seed)
            start, start_cpu = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X_train, y_train)
            times.append((time.perf_counter() - start, time.process_time() - start_cpu))
            accs[eps].append(float(est.score(X_test, y_test)))
    return accs, times, "diffprivlib: objective perturbation, pure eps-DP (delta=0)"


def _torch_fit(X, y, lr, seed, epsilon=None, delta=None, accountant="prv"):
    """SGD logistic regression; DP-SGD through Opacus when ``epsilon`` is given."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    Xt = torch.from_numpy(X).float()
    yt = torch.from_numpy(y).float()
    model = torch.nn.Linear(X.shape[1], 1)
    torch.nn.init.zeros_(model.weight)
    torch.nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loader = DataLoader(
        TensorDataset(Xt, yt), batch_size=BATCH_SIZE, shuffle=True, generator=generator
    )
    noise = None
    if epsilon is not None:
        from opacus import PrivacyEngine

        engine = PrivacyEngine(accountant=accountant)
        model, optimizer, loader = engine.make_private_with_epsilon(
            module=model,
            optimizer=optimizer,
            data_loader=loader,
            target_epsilon=epsilon,
            target_delta=delta,
            epochs=EPOCHS,
            max_grad_norm=CLIP_NORM,
            poisson_sampling=True,
            noise_generator=generator,
            # Opacus' bisection stops within an absolute 0.01 below the target,
            # 20% of epsilon = 0.05: ask for 1% of the target instead.
            epsilon_tolerance=0.01 * epsilon,
        )
        noise = optimizer.noise_multiplier
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    for _ in range(EPOCHS):
        for xb, yb in loader:
            if len(xb) == 0:
                continue
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(-1), yb)
            loss.backward()
            optimizer.step()
    return model, noise


def _torch_accuracy(model, X, y):
    import torch

    with torch.no_grad():
        logits = model(torch.from_numpy(X).float()).squeeze(-1).numpy()
    return float(np.mean((logits > 0).astype(np.int64) == y))


def opacus_rows(data, epsilons, seeds, delta):
    import opacus  # noqa: F401  (fail early when missing)
    import torch

    torch.set_num_threads(1)
    X_train, X_test, y_train, y_test = data
    # Learning rate from a non-private run (same batch size, epochs and optimiser)
    # on a validation split of the training data: never on the test set.
    rng = np.random.default_rng(0)
    perm = rng.permutation(X_train.shape[0])
    n_val = X_train.shape[0] // 5
    val, fit = perm[:n_val], perm[n_val:]
    scores = {
        lr: _torch_accuracy(
            _torch_fit(X_train[fit], y_train[fit], lr, seed=0)[0],
            X_train[val],
            y_train[val],
        )
        for lr in LEARNING_RATES
    }
    lr = max(scores, key=scores.get)
    accs, times, noises, accountant = {}, [], {}, "prv"
    for eps in epsilons:
        accs[eps] = []
        for seed in seeds:
            start, start_cpu = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    model, noise = _torch_fit(
                        X_train, y_train, lr, seed, eps, delta, accountant
                    )
                except (ValueError, RuntimeError):
                    # The PRV accountant's numerical domain can fail at extreme
                    # noise; fall back to RDP for the rest of the run.
                    accountant = "rdp"
                    model, noise = _torch_fit(
                        X_train, y_train, lr, seed, eps, delta, accountant
                    )
            times.append((time.perf_counter() - start, time.process_time() - start_cpu))
            noises[eps] = noise
            accs[eps].append(_torch_accuracy(model, X_test, y_test))
    note = (
        f"Opacus {opacus.__version__}: lr={lr:g} (non-private validation run), "
        f"accountant={accountant!r}, noise multipliers "
        + ", ".join(f"eps={e:g}: {z:.3g}" for e, z in noises.items())
    )
    return accs, times, note


def main():
    from threadpoolctl import threadpool_limits

    # One thread, as the fits of privacy_utility.py get.
    threadpool_limits(1)
    spec = json.loads(sys.stdin.read())
    npz = np.load(spec["data"])
    data = (npz["X_train"], npz["X_test"], npz["y_train"], npz["y_test"])
    epsilons, seeds, delta = spec["epsilons"], spec["seeds"], spec["delta"]
    results, notes = {}, []
    runners = {
        "diffprivlib LogisticRegression": lambda: diffprivlib_rows(
            data, epsilons, seeds
        ),
        "Opacus DP-SGD": lambda: opacus_rows(data, epsilons, seeds, delta),
    }
    for name in spec["methods"]:
        try:
            accs, times, note = runners[name]()
        except ImportError as exc:
            notes.append(f"{name} skipped: {exc}")
            continue
        results[name] = {
            "accuracy": {str(e): a for e, a in accs.items()},
            "fit_seconds": times,
        }
        notes.append(note)
    print(json.dumps({"results": results, "notes": notes}))


if __name__ == "__main__":
    main()
