"""The RDA and RWA sequence layers: equal to keras.layers.RNN(cell), and the
keras.layers.LSTM interface (masking, stateful, go_backwards, wrappers)."""

import keras
import numpy as np
import pytest

import keras_rda
from tests.cells import numpy_reference as ref
from tests.helpers import set_random_weights
from tests.layers.gradients import loss_and_gradients

UNITS = 6
LAYERS = {
    "rda": (keras_rda.RDA, keras_rda.RDACell, True),
    "rda-exp-tanh": (
        lambda units, **kw: keras_rda.RDA(units, variant="exp-tanh", **kw),
        lambda units, **kw: keras_rda.RDACell(units, variant="exp-tanh", **kw),
        True,
    ),
    "rwa": (keras_rda.RWA, keras_rda.RWACell, False),
}


def make_pair(name, input_dim, rng, **kwargs):
    """The fast layer and keras.layers.RNN over an equal cell, same weights."""
    layer_cls, cell_cls, _ = LAYERS[name]
    fast = layer_cls(UNITS, return_sequences=True, return_state=True, **kwargs)
    fast.build((None, None, input_dim))
    slow = keras.layers.RNN(
        cell_cls(UNITS, **kwargs), return_sequences=True, return_state=True
    )
    slow.build((None, None, input_dim))
    slow.set_weights(set_random_weights(fast, rng, scale=0.5))
    return fast, slow


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_equals_rnn_of_cell_outputs_states_and_gradients(name):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 15, 4)).astype(np.float32)
    fast, slow = make_pair(name, 4, rng)

    def loss_fn(outs):
        return keras.ops.sum(outs[0] ** 2) + keras.ops.sum(outs[1])

    fast_outs, _, fast_grads = loss_and_gradients(fast, x, loss_fn)
    slow_outs, _, slow_grads = loss_and_gradients(slow, x, loss_fn)
    assert len(fast_outs) == 5  # sequence, h, n, d, m
    for a, b in zip(fast_outs, slow_outs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(fast_grads, slow_grads):
        assert np.isfinite(a).all()
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_layer_matches_numpy_reference_with_shared_dropout_mask():
    """Input dropout uses one mask for the whole sequence (like Keras's
    cells): with the mask fixed, both paths equal the reference run on
    `x * mask` at every step."""
    rng = np.random.default_rng(1)
    params = ref.random_params(rng, 3, UNITS, discount=True)
    x = rng.normal(size=(2, 12, 3)).astype(np.float32)
    mask = (rng.random((2, 3)) > 0.5).astype(np.float32) / 0.5
    want, *_ = ref.run(params, x, True, "sigmoid", "linear", "linear", input_mask=mask)
    for layer in (
        keras_rda.RDA(UNITS, dropout=0.5, return_sequences=True),
        keras.layers.RNN(keras_rda.RDACell(UNITS, dropout=0.5), return_sequences=True),
    ):
        layer.build((None, None, 3))
        cell = layer.cell
        cell.set_weights(ref.to_keras_weights(params, 3, True))
        cell._dropout_mask = keras.ops.convert_to_tensor(mask)
        got = np.asarray(layer(x, training=True))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        assert cell._dropout_mask is None  # reset after the call: fresh per batch


@pytest.mark.parametrize("name", ["rda", "rwa"])
def test_dropout_is_active_only_in_training(name):
    layer_cls = LAYERS[name][0]
    layer = layer_cls(UNITS, dropout=0.5, recurrent_dropout=0.5, seed=1)
    x = np.random.default_rng(0).normal(size=(4, 10, 3)).astype(np.float32)
    inference = np.asarray(layer(x))
    np.testing.assert_array_equal(inference, np.asarray(layer(x)))
    training = np.asarray(layer(x, training=True))
    assert np.isfinite(training).all()
    assert not np.allclose(training, inference)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_masking_carries_state_and_repeats_output(name):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 9, 3)).astype(np.float32)
    mask = np.ones((2, 9), bool)
    mask[0, 3:5] = False  # a gap in the middle
    mask[1, 6:] = False  # trailing padding
    fast, slow = make_pair(name, 3, rng)
    out, h, *_ = (np.asarray(v) for v in fast(x, mask=mask))
    slow_out, slow_h, *_ = (np.asarray(v) for v in slow(x, mask=mask))
    # At real steps. (At masked steps Keras's JAX loop repeats the state h
    # rather than the output f_o(h); the layer repeats the output on every
    # backend, as Keras's TensorFlow loop does.)
    real = mask[..., None]
    np.testing.assert_allclose(out * real, slow_out * real, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, slow_h, rtol=1e-5, atol=1e-6)
    # Masked steps repeat the previous output (Keras's convention) ...
    np.testing.assert_array_equal(out[0, 3], out[0, 2])
    np.testing.assert_array_equal(out[0, 4], out[0, 2])
    np.testing.assert_array_equal(out[1, 8], out[1, 5])
    # ... and the state skips them: equal to running on the real steps only.
    _, h_short, *_ = (np.asarray(v) for v in fast(x[1:, :6]))
    np.testing.assert_allclose(h[1], h_short[0], rtol=1e-5, atol=1e-6)
    x_gap = np.concatenate([x[:1, :3], x[:1, 5:]], axis=1)
    out_gap, h_gap, *_ = (np.asarray(v) for v in fast(x_gap))
    np.testing.assert_allclose(h[0], h_gap[0], rtol=1e-5, atol=1e-6)


def test_masking_layer_in_a_model():
    x = np.random.default_rng(3).normal(size=(2, 7, 2)).astype(np.float32)
    x[1, 4:] = 0.0
    model = keras.Sequential(
        [keras.Input((None, 2)), keras.layers.Masking(0.0), keras_rda.RDA(UNITS)]
    )
    full = np.asarray(model(x))
    short = np.asarray(model(x[1:, :4]))
    np.testing.assert_allclose(full[1], short[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["rda", "rwa"])
def test_stateful_two_calls_equal_one_call_on_concatenation(name):
    rng = np.random.default_rng(4)
    layer_cls = LAYERS[name][0]
    x = rng.normal(size=(3, 10, 2)).astype(np.float32)
    whole = layer_cls(UNITS, return_sequences=True)
    whole.build((3, None, 2))
    weights = set_random_weights(whole, rng, scale=0.5)
    stateful = layer_cls(UNITS, return_sequences=True, stateful=True)
    stateful.build((3, None, 2))
    # The states were created from the s0 before set_weights; with d = 0 the
    # cell reads h_0 from the current s0, so no reset is needed.
    stateful.set_weights(weights)
    first = np.asarray(stateful(x[:, :4]))
    second = np.asarray(stateful(x[:, 4:]))
    expected = np.asarray(whole(x))
    np.testing.assert_allclose(
        np.concatenate([first, second], 1), expected, rtol=1e-5, atol=1e-6
    )
    # reset_state zeroes the state, which is the cell's initial state
    # (h0 = f_h(s0) if learned).
    stateful.reset_state()
    for state in stateful.states:
        np.testing.assert_array_equal(np.asarray(state), 0.0)
    np.testing.assert_allclose(np.asarray(stateful(x[:, :4])), first, rtol=1e-6)


@pytest.mark.parametrize("name", ["rda", "rwa"])
def test_go_backwards_equals_reversed_input(name):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 8, 3)).astype(np.float32)
    fast, _ = make_pair(name, 3, rng)
    backwards = LAYERS[name][0](
        UNITS, return_sequences=True, return_state=True, go_backwards=True
    )
    backwards.build((None, None, 3))
    backwards.set_weights(fast.get_weights())
    got = np.asarray(backwards(x)[0])
    want = np.asarray(fast(x[:, ::-1])[0])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_initial_state_argument():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 6, 3)).astype(np.float32)
    layer = keras_rda.RDA(UNITS, return_state=True)
    _, *state = layer(x[:, :3])
    out_resumed, *_ = layer(x[:, 3:], initial_state=state)
    out_whole, *_ = layer(x)
    np.testing.assert_allclose(
        np.asarray(out_resumed), np.asarray(out_whole), rtol=1e-5, atol=1e-6
    )


def test_bidirectional_and_stacked_cells():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 9, 3)).astype(np.float32)
    bi = keras.layers.Bidirectional(keras_rda.RDA(UNITS, return_sequences=True))
    out = np.asarray(bi(x))
    assert out.shape == (2, 9, 2 * UNITS) and np.isfinite(out).all()
    # The backward half equals the layer run on the reversed sequence.
    backward = bi.backward_layer
    forward_copy = keras_rda.RDA(UNITS, return_sequences=True)
    forward_copy.build((None, None, 3))
    forward_copy.set_weights(backward.get_weights())
    np.testing.assert_allclose(
        out[:, :, UNITS:],
        np.asarray(forward_copy(x[:, ::-1]))[:, ::-1],
        rtol=1e-5,
        atol=1e-6,
    )

    stacked = keras.layers.RNN(
        keras.layers.StackedRNNCells([keras_rda.RDACell(UNITS), keras_rda.RWACell(4)]),
        return_sequences=True,
    )
    out = np.asarray(stacked(x))
    assert out.shape == (2, 9, 4)
    first = keras.layers.RNN(keras_rda.RDACell(UNITS), return_sequences=True)
    second = keras.layers.RNN(keras_rda.RWACell(4), return_sequences=True)
    first.build((None, None, 3))
    second.build((None, None, UNITS))
    first.cell.set_weights(stacked.cell.cells[0].get_weights())
    second.cell.set_weights(stacked.cell.cells[1].get_weights())
    np.testing.assert_allclose(out, np.asarray(second(first(x))), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["rda", "rwa"])
def test_layer_config_round_trip(name):
    layer_cls = LAYERS[name][0]
    layer = layer_cls(
        5, return_sequences=True, dropout=0.1, go_backwards=True, name="unit"
    )
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    assert clone.cell.dropout == 0.1 and clone.go_backwards


def test_wrong_input_rank_names_the_argument():
    with pytest.raises(ValueError, match="argument `inputs`"):
        keras_rda.RDA(4)(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="argument `units`"):
        keras_rda.RWA(0)


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="only TensorFlow traces a layer on inputs of unknown width",
)
@pytest.mark.parametrize("name", ["rda", "rwa"])
def test_inputs_of_unknown_width_take_the_in_loop_projection(name, monkeypatch):
    """A `tf.data` pipeline of unknown shapes (every dimension None) gets the
    same loop as inputs of known width: the loop projects each step itself
    when the built kernel is narrow, and the outputs are the same."""
    import tensorflow as tf

    from keras_rda.ops import rda_recurrence

    asked = []
    original = rda_recurrence.projects_in_loop

    def spy(input_dim, units):
        asked.append(input_dim)
        return original(input_dim, units)

    monkeypatch.setattr(rda_recurrence, "projects_in_loop", spy)
    layer = LAYERS[name][0](UNITS)
    x = np.random.default_rng(0).normal(size=(3, 5, 2)).astype("float32")
    known = layer(x)
    unknown = tf.function(
        layer, input_signature=[tf.TensorSpec([None, None, None], tf.float32)]
    )(tf.constant(x))
    assert asked == [2, 2]
    np.testing.assert_allclose(unknown.numpy(), np.asarray(known), atol=1e-6)
