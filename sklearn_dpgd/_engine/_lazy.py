"""The compiled kernels, imported when a fit first needs them.

Importing :mod:`sklearn_dpgd._engine._kernels` imports Numba (0.7 s) and chooses its
threading layer. A process that fits only small problems runs the NumPy twins
(:mod:`sklearn_dpgd._engine._twins`) and never needs either, so the data backends
that run kernels (:class:`~sklearn_dpgd._engine._oracle.LocalRows`, the Dask
workers' chunk functions) reach them through :func:`kernels` when they are built,
not at import. This is the package's one lazy import; ``tests/test_architecture.py``
counts it as an import of ``_kernels`` for its layer and cycle checks.
"""

import importlib

__all__ = ["kernels"]


def kernels():
    """The module :mod:`sklearn_dpgd._engine._kernels`, imported on first use.

    Returns
    -------
    module : module
        Later calls return the same module object (a lookup in ``sys.modules``).
    """
    return importlib.import_module("sklearn_dpgd._engine._kernels")
