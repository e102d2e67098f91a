"""Privacy warnings shown once per process for each message, not once per clone.

Python's ``"default"`` action shows a warning once per code location, remembered in
the module's ``__warningregistry__``; but every change to the warning filters
(``warnings.catch_warnings``, ``filterwarnings``, ``resetwarnings``) invalidates all
those registries. scikit-learn runs every fit of a search or ``cross_validate``
through ``sklearn.utils.parallel._FuncWrapper``, which enters ``catch_warnings`` and
re-installs the caller's filters for each call, so the registry is cleared between
fits and a ``GridSearchCV`` over 6 settings x 3 folds showed the same
``PrivacyLeakWarning`` 19 times (18 fits and the refit). Here a process-wide set of
the messages already shown, kept by the package and not touched by filter changes,
does the de-duplication; the user's filters still decide everything else.
"""

import sys
import threading
import warnings

__all__ = ["warn_once"]

_LOCK = threading.Lock()
_SHOWN = set()
# Actions under which Python itself would show a warning only once (per location,
# module or process); "always", "error" and "ignore" are left to Python.
_ONCE_ACTIONS = frozenset({"default", "module", "once"})


def _action(message, category, module, lineno):
    """The action the current warning filters give this warning (as ``warn`` does)."""
    for action, msg, cat, mod, line in warnings.filters:
        if (
            (msg is None or msg.match(message))
            and issubclass(category, cat)
            and (mod is None or mod.match(module))
            and (line == 0 or line == lineno)
        ):
            return action
    return warnings.defaultaction


def warn_once(message, category, stacklevel=2, *, key=None):
    """Warn like :func:`warnings.warn`, but once per process for each message (or key).

    Parameters
    ----------
    message : str
        The warning text; two warnings are the same if their texts and categories
        are equal.
    category : type of Warning
        Its class, e.g. :class:`~sklearn_dpgd.exceptions.PrivacyLeakWarning`.
    stacklevel : int, default=2
        As in :func:`warnings.warn`, relative to the caller of ``warn_once``.
    key : hashable or None, default=None
        What makes two warnings the same, if not their texts: e.g. the parameter
        value a message is about when the text also quotes a per-fit number.

    Notes
    -----
    Where the filters say ``"always"`` (e.g. under ``pytest.warns`` or
    ``warnings.simplefilter("always")``), ``"error"`` or ``"ignore"``, the warning
    goes to :func:`warnings.warn` unchanged. A separate process (a joblib ``loky``
    worker) has its own set.
    """
    try:
        frame = sys._getframe(stacklevel)
        module, lineno = frame.f_globals.get("__name__", "<string>"), frame.f_lineno
    except ValueError:  # fewer frames than stacklevel: warnings.warn says "sys"
        module, lineno = "sys", 1
    if _action(message, category, module, lineno) in _ONCE_ACTIONS:
        with _LOCK:
            seen = (category, message if key is None else key)
            if seen in _SHOWN:
                return
            _SHOWN.add(seen)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
