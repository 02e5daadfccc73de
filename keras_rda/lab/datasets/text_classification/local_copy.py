"""Local copies: a data file split in two, or a directory of both splits.

A local *directory* must hold `train.csv` and `test.csv` (Zhang et al.
format) and optionally `classes.txt`; a local *file* is one split only, so it
is shuffled with `seed` and split into train/test by `test_fraction` (the
offline AG News test split becomes 6,080 training and 1,520 test documents
at the default 0.2).
"""

import os
import pathlib

import numpy as np

from keras_rda.lab.datasets.text_classification.sentence_labels import (
    read_sentence_labels,
)
from keras_rda.lab.datasets.text_classification.sources import RawTexts
from keras_rda.lab.datasets.text_classification.zhang_csv import read_class_names
from keras_rda.lab.datasets.text_classification.zhang_csv import read_zhang_csv
from keras_rda.utils import validation

DATA_DIR_ENV = "KERAS_RDA_DATA_DIR"


def find_local_copy(source):
    """`$KERAS_RDA_DATA_DIR/<source.local>` if that file exists, else None."""
    data_dir = os.environ.get(DATA_DIR_ENV)
    if not (source.local and data_dir):
        return None
    candidate = pathlib.Path(data_dir) / source.local
    return candidate if candidate.is_file() else None


def split_train_test(texts, labels, test_fraction, seed):
    """Shuffles with `seed` and holds out `test_fraction` (at least one)."""
    order = np.random.default_rng(seed).permutation(len(texts))
    num_test = max(1, int(round(test_fraction * len(texts))))

    def pick(indices):
        return [texts[i] for i in indices], labels[indices]

    return pick(order[num_test:]), pick(order[:num_test])


def load_local(source, path, test_fraction=0.2, seed=0):
    """Reads a local copy of `source` (a directory or a single file).

    Returns:
        A `RawTexts`; classes without names are named "1", "2", ...

    Raises:
        ValueError: if `path` does not exist, a directory lacks a split, or
            the files are not the expected format.
    """
    path = pathlib.Path(path)
    if path.is_dir():
        class_names = _class_names(source, path / "classes.txt")
        train, test = (
            read_zhang_csv(_split_file(path, split), _count(class_names))
            for split in ("train", "test")
        )
        description = f"local directory {path} (train.csv / test.csv)"
    elif path.is_file():
        if source.local_format == "tsv":
            class_names = source.class_names
            texts, labels = read_sentence_labels(path)
        else:
            class_names = _class_names(source, path.parent / source.classes_file)
            texts, labels = read_zhang_csv(path, _count(class_names))
        train, test = split_train_test(texts, labels, test_fraction, seed)
        description = (
            f"local file {path}, shuffled (seed {seed}) and split into "
            f"{len(train[0])} train / {len(test[0])} test documents"
        )
    else:
        raise validation.invalid_value(
            "path", "an existing file or directory", str(path)
        )
    if class_names is None:
        num = int(max(train[1].max(), test[1].max())) + 1
        class_names = tuple(str(i + 1) for i in range(num))
    return RawTexts(train, test, tuple(class_names), description)


def _class_names(source, classes_file):
    """The names in `classes_file` if it exists, else the source's own."""
    if classes_file.is_file():
        return read_class_names(classes_file)
    return source.class_names


def _count(class_names):
    return len(class_names) if class_names else None


def _split_file(directory, split):
    file = directory / f"{split}.csv"
    if not file.is_file():
        raise validation.invalid_value(
            "path",
            "a directory with train.csv and test.csv or a data file",
            f"{directory} (no {split}.csv)",
        )
    return file
