"""Tests of `keras_rda.lab.datasets.mnist` and the MNIST tasks."""

import gzip

import numpy as np
import pytest

from keras_rda.lab.datasets import mnist
from keras_rda.lab.datasets.mnist import pixel_permutation
from keras_rda.lab.tasks import get_task


def _write_csv(path, num_rows, seed=0, gz=True):
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, size=(num_rows, 784))
    labels = np.arange(num_rows) % 10
    table = np.concatenate([pixels, labels[:, None]], axis=1)
    text = "\n".join(",".join(str(v) for v in row) for row in table) + "\n"
    opener = gzip.open if gz else open
    with opener(path, "wt") as f:
        f.write(text)
    return pixels, labels


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("KERAS_RDA_DATA_DIR", raising=False)


def test_local_csv_split_scaling_and_labels(tmp_path, no_env):
    path = tmp_path / "mnist_small.csv.gz"
    pixels, labels = _write_csv(path, 50)
    (x_train, y_train), (x_test, y_test) = mnist(path=path, test_fraction=0.2)
    assert x_train.shape == (40, 784, 1) and x_test.shape == (10, 784, 1)
    assert x_train.dtype == np.float32 and y_train.dtype == np.int32
    # Every row appears once, pixels / 255, with its own label.
    x = np.concatenate([x_train, x_test])[..., 0]
    y = np.concatenate([y_train, y_test])
    order = np.lexsort(x.T[::-1])
    expected = pixels / 255.0
    e_order = np.lexsort(expected.T[::-1])
    np.testing.assert_allclose(x[order], expected[e_order], rtol=1e-6)
    np.testing.assert_array_equal(y[order], labels[e_order])


def test_directory_and_env_lookup(tmp_path, monkeypatch):
    _write_csv(tmp_path / "mnist_tiny.csv", 20, gz=False)
    (a, _), _ = mnist(path=tmp_path)
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(tmp_path))
    (b, _), _ = mnist()
    np.testing.assert_array_equal(a, b)


def test_permutation_is_fixed_and_shared(tmp_path, no_env):
    path = tmp_path / "m.csv.gz"
    _write_csv(path, 30)
    (x, _), (xt, _) = mnist(path=path)
    (px, _), (pxt, _) = mnist(path=path, permuted=True, permutation_seed=5)
    perm = np.random.default_rng(5).permutation(784)
    np.testing.assert_array_equal(px, x[:, perm])
    np.testing.assert_array_equal(pxt, xt[:, perm])
    np.testing.assert_array_equal(pixel_permutation(5), perm)
    assert sorted(pixel_permutation(0)) == list(range(784))
    assert not np.array_equal(pixel_permutation(0), pixel_permutation(1))


def test_bad_files(tmp_path, no_env):
    bad = tmp_path / "mnist_bad.csv"
    bad.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match="columns"):
        mnist(path=bad)
    with pytest.raises(ValueError, match="`path`"):
        mnist(path=tmp_path / "missing.csv")
    bad.write_text(",".join(["300"] * 785) + "\n")
    with pytest.raises(ValueError, match="0-255"):
        mnist(path=bad)


def test_tfds_path_with_mock_data(no_env):
    import tensorflow_datasets as tfds

    with tfds.testing.mock_data(num_examples=12):
        (x, y), (xt, yt) = mnist()
        (px, _), _ = mnist(permuted=True)
    assert x.shape == (12, 784, 1) and xt.shape == (12, 784, 1)
    assert x.dtype == np.float32 and 0.0 <= x.min() and x.max() <= 1.0
    assert y.dtype == np.int32 and y.min() >= 0 and y.max() <= 9
    np.testing.assert_array_equal(px, x[:, pixel_permutation(0)])


def test_real_5k_digits(data_dir):
    path = data_dir / "mnist_5k.csv.gz"
    if not path.exists():
        pytest.skip("mnist_5k.csv.gz is not in KERAS_RDA_DATA_DIR")
    (x, y), (xt, yt) = mnist(path=path)
    assert len(y) == 4000 and len(yt) == 1000
    assert np.bincount(np.concatenate([y, yt])).tolist() == [500] * 10
    assert x.min() == 0.0 and x.max() == 1.0
    # Real digits: the border pixels are blank, the centre is inked.
    images = x[..., 0].reshape(-1, 28, 28)
    assert images[:, 0, :].max() < 0.1
    assert images[:, 10:18, 10:18].mean() > 0.2


def test_mnist_tasks_on_local_file(tmp_path, no_env):
    path = tmp_path / "m.csv.gz"
    _write_csv(path, 40)
    (x_train, y_train), (x_test, y_test) = mnist(path=path)
    task = get_task("mnist", path=path)
    x, y, w = task.generate(5, np.random.default_rng(0))
    assert x.shape == (5, 784, 1) and y.shape == (5,) and np.all(w == 1)
    xh, yh, _ = task.held_out(100)
    np.testing.assert_array_equal(xh, x_test)  # held-out = the test split
    pooled = get_task("pmnist", path=path, pool=2)
    xp, _, _ = pooled.held_out(3)
    assert xp.shape == (3, 196, 1)
    # Pooling averages 2x2 blocks; the permutation reorders the pooled pixels.
    img = x_test[:3, :, 0].reshape(3, 14, 2, 14, 2).mean(axis=(2, 4)).reshape(3, 196)
    perm = np.random.default_rng(0).permutation(196)
    np.testing.assert_allclose(xp[..., 0], img[:, perm], rtol=1e-6)
    with pytest.raises(ValueError, match="`pool`"):
        get_task("mnist", pool=3)
