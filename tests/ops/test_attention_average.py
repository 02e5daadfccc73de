"""Numerics of the running average: no overflow, underflow, 0/0, NaN or inf."""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.ops import attention_average
from tests.cells import numpy_reference as ref
from tests.layers.gradients import loss_and_gradients
from tests.layers.gradients import value_and_grad


def scaled_weights(layer, rng, input_dim, discount, scale):
    """Random weights whose logits are of order `scale` for unit inputs."""
    params = ref.random_params(rng, input_dim, layer.cell.units, discount, scale=scale)
    layer.build((None, None, input_dim))
    layer.cell.set_weights(
        ref.to_keras_weights(params, input_dim, discount)
        + (
            [np.zeros(layer.cell.units, np.float32)]
            if layer.cell.learn_initial_state
            else []
        )
    )
    return params


@pytest.mark.parametrize(
    "attention,discount",
    [
        ("exp", True),
        ("sigmoid", True),
        ("softplus", True),
        ("relu", True),
        ("exp", False),
    ],
)
def test_beyond_float32_range_equals_float64_plain_formula(attention, discount):
    """Attention logits of a few hundred: exp() overflows float32 (and
    sigmoid underflows), yet the float64 plain equations are finite; the
    float32 layer must agree with them."""
    rng = np.random.default_rng(11)
    units = 4
    if discount:
        layer = keras_rda.RDA(
            units, attention_activation=attention, return_sequences=True
        )
    else:
        layer = keras_rda.RWA(units, learn_initial_state=False, return_sequences=True)
    params = scaled_weights(layer, rng, 2, discount, scale=0.5)
    params["b_a"] = params["b_a"] + 300.0 * rng.choice([-1.0, 1.0], units)
    layer.cell.set_weights(ref.to_keras_weights(params, 2, discount))
    x = rng.normal(size=(3, 30, 2)).astype(np.float32)
    hidden = "linear" if discount else "tanh"
    want, *_ = ref.run(params, x, discount, attention, hidden, "linear")
    assert np.isfinite(want).all()
    got = np.asarray(layer(x))
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)


LONG_CASES = [
    (
        "rda-exp",
        lambda: keras_rda.RDA(3, variant="exp-tanh", return_sequences=True),
        True,
    ),
    ("rda-sigmoid", lambda: keras_rda.RDA(3, return_sequences=True), True),
    (
        "rda-relu",
        lambda: keras_rda.RDA(3, attention_activation="relu", return_sequences=True),
        True,
    ),
    (
        "rda-softplus",
        lambda: keras_rda.RDA(
            3, attention_activation="softplus", return_sequences=True
        ),
        True,
    ),
    ("rwa", lambda: keras_rda.RWA(3, return_sequences=True), False),
]


@pytest.mark.parametrize(
    "name,make,discount", LONG_CASES, ids=[c[0] for c in LONG_CASES]
)
def test_ten_thousand_steps_with_huge_logits_finite_outputs_and_gradients(
    name, make, discount
):
    rng = np.random.default_rng(12)
    layer = make()
    params = scaled_weights(layer, rng, 2, discount, scale=1.0)
    # Logits in the thousands, of both signs, changing from step to step.
    weights = layer.cell.get_weights()
    weights[0] = weights[0] * 2000.0
    weights[2] = weights[2] * 1000.0
    layer.cell.set_weights(weights)
    del params
    x = rng.normal(size=(2, 10_000, 2)).astype(np.float32)
    # XLA: the 10,000-step loop in seconds.
    (y,), _, grads = loss_and_gradients(layer, x, keras.ops.mean, jit=True)
    assert np.isfinite(y).all()
    assert len(grads) == len(layer.trainable_weights) + 1
    for g in grads:
        assert np.isfinite(g).all()
    # The unit still responds to its input at the end of the sequence.
    assert y[:, -100:].std() > 0


def test_discount_to_zero_and_tiny_attention_do_not_make_zero_over_zero():
    """gamma -> 0 every step with sigmoid attention of e^-120: in float32
    d_t = gamma d + a underflows to exactly 0; the scaled form keeps d >= 1."""
    n = d = m = keras.ops.zeros((1, 2))
    z = keras.ops.convert_to_tensor([[0.3, -0.7]])
    for _ in range(50):
        log_a, positive = attention_average.log_attention(
            keras.ops.full((1, 2), -120.0), "sigmoid"
        )
        n, d, m = attention_average.discounted_average_update(
            n,
            d,
            m,
            z,
            log_a,
            log_gamma=keras.ops.full((1, 2), -200.0),
            positive=positive,
        )
        assert (keras.ops.convert_to_numpy(d) >= 1.0).all()
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(attention_average.weighted_average(n, d)),
        [[0.3, -0.7]],
        rtol=1e-6,
    )


def test_relu_with_no_attention_yet_gives_zero_average_and_finite_gradient():
    z = np.array([[1.0, 2.0, 3.0]], np.float32)
    logits = np.array([[-1.0, 0.0, 2.0]], np.float32)

    def average(logits):
        n = d = m = keras.ops.zeros((1, 3))
        log_a, positive = attention_average.log_attention(logits, "relu")
        n2, d2, _ = attention_average.discounted_average_update(
            n, d, m, keras.ops.convert_to_tensor(z), log_a, positive=positive
        )
        return attention_average.weighted_average(n2, d2)

    avg = keras.ops.convert_to_numpy(average(keras.ops.convert_to_tensor(logits)))
    np.testing.assert_allclose(avg, [[0.0, 0.0, 3.0]])
    loss, (grad,) = value_and_grad(lambda lg: keras.ops.sum(average(lg)), logits)
    assert loss == pytest.approx(3.0)
    assert grad.shape == (1, 3) and np.isfinite(grad).all()


def test_attended_and_safe_denominator_equal_the_comparisons_they_replace():
    """`sign`-based forms of `d > 0` and `where(d > 0, d, 1)`, exact for
    every normal `d >= 0` up to the largest float32, and `n /
    safe_denominator(d)` has the plain quotient's derivative at d = 1.
    (Denormals, which the CPU backends flush to zero in comparisons as in
    `sign`, agree with the backend's own `d > 0`.)"""
    d = np.array([0.0, 1.2e-38, 0.5, 1.0, 1.0 + 2**-23, 3.0, 1e30, 3.4e38], np.float32)
    tensor = keras.ops.convert_to_tensor(d)
    attended = keras.ops.convert_to_numpy(attention_average.attended(tensor))
    np.testing.assert_array_equal(attended, d > 0)
    divisor = keras.ops.convert_to_numpy(attention_average.safe_denominator(tensor))
    np.testing.assert_array_equal(divisor, np.where(d > 0, d, 1.0))
    denormal = keras.ops.convert_to_tensor(np.array([1e-45, 1e-38], np.float32))
    np.testing.assert_array_equal(
        keras.ops.convert_to_numpy(attention_average.attended(denormal)),
        keras.ops.convert_to_numpy(keras.ops.greater(denormal, 0.0)),
    )

    n = np.float32(3.0)
    quotient, (grad,) = value_and_grad(
        lambda x: keras.ops.sum(n / attention_average.safe_denominator(x)),
        np.array([1.0, 2.0], np.float32),
    )
    assert quotient == pytest.approx(3.0 + 1.5)
    np.testing.assert_allclose(grad, [-3.0, -0.75], rtol=1e-6)


def test_softplus_log_is_accurate_far_in_the_tail():
    x = np.array([-500.0, -40.0, -20.5, -19.5, 0.0, 30.0], np.float32)
    got, _ = attention_average.log_attention(keras.ops.convert_to_tensor(x), "softplus")
    want = np.log(np.log1p(np.exp(x.astype(np.float64))))
    want[0] = -500.0  # log(softplus(x)) = x - e^x/2 + ... to float64 precision
    np.testing.assert_allclose(keras.ops.convert_to_numpy(got), want, rtol=1e-6)


def test_mixed_precision_training_stays_finite():
    keras.config.set_dtype_policy("mixed_float16")
    rng = np.random.default_rng(13)
    x = rng.normal(size=(16, 300, 2)).astype(np.float32) * 50.0
    y = rng.normal(size=(16, 1)).astype(np.float32)
    for recurrent in (
        keras_rda.RDA(8, variant="exp-tanh"),
        keras_rda.RWA(8),
        keras.layers.RNN(keras_rda.RDACell(8)),
    ):
        model = keras.Sequential(
            [keras.Input((None, 2)), recurrent, keras.layers.Dense(1, dtype="float32")]
        )
        model.compile(keras.optimizers.Adam(1e-2), "mse")
        history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
        prediction = model.predict(x, verbose=0)
        assert np.isfinite(prediction).all()
        assert recurrent.compute_dtype == "float16"
