"""LayerNormLSTMCell against Ba, Kiros & Hinton (2016) in NumPy."""

import keras
import numpy as np
import pytest

from keras_rda.cells.layer_norm_lstm_cell import LayerNormLSTMCell
from tests.cells import associative_reference as ref
from tests.helpers import perturbed_sequence_outputs


def test_sequence_matches_numpy(rng):
    cell = LayerNormLSTMCell(4)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    y = perturbed_sequence_outputs(cell, x, rng)
    w = ref.weights_by_name(cell)
    h = c = np.zeros((2, 4))
    for t in range(5):
        h, c = ref.ln_lstm_step(x[:, t], h, c, w)
        np.testing.assert_allclose(y[:, t], h, rtol=1e-4, atol=1e-5)


def test_forget_bias_and_round_trip(tmp_path, rng):
    cell = LayerNormLSTMCell(3)
    inputs = keras.Input((None, 2))
    model = keras.Model(inputs, keras.layers.RNN(cell)(inputs))
    bias = np.asarray(cell.bias)
    np.testing.assert_array_equal(bias[3:6], 1.0)
    # The other gates' biases are small and random (never all zero).
    others = np.concatenate([bias[:3], bias[6:]])
    assert np.abs(others).max() < 0.6 and np.abs(others).min() > 0.0
    x = rng.normal(size=(2, 4, 2)).astype("float32")
    ref.assert_round_trips(model, x, tmp_path, export=False)


def test_bad_units_raise():
    with pytest.raises(ValueError, match="argument `units`.*got 0"):
        LayerNormLSTMCell(0)


def test_finite_gradients_after_a_long_run_of_zero_inputs():
    # Zero biases would make the all-zero state a fixed point where the
    # layer normalisations' gain is ~300 per step (NaN after 20 steps).
    ref.assert_finite_gradients_after_zero_steps(LayerNormLSTMCell(8), 5)
