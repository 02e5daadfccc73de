"""FastWeightsCell against a NumPy reference of Ba et al. (2016)."""

import keras
import numpy as np
import pytest

from keras_rda.cells.fast_weights_cell import FastWeightsCell
from tests.cells import associative_reference as ref
from tests.helpers import perturb_weights

UNITS, INPUT_DIM, BATCH = 4, 3, 2
ACTIVATIONS = {
    "relu": lambda v: np.maximum(v, 0.0),
    "tanh": np.tanh,
    "linear": lambda v: v,
}


@pytest.mark.parametrize(
    "steps,layer_norm,activation",
    [(1, True, "relu"), (3, True, "relu"), (2, False, "tanh"), (1, True, "linear")],
)
def test_one_step_matches_numpy(steps, layer_norm, activation, rng):
    cell = FastWeightsCell(
        UNITS,
        decay=0.9,
        fast_learning_rate=0.7,
        inner_steps=steps,
        layer_norm=layer_norm,
        activation=activation,
    )
    cell.build((None, INPUT_DIM))
    perturb_weights(cell, rng)
    x = rng.normal(size=(BATCH, INPUT_DIM))
    h = rng.normal(size=(BATCH, UNITS))
    A = rng.normal(size=(BATCH, UNITS, UNITS))
    out, new = cell(
        x.astype("float32"),
        [h.astype("float32"), A.reshape(BATCH, -1).astype("float32")],
    )
    h_ref, A_ref = ref.fast_weights_step(
        x,
        h,
        A,
        ref.weights_by_name(cell),
        0.9,
        0.7,
        steps,
        layer_norm,
        ACTIVATIONS[activation],
    )
    np.testing.assert_allclose(out, h_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new[0], h_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new[1], A_ref.reshape(BATCH, -1), rtol=1e-5, atol=1e-5)


def test_sequence_through_rnn_matches_numpy(rng):
    cell = FastWeightsCell(UNITS, inner_steps=2)
    layer = keras.layers.RNN(cell, return_sequences=True)
    x = rng.normal(size=(BATCH, 5, INPUT_DIM)).astype("float32")
    y = np.asarray(layer(x))
    w = ref.weights_by_name(cell)
    h = np.zeros((BATCH, UNITS))
    A = np.zeros((BATCH, UNITS, UNITS))
    for t in range(5):
        h, A = ref.fast_weights_step(
            x[:, t], h, A, w, 0.95, 0.5, 2, True, ACTIVATIONS["relu"]
        )
        np.testing.assert_allclose(y[:, t], h, rtol=1e-4, atol=1e-5)


def test_fast_weights_decay_with_zero_hidden_state():
    """h_{t-1} = 0 leaves A_t = lambda A_{t-1}: a geometric decay."""
    cell = FastWeightsCell(UNITS, decay=0.5, fast_learning_rate=0.5)
    cell.build((None, INPUT_DIM))
    A = np.ones((1, UNITS * UNITS), np.float32)
    _, (h, A1) = cell(
        np.zeros((1, INPUT_DIM), np.float32), [np.zeros((1, UNITS), np.float32), A]
    )
    np.testing.assert_allclose(np.asarray(A1), 0.5 * A)
    _, (_, A2) = cell(
        np.zeros((1, INPUT_DIM), np.float32), [np.zeros((1, UNITS), np.float32), A1]
    )
    np.testing.assert_allclose(np.asarray(A2), 0.25 * A)


def test_initial_state_and_sizes():
    cell = FastWeightsCell(6)
    assert cell.state_size == [6, 36]
    assert cell.output_size == 6
    init = cell.get_initial_state(3)
    assert [tuple(s.shape) for s in init] == [(3, 6), (3, 36)]
    assert all(float(keras.ops.max(keras.ops.abs(s))) == 0.0 for s in init)


def test_finite_for_long_sequences_and_large_inputs(rng):
    inputs = keras.Input((None, INPUT_DIM))
    y = keras.layers.RNN(FastWeightsCell(8, inner_steps=2, decay=1.0))(inputs)
    model = keras.Model(inputs, y)
    x = (1e4 * rng.normal(size=(2, 2000, INPUT_DIM))).astype("float32")
    assert np.isfinite(model.predict(x, verbose=0)).all()


def test_round_trips(tmp_path, rng):
    inputs = keras.Input((None, INPUT_DIM))
    y = keras.layers.RNN(FastWeightsCell(UNITS, inner_steps=2, activation="tanh"))(
        inputs
    )
    model = keras.Model(inputs, keras.layers.Dense(2)(y))
    x = rng.normal(size=(BATCH, 6, INPUT_DIM)).astype("float32")
    ref.assert_round_trips(model, x, tmp_path)


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"units": -2}, "units"),
        ({"units": 4, "decay": 1.5}, "decay"),
        ({"units": 4, "fast_learning_rate": -0.1}, "fast_learning_rate"),
        ({"units": 4, "inner_steps": 0}, "inner_steps"),
        ({"units": 4, "activation": "softmax"}, "activation"),
        ({"units": 4, "layer_norm": "yes"}, "layer_norm"),
    ],
)
def test_bad_arguments_raise(kwargs, argument):
    bad = kwargs.get(argument)
    with pytest.raises(ValueError, match=f"argument `{argument}`.*got {bad!r}"):
        FastWeightsCell(**kwargs)


def test_mixed_precision(rng):
    keras.config.set_dtype_policy("mixed_float16")
    layer = keras.layers.RNN(FastWeightsCell(UNITS, inner_steps=2))
    y = layer(rng.normal(size=(BATCH, 50, INPUT_DIM)).astype("float32"))
    assert "float16" in str(y.dtype)
    assert np.isfinite(np.asarray(y, np.float32)).all()


def test_finite_gradients_after_a_long_run_of_zero_inputs():
    ref.assert_finite_gradients_after_zero_steps(FastWeightsCell(8), 5)
