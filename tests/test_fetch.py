"""Data folder, file lookup, download and SHA-256 checks (sklearn_dpgd.datasets._fetch).

Never the network: file:// copies of the UCI originals or a patched opener.
"""

import gzip
import hashlib
import http.client
import urllib.error
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from sklearn_dpgd.datasets import (
    _fetch,
    fetch_adult,
    fetch_bank,
    get_data_home,
    load_adult,
    load_bank,
)

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
ENV = "SKLEARN_DPGD_DATA"

requires_data = pytest.mark.skipif(
    not DATA_DIR.is_dir(),
    reason=f"real data folder not found: {DATA_DIR} (expected ../shared/data "
    "beside the repository)",
)


# --- the data folder and the lookup of a file ---------------------------------------


@pytest.mark.parametrize(
    "loader, relative",
    [
        (lambda home: load_adult(home), "adult/adult.data.gz"),
        (lambda home: load_adult(home, subset="test"), "adult/adult.test.gz"),
        (lambda home: load_bank(home), "bank/BANK.dat.gz"),
    ],
)
def test_missing_file(loader, relative, tmp_path, monkeypatch):
    expected = str(tmp_path / relative)
    with pytest.raises(FileNotFoundError) as excinfo:
        loader(tmp_path)
    assert expected in str(excinfo.value)
    # same through the environment variable
    monkeypatch.setenv(ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError) as excinfo:
        loader(None)
    assert expected in str(excinfo.value)


@pytest.mark.parametrize("env_value", [None, ""])
@pytest.mark.parametrize("loader", [load_adult, load_bank])
def test_no_data_home_falls_back_on_sklearn_data_home(
    loader, env_value, monkeypatch, tmp_path
):
    if env_value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, env_value)
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "skl"))
    assert get_data_home() == tmp_path / "skl"
    with pytest.raises(FileNotFoundError, match=ENV) as excinfo:
        loader()
    assert str(tmp_path / "skl") in str(excinfo.value)


def test_get_data_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "skl"))
    monkeypatch.setenv(ENV, str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert get_data_home(str(tmp_path)) == tmp_path


# --- fetchers (never the network: file:// copies or a patched opener) --------------

UCI_HASHES = {
    "train": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
}


def _uci_original(subset):
    """Rebuild the UCI file from the copy in ../shared/data (header line dropped)."""
    name = {"train": "adult.data.gz", "test": "adult.test.gz"}[subset]
    body = gzip.decompress((DATA_DIR / "adult" / name).read_bytes())
    body = body.split(b"\n", 1)[1]
    prefix = b"|1x3 Cross validator\n" if subset == "test" else b""
    return prefix + body + b"\n"  # UCI's files end with a blank line


def _serve(monkeypatch, tmp_path, contents):
    """Point the fetcher at file:// copies of ``contents`` ({subset: bytes})."""
    remote = {}
    for subset, data in contents.items():
        source = tmp_path / "mirror" / f"adult.{subset}"
        source.parent.mkdir(exist_ok=True)
        source.write_bytes(data)
        remote[subset] = (source.as_uri(), hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(_fetch, "_ADULT_REMOTE", remote)
    return remote


def _no_network(monkeypatch, error=None):
    def refuse(*args, **kwargs):
        raise error or urllib.error.URLError("network is unreachable")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


@requires_data
def test_uci_hashes_match_the_shared_copies():
    # The pinned hashes are those of the UCI originals, which the shared copies are
    # (with a header line instead of the test file's comment line).
    for subset, sha in UCI_HASHES.items():
        assert hashlib.sha256(_uci_original(subset)).hexdigest() == sha
        assert _fetch._ADULT_REMOTE[subset][1] == sha
        assert _fetch._ADULT_REMOTE[subset][0].startswith("https://archive.ics.uci")


@requires_data
# The same code path for both files; the larger one (32,561 rows) in the slow set.
@pytest.mark.parametrize(
    "subset", [pytest.param("train", marks=pytest.mark.slow), "test"]
)
def test_fetch_adult_stores_what_load_adult_reads(subset, tmp_path, monkeypatch):
    remote = _serve(monkeypatch, tmp_path, {subset: _uci_original(subset)})
    assert remote[subset][1] == UCI_HASHES[subset]
    home = tmp_path / "home"
    X, y = fetch_adult(home, subset=subset)
    X_ref, y_ref = load_adult(DATA_DIR, subset=subset)
    pd.testing.assert_frame_equal(X, X_ref)
    pd.testing.assert_series_equal(y, y_ref)
    name = {"train": "adult.data.gz", "test": "adult.test.gz"}[subset]
    stored = gzip.decompress((home / "adult" / name).read_bytes())
    assert stored == gzip.decompress((DATA_DIR / "adult" / name).read_bytes())
    # Second call: read from disk, no download.
    _no_network(monkeypatch)
    X2, _ = fetch_adult(home, subset=subset)
    pd.testing.assert_frame_equal(X2, X_ref)


TINY_UCI = (
    b"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    b"Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n"
    b"52, Self-emp-inc, 287927, HS-grad, 9, Married-civ-spouse, Exec-managerial, "
    b"Wife, White, Female, 15024, 0, 40, ?, >50K\n\n"
)


def test_fetch_adult_from_local_fixture(tmp_path, monkeypatch):
    _serve(monkeypatch, tmp_path, {"train": TINY_UCI})
    monkeypatch.setenv(ENV, str(tmp_path / "home"))
    X, y = fetch_adult()
    assert X.shape == (2, 14) and y.tolist() == [0, 1]
    assert (tmp_path / "home" / "adult" / "adult.data.gz").is_file()
    assert not list((tmp_path / "home" / "adult").glob("*.part"))


def test_fetch_adult_checksum_failure_stores_nothing(tmp_path, monkeypatch):
    remote = _serve(monkeypatch, tmp_path, {"train": TINY_UCI})
    url, _ = remote["train"]
    monkeypatch.setattr(_fetch, "_ADULT_REMOTE", {"train": (url, "0" * 64)})
    with pytest.raises(OSError, match="SHA-256") as excinfo:
        fetch_adult(tmp_path / "home")
    assert "0" * 64 in str(excinfo.value)
    assert not (tmp_path / "home" / "adult" / "adult.data.gz").exists()


@pytest.mark.parametrize(
    "error",
    [
        urllib.error.URLError("network is unreachable"),
        TimeoutError("network is unreachable"),
        ConnectionResetError("network is unreachable"),
        http.client.RemoteDisconnected("network is unreachable"),
    ],
)
def test_fetch_adult_offline_says_where_to_put_the_file(error, tmp_path, monkeypatch):
    _no_network(monkeypatch, error)
    home = tmp_path / "home"
    for kwargs in [{}, {"download_if_missing": False}]:
        with pytest.raises(FileNotFoundError) as excinfo:
            fetch_adult(home, subset="test", **kwargs)
        message = str(excinfo.value)
        assert str(home / "adult" / "adult.test.gz") in message
        assert str(home / "adult" / "adult.test") in message  # where to save it
        assert _fetch._ADULT_REMOTE["test"][0] in message
        assert UCI_HASHES["test"] in message
    assert "network is unreachable" in message or "download_if_missing" in message


def test_fetch_adult_converts_a_uci_file_saved_by_hand(tmp_path, monkeypatch):
    _no_network(monkeypatch)
    sha = hashlib.sha256(TINY_UCI).hexdigest()
    monkeypatch.setattr(_fetch, "_ADULT_REMOTE", {"train": ("x:/adult.data", sha)})
    home = tmp_path / "home"
    (home / "adult").mkdir(parents=True)
    (home / "adult" / "adult.data").write_bytes(TINY_UCI)
    X, y = fetch_adult(home, download_if_missing=False)
    assert X.shape == (2, 14)
    (home / "adult" / "adult.data.gz").unlink()
    (home / "adult" / "adult.data").write_bytes(TINY_UCI + b"1\n")
    with pytest.raises(OSError, match="SHA-256"):
        fetch_adult(home)


def test_fetch_bank_missing_file_message(tmp_path):
    with pytest.raises(FileNotFoundError) as excinfo:
        fetch_bank(tmp_path)
    message = str(excinfo.value)
    assert str(tmp_path / "bank" / "BANK.dat.gz") in message
    assert _fetch._BANK_SHA256 in message and "not distributed by" in message


def test_fetch_bank_checks_the_file(tmp_path):
    (tmp_path / "bank").mkdir()
    with gzip.open(tmp_path / "bank" / "BANK.dat.gz", "wb") as f:
        f.write(b"1 2 0\n3 4 1\n")
    X, _ = load_bank(tmp_path)
    assert X.shape == (2, 2)
    with pytest.raises(OSError, match="Lee & Kifer"):
        fetch_bank(tmp_path)


@requires_data
def test_fetch_bank_real():
    X, y = fetch_bank(DATA_DIR)
    X_ref, y_ref = load_bank(DATA_DIR)
    pd.testing.assert_frame_equal(X, X_ref)
