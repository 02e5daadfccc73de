"""Local copies: the seeded split of one file, directories, unnamed classes."""

import numpy as np

from keras_rda.lab.datasets.text_classification.local_copy import load_local
from keras_rda.lab.datasets.text_classification.local_copy import split_train_test
from keras_rda.lab.datasets.text_classification.sources import SOURCES
from tests.lab.datasets.text_classification.conftest import write_csv


def test_split_is_a_seeded_partition():
    texts = [f"doc{i}" for i in range(50)]
    labels = np.arange(50, dtype=np.int32) % 3
    (train_x, train_y), (test_x, test_y) = split_train_test(texts, labels, 0.3, 7)
    assert len(test_x) == 15 and len(train_x) == 35
    assert sorted(train_x + test_x) == sorted(texts)
    for text, label in zip(train_x + test_x, np.concatenate([train_y, test_y])):
        assert int(text[3:]) % 3 == label  # each label stays with its text
    again = split_train_test(texts, labels, 0.3, 7)
    assert again[1][0] == test_x
    assert split_train_test(texts, labels, 0.3, 8)[1][0] != test_x
    assert len(split_train_test(texts, labels, 0.001, 0)[1][0]) == 1  # >= 1


def test_directory_without_class_names_numbers_them(tmp_path):
    rows = [[str(i % 3 + 1), f"text {i}"] for i in range(9)]
    write_csv(tmp_path / "train.csv", rows)
    write_csv(tmp_path / "test.csv", rows[:3])
    raw = load_local(SOURCES["yahoo_answers"], tmp_path)
    assert raw.class_names == ("1", "2", "3")
    assert raw.train[0][0] == "text 0" and raw.test[1].tolist() == [0, 1, 2]
    assert "train.csv / test.csv" in raw.source
