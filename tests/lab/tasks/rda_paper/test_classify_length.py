"""The classify-length task (RDA paper) and the RWA paper's preset of it."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


@pytest.mark.parametrize(
    "name,min_length", [("classify-length", 1), ("classify-by-length", 0)]
)
def test_classify_length_padding_and_labels(name, min_length):
    task = get_task(name, max_length=40)
    assert task.masked and task.min_length == min_length
    x, y, _ = task.generate(2000, np.random.default_rng(2))
    real = np.any(x != 0, axis=-1)
    lengths = real.sum(axis=1)
    # Real steps come first, padding after: the mask is a prefix.
    np.testing.assert_array_equal(real, np.arange(40)[None] < lengths[:, None])
    np.testing.assert_array_equal(y, (lengths > 20).astype(np.int32))
    assert lengths.min() == min_length and lengths.max() == 40
    assert 0.4 < y.mean() < 0.6
    assert abs(x[real].std() - 1.0) < 0.05  # N(0, 1) values


def test_classify_length_paper_defaults():
    task = get_task("classify-length")
    assert (task.min_length, task.max_length) == (1, 1000)
    assert task.threshold == ("accuracy", ">=", 1.0)


def test_classify_length_matches_the_rda_paper_text():
    """RDA paper 6.3: "A sequence of length between 1 and 1000 is input. The
    goal is to classify whether the sequence is longer than 500."; 6.1: 250
    units, mini-batches of 100, Adam at 0.001, gradients clipped to [-1, 1]
    (every model); 6.3: every architecture learns its initial state."""
    task = get_task("classify-length")
    x, y, _ = task.generate(20000, np.random.default_rng(5))
    lengths = np.any(x != 0, axis=-1).sum(axis=1)
    assert x.shape[1] == 1000 and lengths.min() == 1 and lengths.max() == 1000
    # Uniform over 1..1000: each tenth of the range holds a tenth of them.
    counts = np.histogram(lengths, bins=10, range=(0.5, 1000.5))[0]
    assert np.all(np.abs(counts - 2000) < 4 * np.sqrt(2000))
    # "longer than 500": 500 is short, 501 long.
    assert np.all(y[lengths == 500] == 0) and np.all(y[lengths == 501] == 1)
    assert {500, 501} <= set(lengths.tolist())
    np.testing.assert_array_equal(y, (lengths >= 501).astype(np.int32))
    assert task.learn_initial_state
    settings = type(task).training_settings("paper")
    assert (settings["units"], settings["batch_size"]) == (250, 100)
    assert settings["clipvalue"] == 1.0  # for every model, the RWA too
    assert settings.get("learning_rate", 1e-3) == 1e-3
    # Scored on 100 sequences, the papers' batch (RWA paper 3.1).
    assert settings["eval_examples"] == 100


def test_classify_by_length_matches_the_rwa_paper_text():
    """RWA paper 3.3: lengths uniform over 0..T, T = 1,000, N(0, 1) values,
    label 1 above T/2; 3.1: Adam at 0.001, no gradient clipping, zero initial
    LSTM states, a batch of 100 test samples."""
    task = get_task("classify-by-length")
    x, y, _ = task.generate(20000, np.random.default_rng(6))
    lengths = np.any(x != 0, axis=-1).sum(axis=1)
    assert lengths.min() == 0 and lengths.max() == 1000
    np.testing.assert_array_equal(y, (lengths > 500).astype(np.int32))
    assert not task.learn_initial_state
    settings = type(task).training_settings("paper")
    assert settings["learning_rate"] == 1e-3 and settings["clipvalue"] == 0.0
    assert (settings["units"], settings["batch_size"]) == (250, 100)
    assert settings["eval_examples"] == 100
