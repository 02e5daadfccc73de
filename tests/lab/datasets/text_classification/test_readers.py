"""The readers of the local file formats, against rows written here."""

import numpy as np
import pytest

from keras_rda.lab.datasets.text_classification import read_class_names
from keras_rda.lab.datasets.text_classification import read_sentence_labels
from keras_rda.lab.datasets.text_classification import read_zhang_csv
from tests.lab.datasets.text_classification.conftest import write_csv


def test_zhang_csv_joins_fields_and_unescapes(tmp_path):
    path = tmp_path / "d.csv"
    write_csv(path, [["2", "Title", "line one\\nline two"], ["1", "only"], []])
    texts, labels = read_zhang_csv(path, num_classes=2)
    assert texts == ["Title line one line two", "only"]
    assert labels.dtype == np.int32 and labels.tolist() == [1, 0]


@pytest.mark.parametrize(
    "rows,message",
    [
        ([["0", "x"]], "classes from 1"),
        ([["a", "x"]], "classes from 1"),
        ([["1"]], "classes from 1"),
        ([["3", "x"]], "only 2 classes"),
        ([], "empty"),
    ],
)
def test_zhang_csv_rejects(tmp_path, rows, message):
    path = tmp_path / "d.csv"
    write_csv(path, rows)
    with pytest.raises(ValueError, match=message):
        read_zhang_csv(path, num_classes=2)


def test_sentence_labels(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("Great film, really.\t1\n\nDull\tand long.\t0\r\n")
    texts, labels = read_sentence_labels(path)
    assert texts == ["Great film, really.", "Dull\tand long."]
    assert labels.tolist() == [1, 0]
    path.write_text("no label here\n")
    with pytest.raises(ValueError, match="sentence<TAB>label"):
        read_sentence_labels(path)


def test_class_names(tmp_path):
    path = tmp_path / "classes.txt"
    path.write_text("World\n\nSports \n")
    assert read_class_names(path) == ("World", "Sports")
    path.write_text("\n")
    with pytest.raises(ValueError, match="class names"):
        read_class_names(path)
