"""Memory weightings over time and their heat map (UW paper Fig. 4-5)."""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.lab.reporting import memory_plots


def _model(schedule):
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(4), 3, 2, write_schedule=schedule)
    return keras.Sequential(
        [
            keras.Input((9, 2)),
            keras.layers.Dense(3),
            keras.layers.RNN(cell, return_sequences=True),
            keras.layers.Dense(2),
        ]
    )


def test_weightings_follow_the_schedule_and_match_the_layer(tmp_path, rng):
    schedule = keras_rda.UniformWriting(interval=3, encoding_steps=6)
    model = _model(schedule)
    x = rng.normal(size=(2, 9, 2)).astype("float32")
    weights = memory_plots.memory_weightings(model, x, sample=1)
    expected = np.array([0, 0, 1, 0, 0, 1, 1, 1, 1], bool)
    np.testing.assert_array_equal(weights["access"], expected)
    assert weights["write"].shape == (9, 1, 3) and weights["read"].shape == (9, 1, 3)
    np.testing.assert_array_equal(weights["write"][~expected], 0.0)
    assert np.all(weights["read"][expected].sum(-1) > 0.01)
    # The last step's read weights are those of the RNN layer run in one go.
    rnn = model.layers[1]
    features = model.layers[0](x[1:])
    _, *states = keras.layers.RNN(rnn.cell, return_state=True)(features)
    final = keras.ops.convert_to_numpy(rnn.cell.weightings(states)["read"])[0]
    np.testing.assert_allclose(weights["read"][-1], final, atol=1e-5)

    path = tmp_path / "heat.png"
    memory_plots.plot_memory_weightings(weights, str(path), encoding_steps=6, title="t")
    assert path.stat().st_size > 1000


def test_model_without_memory_layer_is_rejected():
    model = keras.Sequential([keras.Input((3, 2)), keras.layers.LSTM(2)])
    with pytest.raises(ValueError, match="Received an invalid value"):
        memory_plots.memory_weightings(model, np.zeros((1, 3, 2)))
