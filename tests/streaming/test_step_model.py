"""`step_model`: one step at a time equals the sequence model."""

import os
import subprocess
import sys

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda import streaming
from tests.streaming import units
from tests.streaming.helpers import stream_keras

ATOL = 2e-5


def sequences(batch=2, steps=units.STEPS, seed=0):
    return (
        np.random.RandomState(seed)
        .randn(batch, steps, units.FEATURES)
        .astype("float32")
    )


@pytest.mark.parametrize("name", sorted(units.CELLS))
def test_streaming_equals_the_sequence_model(name):
    model = units.sequence_model(name)
    x = sequences()
    want = np.asarray(model(x))
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 2), x)
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=1e-5)


@pytest.mark.parametrize("name", ["RDA", "DNC uniform", "RNN(NTMCell cached_uniform)"])
def test_state_carried_across_two_calls_equals_one_long_call(name):
    model = units.sequence_model(name)
    x = sequences()
    step = streaming.step_model(model)
    whole, whole_states = stream_keras(step, streaming.initial_states(model, 2), x)
    first, states = stream_keras(step, streaming.initial_states(model, 2), x[:, :4])
    second, states = stream_keras(step, states, x[:, 4:])
    np.testing.assert_allclose(np.concatenate([first, second], 1), whole, atol=1e-6)
    for a, b in zip(states, whole_states):
        np.testing.assert_allclose(a, b, atol=1e-6)
    np.testing.assert_allclose(whole, np.asarray(model(x)), atol=ATOL, rtol=1e-5)


def test_a_stack_of_two_layers_and_per_step_layers():
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras.layers.Dense(5, activation="tanh"),
            keras_rda.RDA(units.UNITS, return_sequences=True),
            keras.layers.LayerNormalization(),
            keras.layers.Dropout(0.5),
            keras_rda.DNC(
                keras.layers.LSTMCell(units.UNITS),
                **units.memory_kwargs(keras_rda.UniformWriting(interval=3)),
                return_sequences=True,
            ),
            keras.layers.TimeDistributed(keras.layers.Dense(2)),
            keras.layers.Activation("softmax"),
        ]
    )
    x = sequences()
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 2), x)
    np.testing.assert_allclose(got, np.asarray(model(x)), atol=ATOL, rtol=1e-5)


def test_a_functional_chain_with_an_embedding_and_a_last_output():
    tokens = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(10, 3)(tokens)
    h = keras_rda.RWA(units.UNITS, return_sequences=True)(h)
    h = keras.layers.LSTM(units.UNITS)(h)
    y = keras.layers.Dense(2)(h)
    model = keras.Model(tokens, y)
    x = np.random.RandomState(1).randint(0, 10, (2, 6)).astype("int32")
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 2), x)
    # The output at step t is the model's output on the sequence so far.
    for t in (2, 5):
        np.testing.assert_allclose(
            got[:, t], np.asarray(model(x[:, : t + 1])), atol=ATOL, rtol=1e-5
        )


def test_the_step_model_shares_the_trained_variables():
    model = units.sequence_model("RDA")
    step = streaming.step_model(model)
    ids = {id(v) for v in model.weights}
    assert {id(v) for v in step.weights} == ids
    model.layers[0].cell.kernel.assign(model.layers[0].cell.kernel * 2.0)
    x = sequences()
    got, _ = stream_keras(step, streaming.initial_states(step, 2), x)
    np.testing.assert_allclose(got, np.asarray(model(x)), atol=ATOL, rtol=1e-5)


def test_learned_initial_states_are_the_cells():
    model = units.sequence_model("RNN(RWACell)")
    states = streaming.initial_states(model, 3)
    assert all(state.shape[0] == 3 for state in states)
    want = model.layers[0].cell.get_initial_state(batch_size=3)
    back = streaming.sequence_states(streaming.step_model(model), states)
    assert len(back) == len(want)
    for a, b in zip(back, want):
        np.testing.assert_allclose(a, np.asarray(b))
    assert np.abs(states[0]).max() > 0  # h_0 = f(s0) with a random s0


@pytest.mark.parametrize("name", ["RDA", "DNC regular", "RNN(LSTMCell)"])
def test_a_masked_step_keeps_the_state(name):
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras.layers.Masking(0.0),
            units.CELLS[name](),
            keras.layers.Dense(2),
        ]
    )
    x = sequences()
    x[0, 3] = 0.0
    x[1, 5:7] = 0.0
    keep = np.any(x != 0.0, axis=-1)
    step = streaming.step_model(model)
    got, states = stream_keras(step, streaming.initial_states(step, 2), x)
    want = np.asarray(model(x))
    np.testing.assert_allclose(got[keep], want[keep], atol=ATOL, rtol=1e-5)
    # The final states equal those of the unmasked steps alone.
    _, ref_states = stream_keras(
        step, streaming.initial_states(step, 1), x[1:, [0, 1, 2, 3, 4, 7, 8]]
    )
    for a, b in zip(states, ref_states):
        np.testing.assert_allclose(a[1:], b, atol=1e-6)


@pytest.mark.parametrize(
    "layer, words",
    [
        (
            lambda: keras.layers.Bidirectional(
                keras.layers.LSTM(2, return_sequences=True)
            ),
            "backwards",
        ),
        (lambda: keras.layers.Conv1D(2, 3), "neighbouring time steps"),
        (lambda: keras_rda.FeedForwardAttention(), "pools over all time steps"),
        (lambda: keras.layers.GlobalAveragePooling1D(), "pools over all time steps"),
        (
            lambda: keras_rda.RDA(2, go_backwards=True, return_sequences=True),
            "go_backwards",
        ),
    ],
)
def test_a_layer_that_mixes_time_steps_is_a_clear_error(layer, words):
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras_rda.RDA(2, return_sequences=True),
            layer(),
        ]
    )
    with pytest.raises(ValueError, match="cannot stream") as info:
        streaming.step_model(model)
    assert model.layers[-1].name in str(info.value)
    assert words in str(info.value)


def test_return_sequences_false_before_a_recurrent_layer_is_an_error():
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras_rda.RDA(2),
            keras.layers.RepeatVector(3),
            keras_rda.RDA(2),
        ]
    )
    with pytest.raises(ValueError, match="repeat_vector.*cannot stream"):
        streaming.step_model(model)
    model = keras.Sequential(
        [
            keras.Input((None, units.FEATURES)),
            keras_rda.RDA(2),
            keras.layers.Reshape((1, 2)),
            keras_rda.RWA(2),
        ]
    )
    with pytest.raises(ValueError, match="cannot stream"):
        streaming.step_model(model)


@pytest.mark.skipif(
    keras.backend.backend() == "jax", reason="the whole module runs on JAX"
)
def test_the_step_model_builds_on_jax():
    code = (
        "import numpy as np, keras, keras_rda\n"
        "from keras_rda import streaming\n"
        "assert keras.backend.backend() == 'jax'\n"
        "m = keras.Sequential([keras.Input((None, 3)),"
        " keras_rda.RDA(4, return_sequences=True),"
        " keras_rda.DNC(keras.layers.LSTMCell(4), 3, 4,"
        " write_schedule=keras_rda.UniformWriting(interval=2),"
        " return_sequences=True), keras.layers.Dense(2)])\n"
        "x = np.random.RandomState(0).randn(2, 5, 3).astype('float32')\n"
        "s = streaming.step_model(m)\n"
        "st = streaming.initial_states(s, 2)\n"
        "ys = []\n"
        "for t in range(5):\n"
        "    y, *st = [np.asarray(v) for v in s([x[:, t], *st])]\n"
        "    ys.append(y)\n"
        "np.testing.assert_allclose(np.stack(ys, 1), np.asarray(m(x)), atol=2e-5)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, KERAS_BACKEND="jax", JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok" in result.stdout
