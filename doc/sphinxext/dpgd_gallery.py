"""Helpers of the sphinx-gallery configuration (importable, so Sphinx can pickle it)."""

import tempfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OUT = Path(tempfile.gettempdir()) / "sklearn_dpgd_gallery_out"


def reset_argv(gallery_conf, script_vars):
    """Command-line arguments of each gallery script.

    The scripts of ``examples/`` parse ``--out`` and save their figure there; send
    it to a temporary folder so that the build leaves no file in the source tree
    (the gallery captures the open matplotlib figures itself). The other scripts
    take no arguments.
    """
    src = Path(script_vars["src_file"])
    if (EXAMPLES / src.name).is_file():
        OUT.mkdir(parents=True, exist_ok=True)
        return ["--out", str(OUT / f"{src.stem}.png")]
    return []
