"""DNCCell: one step against NumPy, DeepMind-style invariants, controllers."""

import keras
import numpy as np
import pytest

import keras_rda
from tests.layers.gradients import loss_and_gradients
from tests.memory import numpy_reference as ref
from tests.memory.helpers import np_
from tests.memory.helpers import parts
from tests.memory.helpers import run_steps


def _random_dnc_state(cell, rng, batch):
    """A valid, non-trivial flat state for a one-write-head DNC."""
    n, w, r = cell.memory_size, cell.word_size, cell.num_read_heads

    def dist(*shape, scale=1.0):
        x = rng.random(shape)
        return scale * x / x.sum(-1, keepdims=True)

    link = np.zeros((batch, 1, n, n))
    prec = np.zeros((batch, 1, n))
    for _ in range(3):  # a valid link matrix from a few writes
        ww = dist(batch, 1, n, scale=0.8)
        for b in range(batch):
            link[b, 0] = ref.link_update(link[b, 0], prec[b, 0], ww[b, 0])
            prec[b, 0] = ref.precedence_update(prec[b, 0], ww[b, 0])
    state = cell.get_initial_state(batch_size=batch)
    values = [
        rng.normal(size=(batch, n * w)),
        rng.random((batch, n)),
        link.reshape(batch, -1),
        prec.reshape(batch, -1),
        dist(batch, r, n).reshape(batch, -1),
        dist(batch, 1, n, scale=0.7).reshape(batch, -1),
        rng.normal(size=(batch, r * w)),
    ]
    controller = [rng.normal(size=(batch, s)) for s in cell._controller_flat_sizes]
    flat = list(state[:2]) + controller + values
    return [keras.ops.convert_to_tensor(v, "float32") for v in flat]


@pytest.mark.parametrize("clip_value", [None, 0.4], ids=["unclipped", "clipped"])
def test_one_step_matches_numpy_reference(clip_value, rng):
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(6), 5, 4, num_read_heads=2, clip_value=clip_value
    )
    cell.build((None, 3))
    # Non-zero biases so that the interface is not symmetric.
    cell.interface.bias.assign(rng.normal(size=cell.interface.bias.shape))
    batch = 2
    state = _random_dnc_state(cell, rng, batch)
    x = rng.normal(size=(batch, 3)).astype("float32")
    out, new_state = cell(x, state)
    got = parts(cell, new_state)
    old = parts(cell, state)

    reads_prev = old["read_vectors"].reshape(batch, -1)
    controller_out, _ = cell.controller(
        np.concatenate([x, reads_prev], -1).astype("float32"),
        [keras.ops.convert_to_tensor(s) for s in old["controller"]],
    )
    controller_out = np_(controller_out)
    xi = controller_out @ np_(cell.interface.kernel) + np_(cell.interface.bias)
    if clip_value is not None:  # the authors' code's clip of xi_t and y_t
        assert np.abs(xi).max() > clip_value  # the clip acts
        xi = np.clip(xi, -clip_value, clip_value)
    for b in range(batch):
        prev = {
            "memory": old["memory"][b],
            "usage": old["usage"][b],
            "link": old["link"][b, 0],
            "precedence": old["precedence"][b, 0],
            "read_weights": old["read_weights"][b],
            "write_weights": old["write_weights"][b, 0],
        }
        want, reads = ref.dnc_access(xi[b], prev, R=2, W=4)
        np.testing.assert_allclose(got["memory"][b], want["memory"], atol=1e-5)
        np.testing.assert_allclose(got["usage"][b], want["usage"], atol=1e-5)
        np.testing.assert_allclose(got["link"][b, 0], want["link"], atol=1e-5)
        np.testing.assert_allclose(
            got["precedence"][b, 0], want["precedence"], atol=1e-5
        )
        np.testing.assert_allclose(
            got["read_weights"][b], want["read_weights"], atol=1e-5
        )
        np.testing.assert_allclose(
            got["write_weights"][b, 0], want["write_weights"], atol=1e-5
        )
        np.testing.assert_allclose(got["read_vectors"][b], reads, atol=1e-5)
        y = np.concatenate([controller_out[b], reads.reshape(-1)])
        y = y @ np_(cell.output_projection.kernel) + np_(cell.output_projection.bias)
        if clip_value is not None:
            y = np.clip(y, -clip_value, clip_value)
        np.testing.assert_allclose(np_(out)[b], y, atol=1e-5)
    np.testing.assert_array_equal(got["step"], 1)


def test_invariants_over_a_sequence(rng):
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(8), 5, 3, num_read_heads=2, num_write_heads=2
    )
    cell.build((None, 4))
    x = rng.normal(size=(3, 12, 4)).astype("float32") * 3
    _, states = run_steps(cell, x)
    for state in states[1:]:
        p = parts(cell, state)
        assert np.all(p["usage"] >= 0) and np.all(p["usage"] <= 1 + 1e-6)
        link = p["link"]
        np.testing.assert_array_equal(np.diagonal(link, axis1=-2, axis2=-1), 0.0)
        assert np.all(link >= -1e-6)
        assert np.all(link.sum(-1) <= 1 + 1e-5) and np.all(link.sum(-2) <= 1 + 1e-5)
        assert np.all(p["precedence"].sum(-1) <= 1 + 1e-5)
        assert np.all(p["read_weights"] >= -1e-6)
        assert np.all(p["read_weights"].sum(-1) <= 1 + 1e-5)
        assert np.all(p["write_weights"].sum(-1) <= 1 + 1e-5)
    assert np.any(parts(cell, states[-1])["memory"] != 0)


def test_allocation_writes_into_the_least_used_slot():
    cell = keras_rda.DNCCell(keras.layers.SimpleRNNCell(4), 4, 3)
    cell.build((None, 2))
    split = cell._interface_split()
    offsets, start = {}, 0
    for name, shape in split.items():
        size = int(np.prod(shape))
        offsets[name] = (start, start + size)
        start += size
    # Interface bias: write gate and allocation gate fully open, no freeing.
    bias = np.zeros(start, "float32")
    for name, value in [
        ("write_gates", 20.0),
        ("allocation_gates", 20.0),
        ("free_gates", -20.0),
    ]:
        lo, hi = offsets[name]
        bias[lo:hi] = value
    cell.interface.kernel.assign(np.zeros_like(np_(cell.interface.kernel)))
    cell.interface.bias.assign(bias)
    state = cell.get_initial_state(batch_size=1)
    flat = list(state)
    usage_index = 2 + 1 + 1  # step (2), controller (1), memory (1)
    flat[usage_index] = keras.ops.convert_to_tensor([[0.9, 0.95, 0.2, 0.99]])
    _, new_state = cell(np.zeros((1, 2), "float32"), flat)
    ww = parts(cell, new_state)["write_weights"][0, 0]
    assert np.argmax(ww) == 2 and ww[2] > 0.75


def test_a_step_in_builtin_forms_takes_no_cumprod_and_gives_the_same(rng, monkeypatch):
    """`builtin_forms=True` reaches the allocation (`inference_call`, the
    streaming step model's call): the same step without `ops.cumprod`, which
    LiteRT runs only as a TensorFlow (Flex) op."""
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(6), 5, 4, num_read_heads=2)
    cell.build((None, 3))
    cell.interface.bias.assign(rng.normal(size=cell.interface.bias.shape))
    state = _random_dnc_state(cell, rng, 2)
    x = rng.normal(size=(2, 3)).astype("float32")
    want_out, want_state = cell(x, state)

    def no_cumprod(*args, **kwargs):
        raise AssertionError("ops.cumprod in the builtin forms")

    monkeypatch.setattr(keras.ops, "cumprod", no_cumprod)
    with pytest.raises(AssertionError, match="cumprod"):
        cell(x, state)
    out, new_state = cell.inference_call(x, state)
    np.testing.assert_allclose(np_(out), np_(want_out), rtol=1e-5, atol=1e-6)
    for got, want in zip(new_state, want_state):
        np.testing.assert_allclose(np_(got), np_(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "controller",
    [
        lambda: keras.layers.LSTMCell(5),
        lambda: keras.layers.GRUCell(5),
        lambda: keras.layers.SimpleRNNCell(5),
        lambda: keras_rda.RDACell(5),
    ],
    ids=["lstm", "gru", "simple_rnn", "rda"],
)
def test_controllers_give_finite_gradients_in_rnn_layer(controller, rng):
    cell = keras_rda.DNCCell(
        controller(), 4, 3, write_schedule=keras_rda.UniformWriting(interval=2)
    )
    layer = keras.layers.RNN(cell)
    x = rng.normal(size=(2, 4, 2)).astype("float32")
    layer(x)
    _, loss, grads = loss_and_gradients(
        layer, x, lambda y: keras.ops.sum(keras.ops.square(y))
    )
    assert np.isfinite(loss)
    assert len(grads) == len(layer.trainable_weights) + 1  # and the inputs'
    assert all(np.all(np.isfinite(g)) for g in grads)
    controller_weights = {id(w) for w in cell.controller.trainable_weights}
    assert controller_weights <= {id(w) for w in layer.trainable_weights}


def test_trains_with_model_fit(rng):
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(4),
        3,
        2,
        write_schedule=keras_rda.CachedUniformWriting(2, encoding_steps=4),
    )
    model = keras.Sequential(
        [keras.Input((6, 2)), keras.layers.RNN(cell), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(0.05), "mse")
    x, y = rng.normal(size=(8, 6, 2)), rng.normal(size=(8, 1))
    history = model.fit(x, y, epochs=5, batch_size=8, verbose=0)
    losses = history.history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]


def test_zero_memory_and_zero_inputs_give_finite_gradients():
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(4), 4, 3, num_read_heads=2)
    layer = keras.layers.RNN(cell, return_sequences=True)
    x = np.zeros((2, 5, 3), "float32")
    layer(x)
    _, loss, grads = loss_and_gradients(layer, x, keras.ops.sum)
    assert np.isfinite(loss)
    assert len(grads) == len(layer.trainable_weights) + 1  # and the inputs'
    assert all(np.all(np.isfinite(g)) for g in grads)


def test_long_sequence_and_large_inputs_stay_finite(rng):
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(4), 3, 2)
    layer = keras.layers.RNN(cell, return_sequences=True)
    x = rng.normal(size=(2, 300, 2)).astype("float32") * 100
    model = keras.Sequential([keras.Input((None, 2)), layer])
    outputs = model.predict_on_batch(x)  # compiled by Keras on every backend
    assert outputs.shape[:2] == (2, 300) and np.all(np.isfinite(outputs))


def test_mixed_precision_runs_and_keeps_the_step_exact(rng):
    keras.config.set_dtype_policy("mixed_float16")
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(4),
        3,
        2,
        write_schedule=keras_rda.UniformWriting(interval=3),
    )
    layer = keras.layers.RNN(cell, return_sequences=True, return_state=True)
    out, *_ = layer(rng.normal(size=(1, 5, 2)).astype("float32"))
    assert keras.backend.standardize_dtype(out.dtype) == "float16"
    assert np.all(np.isfinite(np_(out)))
    # Beyond float16's exact integers (2048) the step counter stays exact.
    state = list(cell.get_initial_state(batch_size=1))
    state[0] = keras.ops.convert_to_tensor([[2046 % 128]], "float16")
    state[1] = keras.ops.convert_to_tensor([[2046 // 128]], "float16")
    memory_before = np_(cell.unpack_states(state).access.memory)
    for _ in range(3):
        _, state = cell(keras.ops.ones((1, 2), "float16"), state)
        if int(np_(cell.unpack_states(state).step)[0]) == 2048:
            np.testing.assert_array_equal(  # 2047, 2048: no access
                np_(cell.unpack_states(state).access.memory), memory_before
            )
    np.testing.assert_array_equal(np_(cell.unpack_states(state).step), 2049)
    assert np.any(np_(cell.unpack_states(state).access.memory) != memory_before)


def test_dnc_state_and_output_sizes():
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(7),
        5,
        3,
        num_read_heads=2,
        num_write_heads=2,
        output_units=9,
    )
    n, w, r, h = 5, 3, 2, 2
    assert cell.output_size == 9
    assert cell.state_size == [
        1,
        1,
        7,
        7,
        n * w,
        n,
        h * n * n,
        h * n,
        r * n,
        h * n,
        r * w,
    ]
