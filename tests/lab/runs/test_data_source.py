"""A run says which data it read: in its first lines and in its record.

The docs' MNIST records read the 5,000-digit copy in `KERAS_RDA_DATA_DIR`;
without it `mnist` downloads the whole set, and a rerun cannot match them.
The file's digest is checked against `hashlib` on the file's own bytes.
"""

import gzip
import hashlib
import json

import numpy as np
import pytest

from keras_rda.lab.cli import main
from keras_rda.lab.datasets.mnist import mnist_source
from keras_rda.lab.tasks import get_task
from tests.lab.cli.conftest import TINY


def _write_mnist_csv(path, num_rows=40):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(num_rows, 784))
    labels = np.arange(num_rows) % 10
    rows = np.concatenate([pixels, labels[:, None]], axis=1)
    with gzip.open(path, "wt") as f:
        f.write("\n".join(",".join(map(str, row)) for row in rows) + "\n")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_local_copy_is_named_with_its_size_and_digest(tmp_path, monkeypatch):
    digest = _write_mnist_csv(tmp_path / "mnist_tiny.csv.gz")
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(tmp_path))
    source = mnist_source()
    assert source["kind"] == "local file"
    assert source["file"] == "mnist_tiny.csv.gz"
    assert source["found_by"] == "KERAS_RDA_DATA_DIR"
    assert source["sha256"] == digest
    assert source["bytes"] == (tmp_path / "mnist_tiny.csv.gz").stat().st_size
    assert digest[:16] in source["description"]
    assert mnist_source(tmp_path / "mnist_tiny.csv.gz")["found_by"] == "path"


def test_without_a_local_copy_the_source_is_the_full_download(tmp_path, monkeypatch):
    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)
    source = mnist_source()
    assert source["kind"] == "download"
    assert "60,000" in source["description"]
    assert "KERAS_RDA_DATA_DIR is not set" in source["description"]
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(tmp_path))  # empty
    assert "no mnist*.csv(.gz) in" in mnist_source()["description"]


def test_a_path_that_is_no_mnist_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match="argument `path`"):
        mnist_source(tmp_path / "missing.csv")


def test_a_synthetic_task_reads_no_data():
    assert get_task("addition").data_source()["kind"] == "generated"


def test_a_run_prints_and_records_the_data_it_read(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    data.mkdir()
    digest = _write_mnist_csv(data / "mnist_tiny.csv.gz")
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(data))
    out = tmp_path / "runs"
    main(["train", "mnist", "--model", "rda", *TINY, "--out", str(out)])
    head = capsys.readouterr().out.splitlines()[:4]
    assert any("data: local file mnist_tiny.csv.gz" in line for line in head), head
    (path,) = out.glob("*.json")
    (run,) = json.loads(path.read_text())["runs"]
    assert run["data"]["kind"] == "local file"
    assert run["data"]["sha256"] == digest
