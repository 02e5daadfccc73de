"""ParallelRDACell against an independent NumPy float64 reference."""

import json

import keras
import numpy as np
import pytest

import keras_rda
from tests.cells import parallel_rda_reference as reference

ACTIVATIONS = [
    ("sigmoid", "linear", "linear"),
    ("exp", "linear", "tanh"),
    ("softplus", "tanh", "linear"),
    ("relu", "linear", "linear"),
]


def rnn_of_cell(params, input_dim, **cell_kwargs):
    layer = keras.layers.RNN(
        keras_rda.ParallelRDACell(params["b_u"].shape[0], **cell_kwargs),
        return_sequences=True,
        return_state=True,
    )
    layer.build((None, None, input_dim))
    layer.set_weights(reference.to_keras_weights(params))
    return layer


@pytest.mark.parametrize("attention,hidden,output", ACTIVATIONS)
def test_rnn_of_cell_matches_numpy_reference(attention, hidden, output, rng):
    params = reference.random_params(rng, 3, 5)
    x = rng.normal(size=(4, 40, 3))
    layer = rnn_of_cell(
        params,
        3,
        attention_activation=attention,
        hidden_activation=hidden,
        output_activation=output,
    )
    outputs, n, d, m = (np.asarray(t) for t in layer(x.astype(np.float32)))
    expected, n_ref, d_ref = reference.run(params, x, attention, hidden, output)
    np.testing.assert_allclose(outputs, expected, rtol=2e-5, atol=2e-5)
    # The state is the plain sums scaled by exp(-m).
    np.testing.assert_allclose(n * np.exp(m), n_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(d * np.exp(m), d_ref, rtol=1e-4, atol=1e-5)


def test_masked_steps_keep_the_state_and_repeat_the_output(rng):
    params = reference.random_params(rng, 2, 4)
    x = rng.normal(size=(3, 30, 2))
    mask = rng.random((3, 30)) > 0.4
    mask[0, :5] = False  # leading masked steps output zeros
    layer = rnn_of_cell(params, 2)
    outputs = np.asarray(layer(x.astype(np.float32), mask=mask)[0])
    expected, _, _ = reference.run(params, x, mask=mask)
    np.testing.assert_allclose(outputs, expected, rtol=2e-5, atol=2e-5)
    np.testing.assert_array_equal(outputs[0, :5], 0.0)


def test_relu_attention_before_any_positive_weight_outputs_zero(rng):
    params = reference.random_params(rng, 2, 3)
    params["b_a"] = np.full(3, -100.0)  # a_t = 0 for small inputs
    x = rng.normal(size=(2, 10, 2)) * 0.01
    layer = rnn_of_cell(params, 2, attention_activation="relu")
    outputs, n, d, m = (np.asarray(t) for t in layer(x.astype(np.float32)))
    np.testing.assert_array_equal(outputs, 0.0)
    np.testing.assert_array_equal(d, 0.0)
    assert np.isfinite(m).all()


def test_streaming_one_step_at_a_time_equals_the_rnn(rng):
    params = reference.random_params(rng, 2, 4)
    x = rng.normal(size=(2, 12, 2)).astype(np.float32)
    layer = rnn_of_cell(params, 2, attention_activation="exp")
    outputs = np.asarray(layer(x)[0])
    cell = layer.cell
    state = cell.get_initial_state(batch_size=2)
    for t in range(12):
        output, state = cell(x[:, t], state)
        np.testing.assert_allclose(np.asarray(output), outputs[:, t], atol=1e-6)


def test_weight_layout_and_initialisation():
    cell = keras_rda.ParallelRDACell(5)
    cell.build((None, 3))
    assert [w.name for w in cell.weights] == ["kernel", "bias"]
    assert tuple(cell.kernel.shape) == (3, 20)
    bias = np.asarray(cell.bias)
    np.testing.assert_array_equal(bias[:15], 0.0)
    np.testing.assert_array_equal(bias[15:], 1.0)  # discount gate (section 6.1)
    assert cell.state_size == [5, 5, 5]
    off = keras_rda.ParallelRDACell(5, unit_discount_bias=False)
    off.build((None, 3))
    np.testing.assert_array_equal(np.asarray(off.bias), 0.0)


def test_kernel_blocks_are_initialised_separately():
    # Glorot per [input_dim, units] block: limit sqrt(6 / (3 + 50)).
    cell = keras_rda.ParallelRDACell(50)
    cell.build((None, 3))
    kernel = np.asarray(cell.kernel)
    assert np.abs(kernel).max() <= np.sqrt(6 / 53) + 1e-6
    assert np.abs(kernel).max() > np.sqrt(6 / (3 + 200))


def test_config_round_trip():
    cell = keras_rda.ParallelRDACell(
        7, attention_activation="softplus", output_activation="tanh", dropout=0.25
    )
    config = json.loads(json.dumps(cell.get_config()))
    restored = keras_rda.ParallelRDACell.from_config(config)
    assert restored.get_config() == cell.get_config()


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"units": 0}, "units"),
        ({"units": 3, "attention_activation": "tanh"}, "attention_activation"),
        ({"units": 3, "hidden_activation": "relu"}, "hidden_activation"),
        ({"units": 3, "output_activation": "exp"}, "output_activation"),
        ({"units": 3, "dropout": 1.0}, "dropout"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=f"argument `{name}`"):
        keras_rda.ParallelRDACell(**kwargs)


def test_dropout_only_in_training(rng):
    layer = keras.layers.RNN(keras_rda.ParallelRDACell(4, dropout=0.5, seed=1))
    x = rng.normal(size=(2, 6, 3)).astype(np.float32)
    inference = np.asarray(layer(x))
    np.testing.assert_array_equal(inference, np.asarray(layer(x)))
    assert not np.allclose(np.asarray(layer(x, training=True)), inference)
