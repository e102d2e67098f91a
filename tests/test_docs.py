"""Every Python block of the README and of the user guide runs as written.

The blocks of one page run top to bottom in one fresh Python process, as a reader
would paste them, with the data home pointing at the real Adult/Bank files
(``tests/conftest.py``). A block that needs a name from an earlier block of another
page, a stale API or an unfitted model fails here. The README and the user-guide
pages (minutes: audits, Dask, searches on Adult) are slow tests, run by
``.ci/run``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "doc"
USER_GUIDE_PAGES = sorted(
    [
        DOC / "index.rst",
        DOC / "getting_started.rst",
        DOC / "privacy.rst",
        *(DOC / "user_guide").glob("*.rst"),
        *(DOC / "user_guide").glob("*.md"),
    ]
)
_RST_BLOCK = re.compile(
    r"^(?P<indent>[ ]*)\.\. code-block:: python[ ]*\n(?:(?P=indent)[ ]+:.*\n)*\n"
    r"(?P<body>(?:(?:(?P=indent)[ ]+.*)?\n)+)",
    re.MULTILINE,
)
_MD_BLOCK = re.compile(r"^```python[ ]*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(path):
    """The Python code blocks of a Markdown or reStructuredText page, in order."""
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix == ".md":
        return [m["body"] for m in _MD_BLOCK.finditer(text)]
    blocks = []
    for m in _RST_BLOCK.finditer(text):
        lines = m["body"].rstrip("\n").split("\n")
        width = min(len(s) - len(s.lstrip()) for s in lines if s.strip())
        blocks.append("\n".join(s[width:] for s in lines) + "\n")
    return blocks


# The README and Getting Started show normal use: none of their blocks may leak
# (PrivacyLeakWarning as an error), e.g. by cross_val_score or GridSearchCV.
_NO_LEAKS = (
    "import warnings\n"
    "from sklearn_dpgd.exceptions import PrivacyLeakWarning\n"
    'warnings.simplefilter("error", PrivacyLeakWarning)\n'
)


# A block that shows a leak on purpose (the README's ledger of leaks) says so in
# its first line; under _NO_LEAKS it runs with the leak warnings shown, not raised.
_ON_PURPOSE = "# leaks on purpose"


def _leaking_on_purpose(block, prelude):
    if prelude != _NO_LEAKS or not block.startswith(_ON_PURPOSE):
        return block
    return (
        'warnings.simplefilter("default", PrivacyLeakWarning)\n'
        + block
        + 'warnings.simplefilter("error", PrivacyLeakWarning)\n'
    )


def run_page(path, data_home, tmp_path, timeout, prelude=""):
    """Run the page's blocks in one fresh interpreter; fail with its output.

    ``prelude`` runs first (e.g. :data:`_NO_LEAKS`).
    """
    blocks = python_blocks(path)
    script = tmp_path / f"{Path(path).stem}_blocks.py"
    script.write_text(
        prelude + "\n".join(_leaking_on_purpose(b, prelude) for b in blocks),
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        SKLEARN_DPGD_DATA=str(data_home),
        MPLBACKEND="Agg",
        PYTHONWARNINGS="ignore",
    )
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (
        f"{path.relative_to(ROOT)}: its Python blocks fail when run in order:\n"
        f"{proc.stderr[-3000:]}"
    )
    return blocks


def test_block_extraction_reads_both_formats(tmp_path):
    rst = tmp_path / "page.rst"
    rst.write_text(
        "Intro::\n\n    not python\n\n.. code-block:: python\n\n    a = 1\n\n"
        "    b = a + 1\n\nText.\n\n   .. code-block:: python\n      :caption: x\n\n"
        "      c = 3\n"
    )
    md = tmp_path / "page.md"
    md.write_text("```bash\nls\n```\n\n```python\nx = 1\n```\n")
    assert python_blocks(rst) == ["a = 1\n\nb = a + 1\n", "c = 3\n"]
    assert python_blocks(md) == ["x = 1\n"]


@pytest.mark.slow  # the Adult pipeline and searches, as the user-guide pages
def test_readme_blocks_run_in_order(data_home, tmp_path):
    blocks = run_page(
        ROOT / "README.md", data_home, tmp_path, timeout=600, prelude=_NO_LEAKS
    )
    assert len(blocks) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("page", USER_GUIDE_PAGES, ids=lambda p: p.name)
def test_user_guide_blocks_run_in_order(page, data_home, tmp_path):
    if not python_blocks(page):
        pytest.skip(f"{page.name} has no Python block")
    prelude = _NO_LEAKS if page.name == "getting_started.rst" else ""
    run_page(page, data_home, tmp_path, timeout=1200, prelude=prelude)


def _gallery_conf(monkeypatch, data_home):
    monkeypatch.setenv("SKLEARN_DPGD_DATA", str(data_home))
    namespace = {"__file__": str(DOC / "conf.py")}
    monkeypatch.chdir(DOC)
    monkeypatch.setattr(sys, "path", list(sys.path))
    exec(
        compile((DOC / "conf.py").read_text(encoding="utf-8"), "conf.py", "exec"),
        namespace,
    )
    return namespace


def test_doc_build_runs_offline_without_the_adult_files(monkeypatch, tmp_path):
    # The README's doc build runs every gallery example; without the Adult files
    # (offline, nothing to download) the examples that read them are not run.
    conf = _gallery_conf(monkeypatch, tmp_path)
    pattern = re.compile(conf["sphinx_gallery_conf"]["filename_pattern"])
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    needs_adult = {
        p.stem
        for p in examples
        if re.search(
            r"load_benchmark_split|fetch_adult|private_pipeline\(\s*\"adult\"",
            p.read_text(encoding="utf-8"),
        )
        and "--adult" not in p.read_text(encoding="utf-8")
    }
    assert needs_adult == set(conf["_NEEDS_ADULT"])
    for path in examples:
        runs = bool(pattern.search(f"/{path.name}"))
        assert runs == (path.stem not in needs_adult), path.name


def test_doc_build_runs_the_adult_examples_when_the_files_are_there(
    monkeypatch, data_home
):
    conf = _gallery_conf(monkeypatch, data_home)
    pattern = re.compile(conf["sphinx_gallery_conf"]["filename_pattern"])
    assert pattern.search("/plot_private_pipeline.py")
