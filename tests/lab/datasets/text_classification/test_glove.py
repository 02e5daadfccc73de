"""GloVe text files as an embedding matrix for a vocabulary."""

import numpy as np
import pytest

from keras_rda.lab.datasets import text_classification
from keras_rda.lab.datasets.text_classification import read_glove


def test_read_glove_rows_follow_the_vocabulary(tmp_path):
    glove = tmp_path / "glove.txt"
    glove.write_text("cat 1 2\nunused 7 7\ndog -1 0.5\n")
    vocabulary = ["", "[UNK]", "dog", "cat", "bird"]
    matrix, hits = read_glove(glove, vocabulary, seed=3)
    assert matrix.shape == (5, 2) and matrix.dtype == np.float32 and hits == 2
    np.testing.assert_array_equal(matrix[0], [0, 0])  # padding
    np.testing.assert_allclose(matrix[2], [-1, 0.5])
    np.testing.assert_allclose(matrix[3], [1, 2])
    # Words without a vector: small seeded N(0, 0.1^2) draws.
    again, _ = read_glove(glove, vocabulary, seed=3)
    np.testing.assert_array_equal(again, matrix)
    assert np.all(np.abs(matrix[[1, 4]]) < 1.0) and np.any(matrix[4] != 0)


def test_glove_vectors(tmp_path, small_csv):
    path, _ = small_csv
    glove = tmp_path / "glove.txt"
    glove.write_text("topic1 0.5 1.0 -2.0\nbody 3.0 0.0 1.0\nunrelated 9 9 9\n")
    data = text_classification("ag_news_subset", path=path, glove_path=glove)
    vocab = data.vectorizer.get_vocabulary()
    m = data.embedding_matrix
    assert m.shape == (len(vocab), 3) and m.dtype == np.float32
    assert data.embedding_hits == 2
    np.testing.assert_allclose(m[vocab.index("topic1")], [0.5, 1.0, -2.0])
    np.testing.assert_allclose(m[vocab.index("body")], [3.0, 0.0, 1.0])
    assert np.all(m[0] == 0)  # padding


@pytest.mark.parametrize(
    "content",
    ["word 1.0 2.0\nother 1.0\n", "word 1.0 abc\n", "\n", ""],
)
def test_glove_rejects_other_files(tmp_path, content):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match="GloVe"):
        read_glove(path, ["", "[UNK]", "word", "other"])
