"""`BaseMemoryCell.steps_without_access`, the static path's stretches between
writes, against the cell's own `step` with no access, step by step."""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.memory import CachedUniformWriting
from tests.memory.helpers import np_


class _LSTMCellSubclass(keras.layers.LSTMCell):
    """Not fused: the stretch calls the controller on `[x_t, r]`."""


CONTROLLERS = {
    "lstm": lambda: keras.layers.LSTMCell(5),  # Keras's gates, held reads fused
    "lstm_subclass": lambda: _LSTMCellSubclass(5),
    "gru": lambda: keras.layers.GRUCell(5),  # one state tensor, not a list
}
CELLS = {"dnc": keras_rda.DNCCell, "ntm": keras_rda.NTMCell}
BATCH, INPUT_DIM, START, LENGTH = 2, 3, 4, 5


def _cell(kind, controller, cache_size, rng):
    cell = CELLS[kind](
        CONTROLLERS[controller](),
        memory_size=4,
        word_size=3,
        num_read_heads=2,
        write_schedule=CachedUniformWriting(cache_size) if cache_size else "regular",
    )
    cell.build((None, INPUT_DIM))
    for weight in cell.weights:
        weight.assign(0.5 * rng.normal(size=weight.shape))
    return cell


def _state_after_some_accesses(cell, rng):
    """The `MemoryState` after `START` steps that access memory."""
    state = cell.unpack_states(cell.get_initial_state(batch_size=BATCH))
    for _ in range(START):
        x = keras.ops.convert_to_tensor(rng.normal(size=(BATCH, INPUT_DIM)), "float32")
        _, state = cell.step(x, state, state.step + 1, access=True, attend=False)
    return state


def _flat(state):
    return [np_(v) for v in keras.tree.flatten(state) if v is not None]


@pytest.mark.parametrize("cache_size", [None, 3], ids=["no_cache", "cache_3"])
@pytest.mark.parametrize("controller", list(CONTROLLERS))
@pytest.mark.parametrize("kind", list(CELLS))
def test_stretch_equals_steps_without_access(kind, controller, cache_size, rng):
    # From step START + 1 = 5 over 5 steps, so the cache of 3 wraps and some
    # slots are written twice.
    cell = _cell(kind, controller, cache_size, rng)
    state = _state_after_some_accesses(cell, rng)
    x = rng.normal(size=(LENGTH, BATCH, INPUT_DIM)).astype("float32")
    got, got_state = cell.steps_without_access(
        keras.ops.convert_to_tensor(x), state, START
    )
    want = []
    want_state = state
    for t in range(LENGTH):
        feature, want_state = cell.step(
            keras.ops.convert_to_tensor(x[t]),
            want_state,
            want_state.step + 1,
            access=False,
            attend=False,
            project=False,
        )
        want.append(np_(feature))
    np.testing.assert_allclose(np_(got), np.stack(want), rtol=1e-5, atol=1e-6)
    for a, b in zip(_flat(got_state), _flat(want_state)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert np.all(np_(got_state.step) == START + LENGTH)
