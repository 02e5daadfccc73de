"""FeedForwardAttention against a NumPy loop of Raffel & Ellis eq. 1."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_rda
from keras_rda.layers.feed_forward_attention import FeedForwardAttention
from tests.helpers import set_random_weights
from tests.layers.gradients import loss_and_gradients


def reference_attention(h, kernel, bias, mask=None, activation=np.tanh, vector=None):
    """Eq. 1, one sequence at a time, in float64.

    e_t = a(h_t), alpha = softmax over the real steps, c = sum_t alpha_t h_t;
    masked steps get alpha = 0, a sequence with no real step pools to 0.
    """
    h = np.asarray(h, np.float64)
    batch, time, features = h.shape
    if mask is None:
        mask = np.ones((batch, time), bool)
    contexts = np.zeros((batch, features))
    alphas = np.zeros((batch, time))
    for i in range(batch):
        real = np.flatnonzero(mask[i])
        if real.size == 0:
            continue
        scores = []
        for t in real:
            hidden = activation(h[i, t] @ kernel + bias)
            scores.append((hidden @ vector)[0] if vector is not None else hidden[0])
        scores = np.array(scores)
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        alphas[i, real] = weights
        contexts[i] = (weights[:, None] * h[i, real]).sum(axis=0)
    return contexts, alphas


def build(layer, h):
    outputs = layer(h)
    return [np.asarray(o) for o in outputs] if isinstance(outputs, tuple) else outputs


def test_paper_score_matches_numpy_reference(rng):
    h = rng.standard_normal((3, 7, 5)).astype(np.float32)
    layer = FeedForwardAttention(return_attention_scores=True)
    build(layer, h)
    kernel, bias = set_random_weights(layer, rng, scale=2.0)
    context, alpha = build(layer, h)
    ref_context, ref_alpha = reference_attention(h, kernel, bias)
    np.testing.assert_allclose(context, ref_context, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(alpha, ref_alpha, rtol=1e-5, atol=1e-7)
    assert kernel.shape == (5, 1) and bias.shape == (1,)


def test_hidden_layer_score_matches_numpy_reference(rng):
    h = rng.standard_normal((2, 6, 4)).astype(np.float32)
    layer = FeedForwardAttention(units=3, score_activation="relu")
    build(layer, h)
    kernel, bias, vector = set_random_weights(layer, rng)
    context = np.asarray(layer(h))
    ref_context, _ = reference_attention(
        h, kernel, bias, activation=lambda x: np.maximum(x, 0.0), vector=vector
    )
    np.testing.assert_allclose(context, ref_context, rtol=1e-5, atol=1e-6)


def test_linear_score_without_bias_matches_reference(rng):
    h = rng.standard_normal((2, 9, 3)).astype(np.float32)
    layer = FeedForwardAttention(score_activation=None, use_bias=False)
    build(layer, h)
    (kernel,) = set_random_weights(layer, rng)
    ref_context, _ = reference_attention(h, kernel, 0.0, activation=lambda x: x)
    np.testing.assert_allclose(np.asarray(layer(h)), ref_context, rtol=1e-5, atol=1e-6)


def test_default_initialisation_is_the_papers():
    layer = FeedForwardAttention(units=400)
    layer.build((None, None, 400))
    kernel, bias, _ = layer.get_weights()
    # N(0, 1/sqrt(fan_in)) with fan_in = 400: std 0.05 (160,000 draws).
    assert abs(kernel.std() - 0.05) < 0.05 * 0.02
    assert abs(kernel.mean()) < 0.001
    np.testing.assert_array_equal(bias, 0.0)


def test_kernel_and_score_vector_are_drawn_apart():
    """One `kernel_initializer` serves `W` and `v`: each is its own draw,
    not the same Gaussian values at another scale."""
    layer = FeedForwardAttention(units=400)
    layer.build((None, None, 400))
    kernel, _, score_vector = layer.get_weights()
    first = kernel.reshape(-1)[:400]
    correlation = np.corrcoef(first, score_vector.reshape(-1))[0, 1]
    assert abs(correlation) < 0.2  # independent: about N(0, 0.05)
    # v is [400, 1]: fan-in 400, std 0.05, as W's.
    assert abs(score_vector.std() - 0.05) < 0.05 * 0.15


def test_mask_properties(rng):
    h = rng.standard_normal((4, 8, 3)).astype(np.float32)
    mask = np.ones((4, 8), bool)
    mask[0, 5:] = False  # right padding
    mask[1, :3] = False  # left padding
    mask[2, ::2] = False  # holes
    mask[3, :] = False  # nothing real
    layer = FeedForwardAttention(return_attention_scores=True)
    build(layer, h)
    kernel, bias = set_random_weights(layer, rng, scale=3.0)
    context, alpha = (np.asarray(o) for o in layer(h, mask=mask))

    np.testing.assert_array_equal(alpha[~mask], 0.0)
    np.testing.assert_allclose(alpha[:3].sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(context[3], 0.0)
    assert np.all(np.isfinite(context)) and np.all(np.isfinite(alpha))
    ref_context, ref_alpha = reference_attention(h, kernel, bias, mask=mask)
    np.testing.assert_allclose(context, ref_context, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(alpha, ref_alpha, rtol=1e-5, atol=1e-7)

    # What sits under the mask does not matter.
    garbage = np.where(mask[:, :, None], h, 1e6).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(layer(garbage, mask=mask)[0]), context, atol=1e-6
    )


def test_mask_from_masking_layer_equals_truncated_sequence(rng):
    x = rng.uniform(0.1, 1.0, (2, 6, 2)).astype(np.float32)
    x[0, 4:] = 0.0
    inputs = keras.Input((None, 2))
    h = keras.layers.Dense(5, activation="tanh")(keras.layers.Masking(0.0)(inputs))
    model = keras.Model(inputs, FeedForwardAttention()(h))
    padded = np.asarray(model(x))
    np.testing.assert_allclose(padded[0], np.asarray(model(x[:1, :4]))[0], atol=1e-6)
    np.testing.assert_allclose(padded[1], np.asarray(model(x[1:]))[0], atol=1e-6)


def test_huge_scores_and_long_sequences_stay_finite(rng):
    time = 20000
    h = rng.standard_normal((2, time, 2)).astype(np.float32)
    h[0, 123] = [50.0, 0.0]  # one step that dominates
    mask = np.ones((2, time), bool)
    mask[1, time // 2 :] = False
    layer = FeedForwardAttention(score_activation=None, return_attention_scores=True)
    build(layer, h[:, :3])
    layer.set_weights([np.array([[1e36], [0.0]], np.float32), np.zeros(1, np.float32)])
    context, alpha = (np.asarray(o) for o in layer(h, mask=mask))
    # Scores up to 5e37: a plain softmax overflows, this one must not.
    assert np.all(np.isfinite(context)) and np.all(np.isfinite(alpha))
    np.testing.assert_allclose(alpha.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(context[0], h[0, 123], rtol=1e-6)
    assert alpha[0, 123] == pytest.approx(1.0)
    np.testing.assert_array_equal(alpha[1, time // 2 :], 0.0)


def test_gradients_are_finite(rng):
    h = rng.standard_normal((3, 50, 4)).astype(np.float32) * 100.0
    mask = np.ones((3, 50), bool)
    mask[1, 10:] = False
    mask[2, :] = False  # an all-masked row
    layer = FeedForwardAttention(score_activation=None)
    layer.build((None, None, 4))
    layer.set_weights([np.full((4, 1), 1e3, np.float32), np.zeros(1, np.float32)])
    _, _, grads = loss_and_gradients(layer, h, lambda c: keras.ops.sum(c**2), mask=mask)
    assert len(grads) == len(layer.trainable_weights) + 1
    for grad in grads:
        assert np.all(np.isfinite(grad))
    d_h = grads[-1]
    np.testing.assert_array_equal(d_h[2], 0.0)
    np.testing.assert_array_equal(d_h[1, 10:], 0.0)


def test_gradient_matches_finite_differences(rng):
    h = rng.standard_normal((1, 5, 3))
    layer = FeedForwardAttention()
    layer.build((None, None, 3))
    kernel, bias = set_random_weights(layer, rng)

    def numpy_loss(hh):
        return reference_attention(hh, kernel, bias)[0].sum()

    _, _, grads = loss_and_gradients(layer, h.astype(np.float32), keras.ops.sum)
    grad = grads[-1]
    eps = 1e-5
    numeric = np.zeros_like(h)
    for idx in np.ndindex(*h.shape):
        step = np.zeros_like(h)
        step[idx] = eps
        numeric[idx] = (numpy_loss(h + step) - numpy_loss(h - step)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-3, atol=1e-4)


def test_mixed_precision(rng):
    keras.config.set_dtype_policy("mixed_float16")
    h = rng.standard_normal((2, 300, 4)).astype(np.float32)
    mask = np.ones((2, 300), bool)
    mask[0, 100:] = False
    layer = FeedForwardAttention(return_attention_scores=True)
    build(layer, h)
    kernel, bias = set_random_weights(layer, rng)
    context, alpha = layer(h, mask=mask)
    assert keras.backend.standardize_dtype(context.dtype) == "float16"
    ref_context, ref_alpha = reference_attention(h, kernel, bias, mask=mask)
    np.testing.assert_allclose(np.asarray(context, np.float32), ref_context, atol=2e-3)
    np.testing.assert_allclose(np.asarray(alpha, np.float32), ref_alpha, atol=1e-4)


@pytest.mark.parametrize(
    "sequence_layer",
    [
        lambda: keras.layers.Dense(6, activation="relu"),
        lambda: keras.layers.Conv1D(6, 3, padding="causal"),
        lambda: keras.layers.LSTM(6, return_sequences=True),
        lambda: keras_rda.RDA(6, return_sequences=True),
    ],
    ids=["dense", "conv1d", "lstm", "rda"],
)
def test_works_after_any_sequence_layer(sequence_layer, rng):
    inputs = keras.Input((None, 3))
    h = sequence_layer()(inputs)
    context, alpha = FeedForwardAttention(units=4, return_attention_scores=True)(h)
    model = keras.Model(inputs, [keras.layers.Dense(1)(context), alpha])
    x = rng.standard_normal((2, 11, 3)).astype(np.float32)
    y, weights = (np.asarray(o) for o in model(x))
    assert y.shape == (2, 1) and weights.shape == (2, 11)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-6)


def test_masked_recurrent_layer_equals_truncated_sequence(rng):
    inputs = keras.Input((None, 2))
    h = keras_rda.RDA(4, return_sequences=True)(keras.layers.Masking(0.0)(inputs))
    model = keras.Model(inputs, FeedForwardAttention()(h))
    x = rng.uniform(0.1, 1.0, (1, 9, 2)).astype(np.float32)
    padded = np.concatenate([x, np.zeros((1, 5, 2), np.float32)], axis=1)
    np.testing.assert_allclose(
        np.asarray(model(padded)), np.asarray(model(x)), atol=1e-5
    )


def _model(rng):
    inputs = keras.Input((None, 2))
    h = keras.layers.Dense(4, activation="tanh")(keras.layers.Masking(0.0)(inputs))
    context, alpha = FeedForwardAttention(
        units=3, score_activation="sigmoid", return_attention_scores=True
    )(h)
    model = keras.Model(inputs, [keras.layers.Dense(1)(context), alpha])
    x = rng.uniform(0.1, 1.0, (3, 7, 2)).astype(np.float32)
    x[0, 4:] = 0.0
    return model, x


def test_save_and_load_round_trip(rng, tmp_path):
    model, x = _model(rng)
    expected = [np.asarray(o) for o in model(x)]
    path = tmp_path / "ffa.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    for got, want in zip(loaded(x), expected):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-7)
    layer = loaded.layers[3]
    assert isinstance(layer, FeedForwardAttention)
    assert layer.get_config()["units"] == 3
    assert layer.get_config()["score_activation"] == "sigmoid"


def test_export_round_trip(rng, tmp_path):
    model, x = _model(rng)
    expected = [np.asarray(o) for o in model(x)]
    path = str(tmp_path / "ffa_saved_model")
    model.export(path, verbose=False)
    restored = tf.saved_model.load(path)
    got = restored.serve(tf.constant(x))
    for out, want in zip(got, expected):
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6, atol=1e-7)


def test_config_round_trip():
    layer = FeedForwardAttention(
        units=7,
        score_activation="relu",
        return_attention_scores=True,
        use_bias=False,
        kernel_initializer="orthogonal",
        kernel_regularizer="l2",
        name="pool",
    )
    clone = FeedForwardAttention.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    restored = keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(layer)
    )
    assert isinstance(restored, FeedForwardAttention)
    assert restored.units == 7 and restored.return_attention_scores


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"units": 0}, "units"),
        ({"units": -3}, "units"),
        ({"units": 2.5}, "units"),
        ({"units": True}, "units"),
        ({"score_activation": "no-such-activation"}, "score_activation"),
        ({"score_activation": 3}, "score_activation"),
        ({"return_attention_scores": "yes"}, "return_attention_scores"),
    ],
)
def test_bad_arguments(kwargs, argument):
    with pytest.raises(ValueError, match=f"argument `{argument}`"):
        FeedForwardAttention(**kwargs)


@pytest.mark.parametrize("shape", [(None, 4), (None, 3, 4, 5), (None, 3, None)])
def test_bad_input_shapes(shape):
    with pytest.raises(ValueError, match="argument `inputs`"):
        FeedForwardAttention().build(shape)
