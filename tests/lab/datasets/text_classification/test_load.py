"""`text_classification(name)` end to end (UW paper, section 3.6).

The local path on the real shared AG News / IMDb files (through
`KERAS_RDA_DATA_DIR`) and on small files written here (the tfds and archive
paths are in `test_tfds_source.py` and `test_downloads.py`). Labels and
splits are checked against the files parsed here with the `csv` module,
independently of the package's reader.
"""

import csv

import numpy as np
import pytest

from keras_rda.lab.datasets import text_classification
from tests.lab.datasets.text_classification.conftest import write_csv


def test_local_csv_split_and_labels(small_csv):
    path, rows = small_csv
    data = text_classification("ag_news_subset", path=path, test_fraction=0.25)
    assert data.x_train.shape[0] == 30 and data.x_test.shape[0] == 10
    assert data.num_classes == 4
    assert data.class_names == ("World", "Sports", "Business", "Sci/Tech")
    assert data.x_train.dtype == np.int32 and data.y_train.dtype == np.int32
    # Every document keeps its own label: decode the tokens back and look
    # the label up in the rows parsed here.
    vocab = data.vectorizer.get_vocabulary()
    truth = {f"word{i}": int(r[0]) - 1 for i, r in enumerate(rows)}
    for x, y in [(data.x_train, data.y_train), (data.x_test, data.y_test)]:
        for ids, label in zip(x, y):
            words = [vocab[t] for t in ids if t > 0]
            key = [w for w in words if w.startswith("word")]
            if key and key[0] in truth:
                assert truth[key[0]] == label
            assert f"topic{label + 1}" in words  # the class's own token
    # Seeded: the same split twice, a different one for another seed.
    again = text_classification("ag_news_subset", path=path, test_fraction=0.25)
    np.testing.assert_array_equal(again.y_test, data.y_test)
    np.testing.assert_array_equal(again.x_test, data.x_test)
    other = text_classification("ag_news_subset", path=path, test_fraction=0.25, seed=5)
    assert not np.array_equal(other.x_test, data.x_test)


def test_padding_and_length(small_csv):
    path, _ = small_csv
    pre = text_classification("ag_news_subset", path=path, sequence_length=12)
    post = text_classification(
        "ag_news_subset", path=path, sequence_length=12, padding="post"
    )
    assert pre.x_train.shape[1] == 12 == pre.sequence_length
    for a, b in zip(pre.x_train, post.x_train):
        n = int((a > 0).sum())
        assert n == int((b > 0).sum()) > 0
        assert np.all(a[: 12 - n] == 0) and np.all(a[12 - n :] > 0)
        assert np.all(b[:n] > 0) and np.all(b[n:] == 0)
        np.testing.assert_array_equal(a[12 - n :], b[:n])
    short = text_classification("ag_news_subset", path=path, sequence_length=2)
    assert short.x_train.shape[1] == 2 and np.all(short.x_train > 0)


def test_local_directory_with_classes(tmp_path):
    rows = [[str(i % 3 + 1), f"doc {i} class{i % 3}"] for i in range(12)]
    write_csv(tmp_path / "train.csv", rows)
    write_csv(tmp_path / "test.csv", rows[:6])
    (tmp_path / "classes.txt").write_text("a\nb\nc\n")
    data = text_classification("dbpedia", path=tmp_path)
    assert data.class_names == ("a", "b", "c")
    np.testing.assert_array_equal(data.y_train, [i % 3 for i in range(12)])
    np.testing.assert_array_equal(data.y_test, [i % 3 for i in range(6)])


def test_rejects_files_that_are_not_the_data(tmp_path):
    bad_csv = tmp_path / "bad.csv"
    write_csv(bad_csv, [["hello", "world"], ["1", "x"]])
    with pytest.raises(ValueError, match="not a class-labelled CSV"):
        text_classification("ag_news_subset", path=bad_csv)
    too_many = tmp_path / "many.csv"
    write_csv(too_many, [["7", "x"], ["1", "y"]])
    with pytest.raises(ValueError, match="only 4 classes"):
        text_classification("ag_news_subset", path=too_many)
    bad_tsv = tmp_path / "bad.txt"
    bad_tsv.write_text("a sentence without a label\n")
    with pytest.raises(ValueError, match="sentence<TAB>label"):
        text_classification("imdb_reviews", path=bad_tsv)
    with pytest.raises(ValueError, match="argument `path`"):
        text_classification("imdb_reviews", path=tmp_path / "missing.txt")


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        (dict(name="mnist"), "name"),
        (dict(name="imdb_reviews", padding="middle"), "padding"),
        (dict(name="imdb_reviews", max_tokens=0), "max_tokens"),
        (dict(name="imdb_reviews", sequence_length=0), "sequence_length"),
        (dict(name="imdb_reviews", test_fraction=1.5), "test_fraction"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, argument):
    path = tmp_path / "s.txt"
    path.write_text("good film\t1\nbad film\t0\nok\t1\n")
    with pytest.raises(ValueError, match=f"argument `{argument}`"):
        text_classification(path=path, **kwargs)


def test_real_ag_news_test_split(data_dir, monkeypatch):
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(data_dir))
    data = text_classification("ag_news_subset", max_tokens=5000)
    assert "ag_news_test.csv" in data.source and "split" in data.source
    assert data.x_train.shape[0] == 6080 and data.x_test.shape[0] == 1520
    assert data.class_names == ("World", "Sports", "Business", "Sci/Tech")
    # Parse the file here: 1,900 documents per class in the whole file.
    with open(data_dir / "ag_news_test.csv", newline="") as f:
        labels = np.array([int(r[0]) - 1 for r in csv.reader(f)])
    assert labels.size == 7600
    both = np.concatenate([data.y_train, data.y_test])
    np.testing.assert_array_equal(np.bincount(both), np.bincount(labels))
    np.testing.assert_array_equal(np.bincount(both), [1900] * 4)


def test_real_imdb_sentences(data_dir, monkeypatch):
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", str(data_dir))
    data = text_classification("imdb_reviews")
    assert data.x_train.shape[0] == 800 and data.x_test.shape[0] == 200
    with open(data_dir / "imdb_labelled.txt") as f:
        labels = [int(line.rstrip().rsplit("\t", 1)[1]) for line in f if line.strip()]
    both = np.concatenate([data.y_train, data.y_test])
    assert sorted(both.tolist()) == sorted(labels)
    assert data.class_names == ("negative", "positive")
