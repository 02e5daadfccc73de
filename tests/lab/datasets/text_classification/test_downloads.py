"""DBpedia / Yahoo! Answers: the Zhang et al. archive, checked, then read.

`keras.utils.get_file` is replaced by a function that hands out an archive
built here; its check (size, MD5 of the first MiB) is computed here with
`hashlib`, independently of the package.
"""

import hashlib
import tarfile

import numpy as np
import pytest

from keras_rda.lab.datasets import text_classification
from keras_rda.lab.datasets.text_classification import downloads
from tests.lab.datasets.text_classification.conftest import write_csv

URL = "https://s3.amazonaws.com/fast-ai-nlp/dbpedia_csv.tgz"


def make_archive(tmp_path, padding=0):
    """A dbpedia_csv.tgz like the real one (folder dbpedia_csv/ inside)."""
    inner = tmp_path / "build" / "dbpedia_csv"
    inner.mkdir(parents=True)
    rows = [[str(i % 14 + 1), f"Title {i}", f"entity class{i % 14}"] for i in range(28)]
    write_csv(inner / "train.csv", rows)
    write_csv(inner / "test.csv", rows[:14])
    (inner / "classes.txt").write_text("\n".join(f"c{i}" for i in range(14)))
    # Random bytes make the archive longer than the checked first MiB.
    (inner / "padding.bin").write_bytes(np.random.default_rng(0).bytes(padding))
    archive = tmp_path / "served" / "dbpedia_csv.tgz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(inner, arcname="dbpedia_csv")
    return archive


def serve(monkeypatch, archive, cache):
    """Makes `keras.utils.get_file` copy `archive` into `cache`."""
    import keras

    calls = []

    def fake_get_file(fname=None, origin=None, cache_dir=None, **kwargs):
        calls.append((fname, origin, kwargs.get("extract", False)))
        target = cache / fname
        if not target.exists():
            target.write_bytes(archive.read_bytes())
        return str(target)

    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)
    return calls


def published_check(path):
    data = path.read_bytes()
    return len(data), hashlib.md5(data[: 2**20]).hexdigest()


def test_archive_path_for_dbpedia(tmp_path, monkeypatch):
    archive = make_archive(tmp_path, padding=2**21)
    cache = tmp_path / "cache"
    cache.mkdir()
    calls = serve(monkeypatch, archive, cache)
    checks = {**downloads.ZHANG_ARCHIVES, "dbpedia_csv": published_check(archive)}
    monkeypatch.setattr(downloads, "ZHANG_ARCHIVES", checks)
    data = text_classification("dbpedia")
    assert calls == [("dbpedia_csv.tgz", URL, False)]
    assert data.num_classes == 14 and data.class_names[0] == "c0"
    np.testing.assert_array_equal(data.y_train, [i % 14 for i in range(28)])
    np.testing.assert_array_equal(data.y_test, [i % 14 for i in range(14)])
    assert data.source == f"Zhang et al. (2015) archive {URL}"
    extracted = cache / "dbpedia_csv_extracted" / "dbpedia_csv"
    assert (extracted / "train.csv").is_file()
    # Extracted once: a second load reads the extracted files.
    (extracted / "classes.txt").write_text("\n".join(f"k{i}" for i in range(14)))
    assert text_classification("dbpedia").class_names[0] == "k0"


@pytest.mark.parametrize("change", ["size", "content"])
def test_archive_that_fails_its_check_is_not_extracted(tmp_path, monkeypatch, change):
    archive = make_archive(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    serve(monkeypatch, archive, cache)
    size, md5 = published_check(archive)
    if change == "size":
        size += 1
    else:
        md5 = hashlib.md5(b"another file").hexdigest()
    checks = {**downloads.ZHANG_ARCHIVES, "dbpedia_csv": (size, md5)}
    monkeypatch.setattr(downloads, "ZHANG_ARCHIVES", checks)
    with pytest.raises(ValueError, match="is not the dbpedia_csv archive"):
        text_classification("dbpedia")
    assert not (cache / "dbpedia_csv_extracted").exists()
