"""joblib's threading backend, carrying the active ledgers into its worker threads.

A fit records into the ledgers active in its *context* (a ``contextvars`` stack:
``with ledger:`` and :func:`~sklearn_dpgd.accounting.recording_only` push onto it).
A new thread starts with an empty context, so the worker threads of joblib's
``"threading"`` backend (``GridSearchCV(n_jobs=2)``, ``ColumnTransformer(n_jobs=2)``,
``FeatureUnion(n_jobs=2)`` and any ``Parallel`` call of a user) would not see a
ledger opened by the caller, nor the scratch ledger of ``recording_only``. While a
ledger or ``recording_only`` is open, joblib's default backend is this one: each
task runs in a copy of the context of the thread that started the ``Parallel`` call
(``configure`` runs there), so a fit in a worker thread records exactly where the
same fit in the caller's thread would. Nested ``Parallel`` calls in a worker get
the same backend, one level deep, as joblib's own threading backend does.

Nothing here reads data.
"""

import contextvars
import functools

from joblib._parallel_backends import SequentialBackend, ThreadingBackend


class LedgerThreadingBackend(ThreadingBackend):
    """joblib's ``"threading"`` backend whose tasks run in the caller's context.

    The context is captured by :meth:`configure`, which joblib calls in the thread
    that starts each ``Parallel`` call, and copied for every task (a context cannot
    be entered by two threads at once).
    """

    def configure(self, n_jobs=1, parallel=None, **backend_kwargs):
        """Capture the calling thread's context, then configure the pool."""
        self._context = contextvars.copy_context()
        return super().configure(n_jobs=n_jobs, parallel=parallel, **backend_kwargs)

    def _in_context(self, func):
        # A Context is a mapping, falsy when empty: test for None, not truth.
        context = getattr(self, "_context", None)
        if context is None:
            context = contextvars.copy_context()
        return functools.partial(context.copy().run, func)

    def submit(self, func, callback=None):
        """Schedule ``func`` to run in a copy of the captured context (joblib>=1.5)."""
        return super().submit(self._in_context(func), callback)

    def apply_async(self, func, callback=None):
        """Schedule ``func`` to run in a copy of the captured context (joblib<1.5).

        joblib 1.3 and 1.4 schedule tasks by ``apply_async`` (``submit`` replaced
        it in 1.5): both carry the context, so every supported joblib does.
        """
        return super().apply_async(self._in_context(func), callback)

    def get_nested_backend(self):
        """The backend of ``Parallel`` calls made inside a task: this one, once."""
        level = getattr(self, "nesting_level", 0) + 1
        if level > 1:
            return SequentialBackend(nesting_level=level), None
        return type(self)(nesting_level=level), None
