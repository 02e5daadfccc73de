"""Memory cells inside `keras.layers.RNN`: controller dropout, stateful reset."""

import keras
import numpy as np
import pytest

import keras_rda
from tests.memory.helpers import np_

CELLS = [keras_rda.DNCCell, keras_rda.NTMCell]


def _dropout_cell(cls):
    controller = keras.layers.LSTMCell(4, dropout=0.5, recurrent_dropout=0.3, seed=1)
    return cls(controller, memory_size=4, word_size=3)


@pytest.mark.parametrize("cls", CELLS, ids=lambda c: c.__name__)
def test_controller_dropout_masks_are_new_on_every_call(cls, rng):
    layer = keras.layers.RNN(_dropout_cell(cls))
    x = rng.normal(size=(3, 5, 2)).astype("float32")
    first = np_(layer(x, training=True))
    second = np_(layer(x, training=True))
    assert not np.allclose(first, second)
    # The masks do not outlive the call: a batch one larger works.
    wider = np_(layer(rng.normal(size=(4, 5, 2)).astype("float32"), training=True))
    assert wider.shape == (4, 4) and np.all(np.isfinite(wider))
    assert layer.cell.controller._dropout_mask is None
    assert layer.cell.controller._recurrent_dropout_mask is None
    # Without training no dropout: deterministic.
    np.testing.assert_array_equal(np_(layer(x)), np_(layer(x)))


@pytest.mark.parametrize("cls", CELLS, ids=lambda c: c.__name__)
def test_eager_call_after_fit_with_controller_dropout(cls, rng):
    model = keras.Sequential(
        [
            keras.Input((5, 2)),
            keras.layers.RNN(_dropout_cell(cls)),
            keras.layers.Dense(1),
        ]
    )
    model.compile("adam", "mse")
    x = rng.normal(size=(8, 5, 2)).astype("float32")
    y = rng.normal(size=(8, 1)).astype("float32")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    eager = np_(model(x[:3], training=True))  # a graph tensor here would fail
    assert eager.shape == (3, 1) and np.all(np.isfinite(eager))
    assert model.predict(x, verbose=0).shape == (8, 1)


def test_ntm_zero_weightings_are_weightings_on_slot_0(rng):
    cell = keras_rda.NTMCell(keras.layers.GRUCell(5), 4, 3, num_read_heads=2)
    cell.build((None, 2))
    x = rng.normal(size=(2, 2)).astype("float32")
    zero = cell.get_initial_state(batch_size=2)
    one_hot = list(zero)
    first = np.zeros((2, 4), "float32")
    first[:, 0] = 1.0
    index = 2 + len(cell._controller_flat_sizes)  # memory, read w, write w
    one_hot[index + 1] = np.tile(first, (1, 2))  # two read heads
    one_hot[index + 2] = first
    out_zero, state_zero = cell(x, zero)
    out_hot, state_hot = cell(x, [keras.ops.convert_to_tensor(s) for s in one_hot])
    np.testing.assert_array_equal(np_(out_zero), np_(out_hot))
    for a, b in zip(state_zero, state_hot):
        np.testing.assert_array_equal(np_(a), np_(b))
    assert np.all(np_(cell.weightings(zero)["read"])[..., 0] == 1.0)


@pytest.mark.parametrize("cls", CELLS, ids=lambda c: c.__name__)
def test_reset_state_restarts_where_a_fresh_layer_starts(cls, rng):
    cell = cls(keras.layers.LSTMCell(4), memory_size=4, word_size=3)
    stateful = keras.layers.RNN(cell, stateful=True, return_sequences=True)
    x = rng.normal(size=(2, 6, 2)).astype("float32")
    stateful.build((2, 6, 2))
    fresh = keras.layers.RNN(cell, return_sequences=True)
    expected = np_(fresh(x))
    np.testing.assert_allclose(np_(stateful(x)), expected, atol=1e-6)
    assert not np.allclose(np_(stateful(x)), expected, atol=1e-3)  # carried on
    stateful.reset_state()
    np.testing.assert_allclose(np_(stateful(x)), expected, atol=1e-6)
