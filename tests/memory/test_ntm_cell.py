"""NTMCell: one step against NumPy, weight normalisation, finite gradients."""

import keras
import numpy as np
import pytest

import keras_rda
from tests.layers.gradients import loss_and_gradients
from tests.memory import numpy_reference as ref
from tests.memory.helpers import np_
from tests.memory.helpers import parts
from tests.memory.helpers import run_steps


@pytest.mark.parametrize("shift_range", [1, 2])
def test_one_step_matches_numpy_reference(rng, shift_range):
    cell = keras_rda.NTMCell(
        keras.layers.GRUCell(6), 5, 4, num_read_heads=2, shift_range=shift_range
    )
    cell.build((None, 3))
    cell.interface.bias.assign(rng.normal(size=cell.interface.bias.shape))
    batch = 2
    state = cell.get_initial_state(batch_size=batch)

    def dist(*shape):
        x = rng.random(shape)
        return x / x.sum(-1, keepdims=True)

    flat = list(state[:2]) + [
        rng.normal(size=(batch, 6)),
        rng.normal(size=(batch, 20)),
        dist(batch, 2, 5).reshape(batch, -1),
        dist(batch, 1, 5).reshape(batch, -1),
        rng.normal(size=(batch, 8)),
    ]
    flat = [keras.ops.convert_to_tensor(v, "float32") for v in flat]
    x = rng.normal(size=(batch, 3)).astype("float32")
    out, new_state = cell(x, flat)
    old, got = parts(cell, flat), parts(cell, new_state)
    reads_prev = old["read_vectors"].reshape(batch, -1)
    controller_out, _ = cell.controller(
        np.concatenate([x, reads_prev], -1),
        [keras.ops.convert_to_tensor(old["controller"][0])],
    )
    controller_out = np_(controller_out)
    xi = controller_out @ np_(cell.interface.kernel) + np_(cell.interface.bias)
    for b in range(batch):
        prev = {k: old[k][b] for k in ("memory", "read_weights", "write_weights")}
        want, reads = ref.ntm_access(xi[b], prev, R=2, W=4, S=shift_range)
        for key in ("memory", "read_weights", "write_weights"):
            np.testing.assert_allclose(got[key][b], want[key], atol=1e-5)
        np.testing.assert_allclose(got["read_vectors"][b], reads, atol=1e-5)
        y = np.concatenate([controller_out[b], reads.reshape(-1)])
        y = y @ np_(cell.output_projection.kernel) + np_(cell.output_projection.bias)
        np.testing.assert_allclose(np_(out)[b], y, atol=1e-5)


def test_weights_are_distributions_over_a_sequence(rng):
    cell = keras_rda.NTMCell(keras.layers.LSTMCell(6), 4, 3, num_read_heads=2)
    cell.build((None, 2))
    _, states = run_steps(cell, rng.normal(size=(2, 10, 2)).astype("float32") * 5)
    for state in states[1:]:
        p = parts(cell, state)
        for key in ("read_weights", "write_weights"):
            assert np.all(p[key] >= 0)
            np.testing.assert_allclose(p[key].sum(-1), 1.0, atol=1e-4)


def test_zero_memory_gives_finite_gradients():
    cell = keras_rda.NTMCell(keras.layers.LSTMCell(4), 4, 3)
    layer = keras.layers.RNN(cell)
    x = np.zeros((2, 5, 2), "float32")
    layer(x)
    _, loss, grads = loss_and_gradients(layer, x, keras.ops.sum)
    assert np.isfinite(loss)
    assert len(grads) == len(layer.trainable_weights) + 1  # and the inputs'
    assert all(np.all(np.isfinite(g)) for g in grads)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"memory_size": 0},
        {"word_size": -1},
        {"num_read_heads": 0},
        {"shift_range": -1},
        {"shift_range": 2, "memory_size": 4},
        {"controller": "lstm"},
        {"output_units": 0},
        {"clip_value": 0},
        {"clip_value": -20.0},
        {"clip_value": "20"},
    ],
)
def test_bad_arguments(kwargs):
    args = {"controller": keras.layers.LSTMCell(2), "memory_size": 4, "word_size": 2}
    args.update(kwargs)
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=f"Received an invalid value.*`{name}`"):
        keras_rda.NTMCell(**args)


def test_dnc_bad_write_heads():
    with pytest.raises(ValueError, match="num_write_heads"):
        keras_rda.DNCCell(keras.layers.LSTMCell(2), 4, 2, num_write_heads=0)
