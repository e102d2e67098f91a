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

__all__ = ["frame_origin", "user_frame", "warn_once"]

_LOCK = threading.Lock()
_SHOWN = set()
# Actions under which Python itself would show a warning only once (per location,
# module or process); "always", "error" and "ignore" are left to Python.
_ONCE_ACTIONS = frozenset({"default", "module", "once"})


# What a frame's module is: the package's own code, Python's standard library, a
# third-party package (installed in site-packages / dist-packages) or the user's
# code (anything else: a script, a notebook cell, the user's own modules).
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}
_ORIGINS = {}


def _origin_of(top):
    if top == "sklearn_dpgd":
        return "own"
    if top in _STDLIB or top.startswith("<frozen"):
        return "stdlib"
    module = sys.modules.get(top)
    path = getattr(module, "__file__", None)
    if path is None:  # a namespace package: where its first portion lies
        path = next(iter(getattr(module, "__path__", ())), None)
    path = str(path or "").replace("\\", "/")
    if "/site-packages/" in path or "/dist-packages/" in path:
        return "third"
    return "user"


def frame_origin(frame):
    """``"own"``, ``"stdlib"``, ``"third"`` or ``"user"``: who wrote this frame's code.

    By the top-level package of the frame's module (``__name__`` in its globals):
    this package, a module of Python's standard library, a package installed in a
    ``site-packages`` (or ``dist-packages``) directory, or else the user's code
    (``__main__``, a notebook cell, the user's own modules). Cached per top-level
    name, so it costs a dictionary lookup per frame.

    Parameters
    ----------
    frame : frame object

    Returns
    -------
    origin : str
    """
    top = frame.f_globals.get("__name__", "").partition(".")[0]
    origin = _ORIGINS.get(top)
    if origin is None:
        origin = _ORIGINS[top] = _origin_of(top)
    return origin


def user_frame(frame):
    """``(frame, depth)`` of the first frame of user code at or above ``frame``.

    ``depth`` counts the frames above ``frame`` (0 for ``frame`` itself); None,
    None when the stack holds no user code (a joblib worker thread or process).
    """
    depth = 0
    while frame is not None:
        if frame_origin(frame) == "user":
            return frame, depth
        frame, depth = frame.f_back, depth + 1
    return None, None


def _running_estimator(frame):
    """The innermost estimator of the package whose code runs at or above a frame."""
    while frame is not None:
        code = frame.f_code
        if code.co_argcount and code.co_varnames[0] == "self":
            owner = frame.f_locals.get("self")
            cls = type(owner)
            if cls.__module__.startswith("sklearn_dpgd.") and hasattr(cls, "fit"):
                return owner
        frame = frame.f_back
    return None


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
    The warning's location is the user's line: the first frame of user code
    (:func:`frame_origin`) at or above ``stacklevel``, so a fit run by
    scikit-learn or joblib points at the user's call, not at their files;
    ``stacklevel`` where the stack holds no user code. The message starts with
    the name of the package's estimator whose code is running (``"DPLogistic
    Regression: ..."``), unless it already does.

    Where the filters say ``"always"`` (e.g. under ``pytest.warns`` or
    ``warnings.simplefilter("always")``), ``"error"`` or ``"ignore"``, the warning
    goes to :func:`warnings.warn` unchanged. A separate process (a joblib ``loky``
    worker) has its own set.
    """
    owner = _running_estimator(sys._getframe(1))
    name = type(owner).__name__
    if owner is not None and not message.startswith(name):
        message = f"{name}: {message}"
    # In a worker thread or process no user code is on the stack: the user's line
    # is where a scikit-learn construct cloned the estimator (check_clone_boundary
    # keeps it on the clone).
    explicit = None if owner is None else vars(owner).get("_boundary_location")
    try:
        frame = sys._getframe(stacklevel)
        user, depth = user_frame(frame)
        if user is not None:
            frame, stacklevel, explicit = user, stacklevel + depth, None
        module, lineno = frame.f_globals.get("__name__", "<string>"), frame.f_lineno
    except ValueError:  # fewer frames than stacklevel: warnings.warn says "sys"
        module, lineno = "sys", 1
    if explicit is not None:
        filename, lineno, module = explicit
    if _action(message, category, module, lineno) in _ONCE_ACTIONS:
        with _LOCK:
            seen = (category, message if key is None else key)
            if seen in _SHOWN:
                return
            _SHOWN.add(seen)
    if explicit is not None:
        warnings.warn_explicit(message, category, filename, lineno, module)
    else:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
