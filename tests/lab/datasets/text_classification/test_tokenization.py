"""Token ids: vocabulary from the training texts, padding and truncation."""

import numpy as np
import pytest

from keras_rda.lab.datasets.text_classification.tokenization import fit_length
from keras_rda.lab.datasets.text_classification.tokenization import tokenize


@pytest.mark.parametrize("padding", ["pre", "post"])
def test_fit_length_against_lists(rng, padding):
    ids = rng.integers(0, 9, size=(20, 11))
    ids[:, ::3] = 0  # holes: only the non-zero ids count as tokens
    for length in (1, 4, 11, 15):
        out = fit_length(ids, length, padding)
        assert out.shape == (20, length) and out.dtype == np.int32
        for row, got in zip(ids, out):
            tokens = [t for t in row if t > 0]
            if padding == "pre":
                kept = tokens[-length:]
                expected = [0] * (length - len(kept)) + kept
            else:
                kept = tokens[:length]
                expected = kept + [0] * (length - len(kept))
            assert got.tolist() == expected


def test_vocabulary_comes_from_the_training_texts():
    train = ["the cat sat", "the dog sat down", "the cat"]
    test = ["a cat and a zebra"]
    vectorizer, x_train, x_test = tokenize(train, test, max_tokens=10)
    vocab = vectorizer.get_vocabulary()
    assert "zebra" not in vocab and vocab[:2] == ["", "[UNK]"]
    assert x_train.shape == (3, 4) == (len(train), x_test.shape[1])  # longest
    decoded = [[vocab[t] for t in row if t] for row in x_train]
    assert decoded == [s.split() for s in train]
    # Unknown words are id 1; "pre" truncation keeps the last 4 of 5 tokens.
    assert [vocab[t] for t in x_test[0]] == ["cat", "[UNK]", "[UNK]", "[UNK]"]
