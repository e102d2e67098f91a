"""The private engine under every estimator.

``_oracle``: the only code that reads private data (per-example gradients, clipping,
noise, the ledger's charge before it reads); ``_kernels``: the compiled passes over the
rows (dense and CSR, float32 and float64) with ``_threads`` choosing their thread
count, imported through ``_lazy`` when a fit first needs them (with Numba);
``_twins``: their NumPy twins, which small fits run instead (``_rows`` holds the
two in-memory backends); ``_losses``: the codes and
constants of the scalar losses; ``_dask``: the same clipped sums over Dask
partitions; ``_secure`` and ``_randomness``: seeds, generators and the samplers of
``secure_mode``.
"""
