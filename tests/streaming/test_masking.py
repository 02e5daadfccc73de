"""Padded streams: `Embedding(mask_zero=True)` and `Masking` in a step model.

A padding step (token id 0, or a `Masking` value) keeps every state, as the
sequence model does, and gives the output the sequence model gives there.
"""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda import streaming
from tests.streaming import units
from tests.streaming.helpers import stream_keras

ATOL = 2e-5
VOCABULARY = 12

#: Padded rows: leading, inner and trailing padding, and a row without.
TOKENS = np.array(
    [
        [0, 0, 3, 4, 0, 5, 0, 0],
        [1, 2, 0, 0, 3, 4, 7, 0],
        [5, 6, 7, 8, 9, 1, 2, 3],
        [0, 4, 0, 6, 0, 2, 0, 9],
    ],
    dtype="int32",
)

RECURRENT = {
    "RDA": lambda: keras_rda.RDA(units.UNITS, return_sequences=True),
    "RDA exp-tanh, learned s0": lambda: keras_rda.RDA(
        units.UNITS,
        variant="exp-tanh",
        learn_initial_state=True,
        initial_state_initializer="random_normal",
        return_sequences=True,
    ),
    # The average can empty again to s0: the step model carries the output.
    "RDA relu, learned s0": lambda: keras_rda.RDA(
        units.UNITS,
        attention_activation="relu",
        learn_initial_state=True,
        initial_state_initializer="random_normal",
        return_sequences=True,
    ),
    "RWA": lambda: keras_rda.RWA(units.UNITS, return_sequences=True),
    "ParallelRDA": lambda: keras_rda.ParallelRDA(units.UNITS, return_sequences=True),
    "LSTM": lambda: keras.layers.LSTM(units.UNITS, return_sequences=True),
    "GRU": lambda: keras.layers.GRU(units.UNITS, return_sequences=True),
    "RNN(RDACell)": lambda: keras.layers.RNN(
        keras_rda.RDACell(units.UNITS), return_sequences=True
    ),
    "RNN(LayerNormLSTMCell)": lambda: keras.layers.RNN(
        keras_rda.LayerNormLSTMCell(units.UNITS), return_sequences=True
    ),
    "DNC uniform": units.CELLS["DNC uniform"],
}


def randomised(model, seed=0):
    """Weights from N(0, 0.5^2), biases included, as a trained model's."""
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign((0.5 * rng.randn(*weight.shape)).astype(weight.dtype))
    return model


def text_model(name, functional):
    """`tokens -> Embedding(mask_zero) -> unit -> RDA -> Dense`."""
    if not functional:
        return keras.Sequential(
            [
                keras.Input((None,), dtype="int32"),
                keras.layers.Embedding(VOCABULARY, 3, mask_zero=True),
                RECURRENT[name](),
                keras_rda.RDA(5, return_sequences=True),
                keras.layers.Dense(2),
            ]
        )
    tokens = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(VOCABULARY, 3, mask_zero=True)(tokens)
    h = RECURRENT[name]()(h)
    h = keras.layers.LSTM(3, return_sequences=True)(h)
    return keras.Model(tokens, keras.layers.Dense(2)(h))


@pytest.mark.parametrize("functional", [False, True], ids=["sequential", "functional"])
@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_a_padded_text_model_streams_equal_to_the_sequence_model(name, functional):
    model = randomised(text_model(name, functional))
    step = streaming.step_model(model)
    got, states = stream_keras(step, streaming.initial_states(step, 4), TOKENS)
    # Every step, padded ones included (the output Keras gives there).
    np.testing.assert_allclose(got, np.asarray(model(TOKENS)), atol=ATOL, rtol=1e-5)
    # A padding token keeps every state: the final states equal those of
    # the real tokens alone.
    for row in range(len(TOKENS)):
        real = TOKENS[row : row + 1][:, TOKENS[row] != 0]
        _, want = stream_keras(step, streaming.initial_states(step, 1), real)
        for a, b in zip(states, want):
            np.testing.assert_allclose(a[row : row + 1], b, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize(
    "name", ["RDA exp-tanh, learned s0", "ParallelRDA", "RDA relu, learned s0"]
)
def test_the_training_form_gives_the_outputs_at_padded_steps_too(name):
    # The held output from the training form's states (the cells'
    # `output_from_states`), not from the inference form's stream state.
    model = randomised(text_model(name, functional=False))
    step = streaming.step_model(model, inference_form=False)
    got, _ = stream_keras(step, streaming.initial_states(step, 4), TOKENS)
    np.testing.assert_allclose(got, np.asarray(model(TOKENS)), atol=ATOL, rtol=1e-5)


def test_zero_output_for_mask_gives_zeros_at_padded_steps():
    model = randomised(
        keras.Sequential(
            [
                keras.Input((None,), dtype="int32"),
                keras.layers.Embedding(VOCABULARY, 3, mask_zero=True),
                keras_rda.RDA(
                    units.UNITS, return_sequences=True, zero_output_for_mask=True
                ),
                keras.layers.LSTM(3, return_sequences=True, zero_output_for_mask=True),
            ]
        )
    )
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 4), TOKENS)
    want = np.asarray(model(TOKENS))
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=1e-5)
    assert np.all(got[TOKENS == 0] == 0.0)


@pytest.mark.parametrize("name", ["RDA", "ParallelRDA", "LSTM", "DNC uniform"])
def test_a_masking_layer_gives_the_sequence_models_outputs_at_every_step(name):
    model = randomised(
        keras.Sequential(
            [
                keras.Input((None, units.FEATURES)),
                keras.layers.Masking(0.0),
                RECURRENT[name](),
                keras.layers.Dense(2),
            ]
        )
    )
    x = np.random.RandomState(0).randn(4, 8, units.FEATURES).astype("float32")
    x[TOKENS == 0] = 0.0
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 4), x)
    np.testing.assert_allclose(got, np.asarray(model(x)), atol=ATOL, rtol=1e-5)


def test_the_last_output_of_a_padded_model():
    """`return_sequences=False` after padding: the step's output is the
    model's output on the sequence so far."""
    tokens = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(VOCABULARY, 3, mask_zero=True)(tokens)
    h = keras_rda.RDA(units.UNITS)(h)
    model = randomised(keras.Model(tokens, keras.layers.Dense(2)(h)))
    step = streaming.step_model(model)
    got, _ = stream_keras(step, streaming.initial_states(step, 4), TOKENS)
    for t in (1, 4, 7):
        want = np.asarray(model(TOKENS[:, : t + 1]))
        np.testing.assert_allclose(got[:, t], want, atol=ATOL, rtol=1e-5)


def test_an_explicit_mask_argument_is_a_clear_error():
    tokens = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(VOCABULARY, 3)(tokens)
    h = keras_rda.RDA(units.UNITS, return_sequences=True, name="rda_by_hand")(
        h, mask=keras.ops.not_equal(tokens, 0)
    )
    model = keras.Model(tokens, h)
    with pytest.raises(ValueError, match="rda_by_hand.*explicit `mask=`") as info:
        streaming.step_model(model)
    assert "mask_zero=True" in str(info.value) and "Masking" in str(info.value)


@pytest.mark.parametrize("name", ["RDA", "RWA", "ParallelRDA", "LSTM"])
def test_stream_and_sequence_states_convert_at_the_boundary(name):
    """A stream starts from a sequence layer's `return_state`, and its
    final state, handed back, is the sequence layer's `initial_state`."""
    layer = RECURRENT[name]()
    model = randomised(keras.Sequential([keras.Input((None, units.FEATURES)), layer]))
    step = streaming.step_model(model)
    layer.return_state = True  # the same layer, called on its own
    x = np.random.RandomState(0).randn(2, 12, units.FEATURES).astype("float32")
    _, *first = layer(x[:, :5])
    want, *want_states = layer(x[:, 5:], initial_state=first)
    got, states = stream_keras(step, streaming.stream_states(step, first), x[:, 5:])
    np.testing.assert_allclose(got, np.asarray(want), atol=ATOL, rtol=1e-5)
    handed = streaming.sequence_states(step, states)
    assert len(handed) == len(want_states)
    later = np.random.RandomState(1).randn(2, 4, units.FEATURES).astype("float32")
    continued, *_ = layer(later, initial_state=handed)
    expected, *_ = layer(later, initial_state=want_states)
    np.testing.assert_allclose(continued, expected, atol=ATOL, rtol=1e-5)
