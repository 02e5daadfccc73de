"""MNIST as 784-step pixel sequences, sequential or with a fixed permutation."""

import gzip
import hashlib
import os
import pathlib

import numpy as np

NUM_PIXELS = 28 * 28
LOCAL_FILE_PATTERNS = ("mnist_5k.csv.gz", "mnist*.csv.gz", "mnist*.csv")
DATA_DIR_ENV = "KERAS_RDA_DATA_DIR"
#: What `mnist` reads without a local copy: tensorflow-datasets' whole set.
FULL_SET = "tensorflow-datasets mnist (60,000 train / 10,000 test digits)"


def pixel_permutation(seed=0):
    """The fixed permutation of the 784 pixel positions drawn from `seed`."""
    return np.random.default_rng(seed).permutation(NUM_PIXELS)


def mnist(
    permuted=False,
    path=None,
    permutation_seed=0,
    test_fraction=0.2,
    data_dir=None,
):
    """MNIST digits as pixel sequences `[n, 784, 1]` with values in [0, 1].

    Sources, in order:
    1. `path`: a local CSV file (optionally gzipped) with one digit per row,
       784 pixel values 0-255 (row-major 28x28) then the label 0-9, e.g. the
       5,000-digit `mnist_5k.csv.gz`; a `test_fraction` of its rows
       (shuffled with seed 0) becomes the test set.
    2. the directory in `KERAS_RDA_DATA_DIR`, when it holds a file named like
       `mnist*.csv.gz` / `mnist*.csv`.
    3. tensorflow-datasets `mnist` (60,000 train / 10,000 test digits,
       downloaded into `data_dir` or tfds's default directory).

    Args:
        permuted: apply one fixed pixel permutation to every image
            (permuted MNIST, Le et al. 2015), the same for train and test.
        path: a local CSV file, or a directory searched as in 2.
        permutation_seed: seed of that permutation (the permutation is a
            fixed function of it).
        test_fraction: share of a local CSV's rows held out as test set.
        data_dir: tfds data directory.

    Returns:
        `((x_train, y_train), (x_test, y_test))`: `x` float32
        `[n, 784, 1]` in [0, 1], pixels top-left to bottom-right (permuted
        when asked); `y` int32 `[n]`.
    """
    local = _find_local(path)
    if local is not None:
        (x_train, y_train), (x_test, y_test) = _load_csv(local, test_fraction)
    else:
        (x_train, y_train), (x_test, y_test) = _load_tfds(data_dir)
    if permuted:
        order = pixel_permutation(permutation_seed)
        x_train, x_test = x_train[:, order], x_test[:, order]
    return (x_train, y_train), (x_test, y_test)


def mnist_source(path=None):
    """Which data `mnist(path=path)` reads, as a run records and prints it:
    `kind` and a one-line `description`, and for a local CSV ("local file")
    its `file` name, `found_by` ("path" or "KERAS_RDA_DATA_DIR"), `bytes` and
    `sha256`, else ("download") the `dataset` (`FULL_SET`: not the
    5,000-digit copy the docs' MNIST records read).

    Raises:
        ValueError: `path` is neither an MNIST CSV file nor a directory
            holding one (as `mnist`).
    """
    local = _find_local(path)
    if local is None:
        why = (
            f"no mnist*.csv(.gz) in ${DATA_DIR_ENV}"
            if os.environ.get(DATA_DIR_ENV)
            else f"{DATA_DIR_ENV} is not set"
        )
        return {
            "kind": "download",
            "dataset": FULL_SET,
            "description": (
                f"{FULL_SET}, downloaded ({why}): not the data of the docs' "
                "MNIST records"
            ),
        }
    found_by = "path" if path is not None else DATA_DIR_ENV
    digest = hashlib.sha256()
    with open(local, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    size = local.stat().st_size
    return {
        "kind": "local file",
        "file": local.name,
        "found_by": found_by,
        "bytes": size,
        "sha256": digest.hexdigest(),
        "description": (
            f"local file {local.name} from {found_by} ({size:,} bytes, "
            f"sha256 {digest.hexdigest()[:16]})"
        ),
    }


def _find_local(path):
    if path is None:
        path = os.environ.get(DATA_DIR_ENV)
        if not path or not pathlib.Path(path).is_dir():
            return None
        required = False
    else:
        required = True
    path = pathlib.Path(path)
    if path.is_file():
        return path
    if path.is_dir():
        for pattern in LOCAL_FILE_PATTERNS:
            found = sorted(path.glob(pattern))
            if found:
                return found[0]
    if required:
        raise ValueError(
            "Received an invalid value for argument `path`, expected an MNIST "
            f"CSV file or a directory holding mnist*.csv(.gz), got {str(path)!r}"
        )
    return None


def _load_csv(path, test_fraction):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        try:
            table = np.loadtxt(f, delimiter=",", dtype=np.float32, ndmin=2)
        except ValueError as error:
            raise ValueError(
                f"Received an invalid value for argument `path`: {str(path)!r} "
                f"is not an MNIST CSV file ({error})"
            ) from None
    if table.shape[1] != NUM_PIXELS + 1:
        raise ValueError(
            f"Received an invalid value for argument `path`: {str(path)!r} has "
            f"{table.shape[1]} columns per row, expected {NUM_PIXELS + 1} "
            "(784 pixels then the label)"
        )
    pixels, labels = table[:, :NUM_PIXELS], table[:, NUM_PIXELS]
    if pixels.min() < 0 or pixels.max() > 255 or labels.min() < 0 or labels.max() > 9:
        raise ValueError(
            f"Received an invalid value for argument `path`: {str(path)!r} has "
            "pixels outside 0-255 or labels outside 0-9"
        )
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(
            "Received an invalid value for argument `test_fraction`, expected "
            f"a number in (0, 1), got {test_fraction!r}"
        )
    x = (pixels / 255.0).astype(np.float32)[..., None]
    y = labels.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(y))
    num_test = max(1, int(round(test_fraction * len(y))))
    test, train = order[:num_test], order[num_test:]
    return (x[train], y[train]), (x[test], y[test])


def _load_tfds(data_dir):
    import tensorflow_datasets as tfds

    splits = tfds.load(
        "mnist", split=["train", "test"], as_supervised=True, data_dir=data_dir
    )
    out = []
    for split in splits:
        images, labels = [], []
        for image, label in tfds.as_numpy(split.batch(10000)):
            images.append(np.asarray(image, np.float32).reshape(len(image), -1, 1))
            labels.append(np.asarray(label, np.int32))
        out.append((np.concatenate(images) / 255.0, np.concatenate(labels)))
    return tuple(out)
