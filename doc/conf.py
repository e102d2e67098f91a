"""Sphinx configuration of the sklearn-dpgd documentation.

Build (warnings are errors)::

    pip install ".[doc]"
    sphinx-build -W -b html doc doc/_build/html
"""

import os
import sys
import tempfile
from pathlib import Path

import sklearn_dpgd
from sklearn_dpgd.datasets import get_data_home

sys.path.insert(0, str(Path(__file__).resolve().parent / "sphinxext"))

# The examples run inside the build; keep Numba's on-disk cache somewhere writable.
os.environ.setdefault(
    "NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "sklearn_dpgd_numba_cache")
)
os.environ.setdefault("MPLBACKEND", "Agg")

project = "sklearn-dpgd"
author = "The sklearn-dpgd developers"
copyright = "2025, The sklearn-dpgd developers"  # noqa: A001
version = release = sklearn_dpgd.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_examples",
    "sphinxext",
    "Thumbs.db",
    ".DS_Store",
    "**.ipynb_checkpoints",
]
default_role = "literal"
root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# Markdown pages (benchmarks, inputs) get anchors for their headings.
myst_heading_anchors = 3

# -- autodoc / autosummary / numpydoc ---------------------------------------
autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
autodoc_typehints = "none"
# numpydoc lists no member tables itself: the class template documents the members.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# Validate while building: a docstring that drifts from its signature fails -W.
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "SS01", "GL08"}
numpydoc_validation_exclude = {
    r"\.__init__$",
    r"\.__repr__$",
    # Dataclass fields are documented in the class's Parameters section.
    r"Schedule\.(decay_rate|period|k|power|kappa|data_norm|theory_learning_rate"
    r"|kind|radius|max_steps)$",
    r"ScheduleContext\.\w+$",
    # Overrides that inherit the docstring of NoiseSchedule (as autodoc shows it).
    r"\.(?!NoiseSchedule\.)\w+Schedule\.(noise_multipliers|horizon|learning_rates|plan)$",
    r"GaussianSteps\.\w+$",
    r"(LedgerEntry|EpsilonDeltaRecord)\.\w+$",
    # Inherited from scikit-learn (metadata routing, get/set_params, score).
    r"\.(set_\w+_request|get_params|set_params|get_metadata_routing|score)$",
}

# Links to the Python, NumPy, SciPy, scikit-learn and Dask docs need their inventories
# from the network; the default build must pass offline with -W, so they are opt-in:
# SKLEARN_DPGD_DOC_INTERSPHINX=1 sphinx-build -W -b html doc doc/_build/html
intersphinx_mapping = {}
if os.environ.get("SKLEARN_DPGD_DOC_INTERSPHINX"):
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "scipy": ("https://docs.scipy.org/doc/scipy/", None),
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "dask": ("https://docs.dask.org/en/stable/", None),
    }

# -- HTML ------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-dpgd {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sg_download_links", "sg_launcher_links"],
}
html_sidebars = {"index": [], "getting_started": []}
html_show_sourcelink = False

# -- matplotlib plot directive (schedule plots in the user guide) -----------
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.0, 3.2)}

# -- sphinx-gallery --------------------------------------------------------


# The examples that read Adult by default run only when its files are in the data
# home ($SKLEARN_DPGD_DATA, else scikit-learn's): offline without them the build
# still works, showing those examples without their output (sphinx-gallery runs
# only the files that match filename_pattern). `python -m sklearn_dpgd --dataset
# adult` downloads them once.
_ADULT_HOME = get_data_home() / "adult"
_HAS_ADULT = all(
    (_ADULT_HOME / name).is_file() for name in ("adult.data.gz", "adult.test.gz")
)
_NEEDS_ADULT = ("plot_private_pipeline",)
if not _HAS_ADULT:
    print(
        f"Adult is not in {_ADULT_HOME}: {', '.join(_NEEDS_ADULT)} shown without "
        "running."
    )

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": (
        r"/plot_" if _HAS_ADULT else rf"/(?!(?:{'|'.join(_NEEDS_ADULT)})\.py)plot_"
    ),
    "ignore_pattern": r"__init__\.py",
    "reset_argv": "dpgd_gallery.reset_argv",
    "reference_url": {"sklearn_dpgd": None},
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sklearn_dpgd",),
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "min_reported_time": 0,
    "plot_gallery": "True",
}

# Shared by the ``.. plot::`` blocks of user_guide/schedules.rst: the calibrated noise
# multipliers of a schedule at one public budget, exactly as the estimator plans them.
plot_pre_code = '''
import numpy as np
from matplotlib import pyplot as plt
from sklearn_dpgd.schedules import ScheduleContext, auto_max_iter

def show_schedule(schedule, epsilons=(0.1, 0.4, 1.6), n_samples=32561, n_features=108):
    """Plot z_t of ``schedule`` at several epsilons (delta=1e-8, Adult's shape)."""
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    for epsilon in epsilons:
        context = ScheduleContext(
            epsilon=epsilon, delta=1e-8, n_samples=n_samples, n_features=n_features,
            n_outputs=1, fit_intercept=True, clip_norm=1.0, sensitivity=1.0,
            alpha=0.0, margin_smoothness=0.25, initial_loss=float(np.log(2)),
        )
        n_steps = schedule.horizon(context) or auto_max_iter(
            epsilon, 1e-8, n_samples, n_features
        )
        z, _ = schedule.plan(n_steps, context)
        ax.plot(np.arange(1, len(z) + 1), z, label=f"epsilon={epsilon:g} (T={len(z)})")
    ax.set_yscale("log")
    ax.set_xlabel("step t")
    ax.set_ylabel("noise multiplier z_t")
    ax.set_title(repr(schedule), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
'''
