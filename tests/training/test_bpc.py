"""Bits per character with the state carried through a split, against NumPy."""

import dataclasses
import math

import numpy as np

from keras_rda.training.enwik8_trainer import Enwik8Trainer
from tests.helpers import sigmoid


def numpy_lstm_bpc(weights, tokens, batch, units):
    """BPC of embedding -> LSTM -> dense over `batch` contiguous rows.

    Keras's LSTM gate order is i, f, c, o; every row runs from its first to
    its last character with the state carried, and predicts characters 1..L-1.
    """
    emb, kernel, recurrent, bias, dense_w, dense_b = [
        w.astype(np.float64) for w in weights
    ]
    row_len = len(tokens) // batch
    rows = tokens[: batch * row_len].reshape(batch, row_len)
    h = np.zeros((batch, units))
    c = np.zeros((batch, units))
    nats = 0.0
    for t in range(row_len - 1):
        z = emb[rows[:, t]] @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        logits = h @ dense_w + dense_b
        logits = logits - logits.max(-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        nats -= logp[np.arange(batch), rows[:, t + 1]].sum()
    return nats / (batch * (row_len - 1)) / math.log(2)


def test_bpc_matches_numpy(tiny_data, tiny_preset, tmp_path, rng):
    # 3 rows of 66 characters, bptt 10: six full segments and a shorter one.
    preset = dataclasses.replace(tiny_preset, eval_batch_size=3)
    trainer = Enwik8Trainer(tiny_data, tmp_path, model="lstm", preset=preset, verbose=0)
    # Random weights large enough that the prediction is far from uniform.
    for v in trainer.model.weights:
        v.assign(rng.normal(0, 1.0, v.shape).astype("float32"))
    weights = [v.numpy() for v in trainer.model.weights]
    expected = numpy_lstm_bpc(weights, tiny_data.valid, 3, preset.units)
    got = trainer.evaluate("valid")
    assert abs(expected - 8.0) > 0.1  # not the uniform 8 bits
    np.testing.assert_allclose(got, expected, rtol=1e-5)
