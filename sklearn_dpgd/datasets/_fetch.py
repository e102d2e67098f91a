"""Where the benchmark data live, and how they are fetched and checked.

The data folder (:func:`get_data_home`), the lookup of a data file with a message
that says how to obtain it, the download of the UCI Adult files [1]_ with the
SHA-256 of the originals, and the SHA-256 check of the Bank Marketing file of Lee
& Kifer [2]_, which cannot be downloaded. The public fetchers and loaders are in
:mod:`sklearn_dpgd.datasets`.

References
----------
.. [1] R. Kohavi and B. Becker, "Adult" (Census Income) data set, UCI Machine
   Learning Repository, 1996. https://doi.org/10.24432/C5XW20
.. [2] J. Lee and D. Kifer, "Concentrated differentially private gradient descent
   with adaptive per-iteration privacy budget", Proc. KDD 2018, 1656-1665.
   https://doi.org/10.1145/3219819.3220076
"""

import gzip
import hashlib
import http.client
import os
import urllib.error
import urllib.request
from pathlib import Path

from sklearn.datasets import get_data_home as _sklearn_data_home

_DATA_HOME_ENV = "SKLEARN_DPGD_DATA"

_ADULT_FILES = {"train": "adult.data.gz", "test": "adult.test.gz"}

# The UCI originals of the Adult files and the SHA-256 of their bytes (adult.data:
# 3,974,305 bytes; adult.test: 2,003,153 bytes, its first line "|1x3 Cross
# validator"). fetch_adult stores them as load_adult reads them: gzip, with the
# header line below first, comment and blank lines dropped.
_UCI_ADULT = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
_ADULT_REMOTE = {
    "train": (
        _UCI_ADULT + "adult.data",
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    ),
    "test": (
        _UCI_ADULT + "adult.test",
        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    ),
}

# SHA-256 of the uncompressed BANK.dat (45,211 rows, 33 columns), the one-hot
# encoded Bank Marketing file of Lee & Kifer (2018). It is not on UCI (which has
# the raw bank-full.csv), so there is no address to download it from.
_BANK_SHA256 = "fe536a257d242b1fb78dd0e753d2c50176ef12a5dd23dfb86402f62127a3b96e"


def get_data_home(data_home=None):
    """Return the folder the data sets are read from (and fetched into).

    Parameters
    ----------
    data_home : str, os.PathLike or None, default=None
        The folder. If None: the environment variable ``SKLEARN_DPGD_DATA`` if set
        and non-empty, else scikit-learn's data home
        (:func:`sklearn.datasets.get_data_home`: ``SCIKIT_LEARN_DATA`` or
        ``~/scikit_learn_data``, created if missing).

    Returns
    -------
    data_home : pathlib.Path
        The folder (``~`` expanded), holding ``adult/`` and ``bank/``.

    Raises
    ------
    TypeError
        If ``data_home`` is neither None, a str nor an os.PathLike.
    """
    if data_home is None:
        data_home = os.environ.get(_DATA_HOME_ENV) or _sklearn_data_home()
    elif not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(
            "data_home must be a str, an os.PathLike or None, got "
            f"{type(data_home).__name__}: {data_home!r}."
        )
    return Path(data_home).expanduser()


def _data_file(data_home, relative_path):
    """Return the path of a data file, checking that it exists.

    Parameters
    ----------
    data_home : str, os.PathLike or None
        Data folder, resolved by :func:`get_data_home`.
    relative_path : str
        Path of the file inside the data folder, e.g. ``"adult/adult.data.gz"``.

    Returns
    -------
    path : pathlib.Path
        Full path of the file.

    Raises
    ------
    TypeError
        If ``data_home`` is neither None, a str nor an os.PathLike.
    FileNotFoundError
        If the file does not exist; the message names the full expected path and
        the fetcher that obtains it.
    """
    path = get_data_home(data_home) / relative_path
    if not path.is_file():
        how = (
            "see sklearn_dpgd.datasets.fetch_bank for where it comes from"
            if relative_path.startswith("bank")
            else "sklearn_dpgd.datasets.fetch_adult downloads it"
        )
        raise FileNotFoundError(
            f"Data file not found: '{path}'. data_home (default: ${_DATA_HOME_ENV}, "
            f"else scikit-learn's data home) must be the folder that contains "
            f"'{relative_path}'; {how}."
        )
    return path


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _download(url):
    """Return the bytes at ``url`` (standard-library urllib, 60 s timeout).

    Raises
    ------
    OSError or http.client.HTTPException
        If the download fails (``urllib.error.URLError``, a timeout and a reset
        connection are OSErrors).
    """
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def _store_adult(raw, path, columns):
    """Write a UCI Adult file in the layout ``load_adult`` reads (atomically).

    ``columns`` are the names of the 14 features; the header adds ``"Y"``.
    """
    lines = [
        line
        for line in raw.decode("ascii").splitlines()
        if line.strip() and not line.startswith("|")
    ]
    header = ", ".join([*columns, "Y"])
    text = "\n".join([header, *lines]) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    with gzip.open(partial, "wt", encoding="ascii", newline="") as f:
        f.write(text)
    os.replace(partial, path)


def fetch_adult_file(data_home, subset, download_if_missing, columns):
    """Make sure ``<data_home>/adult/`` holds the ``subset`` file; return its path.

    Downloads the UCI original (or converts a copy saved by hand next to it),
    checks its SHA-256 and stores it with :func:`_store_adult`; see
    :func:`sklearn_dpgd.datasets.fetch_adult` for the errors raised.
    """
    path = get_data_home(data_home) / "adult" / _ADULT_FILES[subset]
    if not path.is_file():
        url, sha256 = _ADULT_REMOTE[subset]
        raw_path = path.parent / url.rsplit("/", 1)[1]
        where = (
            f"download {url} (SHA-256 {sha256}) by other means and save it as "
            f"'{raw_path}': fetch_adult checks and converts it on its next call"
        )
        if raw_path.is_file():
            raw, origin = raw_path.read_bytes(), f"'{raw_path}'"
        elif not download_if_missing:
            raise FileNotFoundError(
                f"Data file not found: '{path}' and download_if_missing=False. To "
                f"obtain it, {where}."
            )
        else:
            try:
                raw, origin = _download(url), f"The file downloaded from {url}"
            except (OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", None) or exc
                raise FileNotFoundError(
                    f"Data file not found: '{path}', and downloading it from {url} "
                    f"failed ({reason}). Offline, {where}."
                ) from exc
        if _sha256(raw) != sha256:
            raise OSError(
                f"{origin} has SHA-256 {_sha256(raw)}, expected {sha256}: it is not "
                f"the UCI original of {url} (corrupted or changed). Nothing was stored."
            )
        _store_adult(raw, path, columns)
    return path


def check_bank_file(data_home):
    """Check the SHA-256 of ``<data_home>/bank/BANK.dat.gz``; return its path.

    See :func:`sklearn_dpgd.datasets.fetch_bank` for the errors raised.
    """
    path = get_data_home(data_home) / "bank" / "BANK.dat.gz"
    if not path.is_file():
        raise FileNotFoundError(
            f"Data file not found: '{path}'. The one-hot encoded Bank Marketing file "
            "of Lee & Kifer (KDD 2018) is not distributed by the UCI repository, so "
            f"it cannot be downloaded: put a gzip of it (uncompressed SHA-256 "
            f"{_BANK_SHA256}) at that path."
        )
    with gzip.open(path, "rb") as f:
        digest = _sha256(f.read())
    if digest != _BANK_SHA256:
        raise OSError(
            f"'{path}' uncompressed has SHA-256 {digest}, expected {_BANK_SHA256}: "
            "it is not the file of Lee & Kifer (2018)."
        )
    return path
