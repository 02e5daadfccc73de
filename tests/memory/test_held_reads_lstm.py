"""`held_reads_lstm`: the copy of `keras.layers.LSTMCell`'s gates that the
memory layers' stretches between writes use, tied to `LSTMCell` itself.

These tests run on the backend in `KERAS_BACKEND` (TensorFlow, JAX and
PyTorch in CI), so a change of Keras's gates or kernel layout on any backend
fails here rather than changing a DNC's numbers silently.
"""

import keras
import numpy as np
import pytest

from keras_rda.memory.held_reads_lstm import lstm_step_with_held_reads
from tests.memory.helpers import np_

INPUT_DIM, READ_SIZE, BATCH = 3, 8, 2


def _controller(rng, **settings):
    controller = keras.layers.LSTMCell(5, **settings)
    controller.build((None, INPUT_DIM + READ_SIZE))
    for weight in controller.weights:
        weight.assign(0.5 * rng.normal(size=weight.shape))
    return controller


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"use_bias": False},
        {"activation": "softsign", "recurrent_activation": "hard_sigmoid"},
        {"implementation": 1},
    ],
    ids=["defaults", "no_bias", "activations", "implementation_1"],
)
def test_step_equals_lstm_cell_on_inputs_and_held_reads(settings, rng):
    controller = _controller(rng, **settings)
    reads = rng.normal(size=(BATCH, READ_SIZE)).astype("float32")
    step = lstm_step_with_held_reads(controller, keras.ops.convert_to_tensor(reads))
    states = [rng.normal(size=(BATCH, 5)).astype("float32") for _ in range(2)]
    for _ in range(3):
        x = rng.normal(size=(BATCH, INPUT_DIM)).astype("float32")
        want, want_states = controller(np.concatenate([x, reads], -1), states)
        got, got_states = step(keras.ops.convert_to_tensor(x), states)
        for a, b in zip([got, *got_states], [want, *want_states]):
            np.testing.assert_allclose(np_(a), np_(b), rtol=1e-5, atol=1e-6)
        states = [np_(s) for s in want_states]


def test_step_equals_lstm_cell_under_mixed_precision(rng):
    controller = _controller(rng, dtype="mixed_float16")
    reads = rng.normal(size=(BATCH, READ_SIZE)).astype("float32")
    step = lstm_step_with_held_reads(controller, keras.ops.convert_to_tensor(reads))
    states = [rng.normal(size=(BATCH, 5)).astype("float16") for _ in range(2)]
    x = rng.normal(size=(BATCH, INPUT_DIM)).astype("float16")
    want, want_states = controller(
        np.concatenate([x, reads.astype("float16")], -1), states
    )
    got, got_states = step(keras.ops.convert_to_tensor(x), states)
    for a, b in zip([got, *got_states], [want, *want_states]):
        assert keras.backend.standardize_dtype(a.dtype) == "float16"
        np.testing.assert_allclose(np_(a), np_(b), atol=5e-3)


class _LSTMCellSubclass(keras.layers.LSTMCell):
    pass


@pytest.mark.parametrize(
    "controller",
    [
        keras.layers.LSTMCell(5, dropout=0.3),
        keras.layers.LSTMCell(5, recurrent_dropout=0.3),
        _LSTMCellSubclass(5),
        keras.layers.GRUCell(5),
    ],
    ids=["dropout", "recurrent_dropout", "subclass", "gru"],
)
def test_other_controllers_are_left_to_their_own_call(controller):
    # Dropout masks, a subclass's own `call` or another cell's gates: the
    # stretch calls the controller on `[x_t, r]` instead.
    controller.build((None, INPUT_DIM + READ_SIZE))
    reads = keras.ops.ones((BATCH, READ_SIZE))
    assert lstm_step_with_held_reads(controller, reads) is None
