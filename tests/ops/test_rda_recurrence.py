"""The fused RDA/RWA recurrence (hand-written backward pass) against the
NumPy reference of the papers' equations and against the autodiff path.

Runs on every backend (`KERAS_BACKEND=jax`, `torch`). A loss's constant
factors are converted to the backend's tensors: on PyTorch a tensor times
a NumPy array would be computed in NumPy, outside the gradient.
"""

import itertools
import zlib

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.ops import rda_recurrence
from tests.cells import numpy_reference as ref
from tests.layers.gradients import enable_float64
from tests.layers.gradients import loss_and_gradients

pytestmark = pytest.mark.skipif(
    not rda_recurrence.supports_fused(),
    reason="the fused recurrence does not run on this backend",
)

UNITS = 3
INPUT_DIM = 2
COMBINATIONS = [
    ("rda", attention, hidden, output)
    for attention, hidden, output in itertools.product(
        ["exp", "sigmoid", "softplus", "relu"], ["linear", "tanh"], ["linear", "tanh"]
    )
] + [("rwa", "exp", "tanh", "linear")]
# The whole grid runs on TensorFlow. The recurrence's code is the same for
# every activation, so the other backends' runs take each attention
# activation once and each tanh once (their ops, the backend's custom
# gradient), and leave the rest of the grid to their slow run.
BACKEND_COMBINATIONS = {
    ("rda", "exp", "linear", "linear"),
    ("rda", "sigmoid", "tanh", "tanh"),
    ("rda", "softplus", "linear", "tanh"),
    ("rda", "relu", "tanh", "linear"),
    ("rwa", "exp", "tanh", "linear"),
}
CASES = [
    pytest.param(
        *combination,
        id="-".join(combination),
        marks=()
        if keras.backend.backend() == "tensorflow"
        or combination in BACKEND_COMBINATIONS
        else pytest.mark.slow(reason="the grid's other backends' cases"),
    )
    for combination in COMBINATIONS
]


@pytest.fixture(autouse=True)
def _float64():
    enable_float64()


@pytest.fixture(autouse=True, params=["projections", "inputs"])
def _loop_input(request, monkeypatch):
    """Every test twice: the loop takes the projections of all steps, or
    projects each step's input itself (`rda_recurrence.projects_in_loop`)."""
    ratio = 0.0 if request.param == "projections" else float("inf")
    monkeypatch.setattr(rda_recurrence, "IN_LOOP_PROJECTION_MAX_RATIO", ratio)


def make_layer(kind, attention, hidden, output, fused=True, **kwargs):
    if kind == "rwa":
        layer = keras_rda.RWA(UNITS, dtype="float64", **kwargs)
    else:
        layer = keras_rda.RDA(
            UNITS,
            attention_activation=attention,
            hidden_activation=hidden,
            output_activation=output,
            dtype="float64",
            **kwargs,
        )
    layer.fused_recurrence = fused
    layer.build((None, None, INPUT_DIM))
    return layer


def seed_of(*names):
    return zlib.crc32("-".join(names).encode())


def reference_params(kind, rng, scale=0.8):
    """Paper-layout weights (and s0 for the RWA) of one unit."""
    params = ref.random_params(rng, INPUT_DIM, UNITS, kind == "rda", scale=scale)
    s0 = rng.normal(0.0, 1.0, UNITS) if kind == "rwa" else None
    return params, s0


def keras_weights(kind, params, s0):
    weights = ref.to_keras_weights(params, INPUT_DIM, kind == "rda", s0=s0)
    return [w.astype(np.float64) for w in weights]


def params_from_keras(kind, weights):
    """Inverse of `ref.to_keras_weights`: paper-layout weights and s0."""
    kernel, recurrent, bias = weights[:3]
    gates = ["g", "a", "gamma"] if kind == "rda" else ["g", "a"]
    params = {"W_u": kernel[:, :UNITS], "b_u": bias[:UNITS]}
    for i, gate in enumerate(gates):
        block = slice((i + 1) * UNITS, (i + 2) * UNITS)
        recurrent_block = slice(i * UNITS, (i + 1) * UNITS)
        params[f"W_{gate}"] = np.concatenate(
            [kernel[:, block], recurrent[:, recurrent_block]], axis=0
        )
        params[f"b_{gate}"] = bias[block]
    return params, (weights[3] if len(weights) > 3 else None)


def reference_outputs(kind, attention, hidden, output, weights, x):
    params, s0 = params_from_keras(kind, weights)
    if kind == "rwa":
        return ref.run(params, x, False, h0=np.tanh(s0))[0]
    return ref.run(params, x, True, attention, hidden, output)[0]


@pytest.mark.parametrize("kind,attention,hidden,output", CASES)
def test_outputs_and_gradients_equal_numpy_reference(kind, attention, hidden, output):
    """Outputs equal the plain float64 equations; the gradients of a loss of
    the outputs equal central differences of those equations."""
    rng = np.random.default_rng(seed_of(kind, attention, hidden, output))
    params, s0 = reference_params(kind, rng)
    weights = keras_weights(kind, params, s0)
    x = rng.normal(size=(2, 7, INPUT_DIM))
    target = rng.normal(size=(2, 7, UNITS))
    target_tensor = keras.ops.convert_to_tensor(target)
    layer = make_layer(kind, attention, hidden, output, return_sequences=True)
    layer.set_weights(weights)

    def loss_fn(outputs):
        return keras.ops.sum(outputs * target_tensor)

    (outputs,), _, grads = loss_and_gradients(layer, x, loss_fn)
    np.testing.assert_allclose(
        outputs,
        reference_outputs(kind, attention, hidden, output, weights, x),
        rtol=1e-10,
        atol=1e-12,
    )

    def reference_loss(weights, x):
        out = reference_outputs(kind, attention, hidden, output, weights, x)
        return float(np.sum(out * target))

    eps = 1e-6
    for i, w in enumerate(weights + [x]):
        numeric = np.zeros_like(w)
        for index in np.ndindex(w.shape):
            values = []
            for sign in (1.0, -1.0):
                shifted = [v.copy() for v in weights + [x]]
                shifted[i][index] += sign * eps
                values.append(reference_loss(shifted[:-1], shifted[-1]))
            numeric[index] = (values[0] - values[1]) / (2 * eps)
        np.testing.assert_allclose(grads[i], numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kind,attention,hidden,output", CASES)
@pytest.mark.parametrize("go_backwards", [False, True])
def test_fused_equals_autodiff_with_mask_and_state_in_float64(
    kind, attention, hidden, output, go_backwards
):
    """Outputs, final states and the gradients of a loss that reads the
    outputs of real steps and every returned state, with a mask that has a
    gap and trailing padding, and a given initial state."""
    rng = np.random.default_rng(seed_of(kind, attention, hidden, output, "ad"))
    params, s0 = reference_params(kind, rng)
    weights = keras_weights(kind, params, s0)
    x = rng.normal(size=(3, 9, INPUT_DIM))
    mask = np.ones((3, 9), bool)
    mask[0, 3:5] = False
    mask[1, 6:] = False
    # Real steps first in processing order, so that both conventions for
    # the output of a masked step agree (see test_rda.py for those).
    mask[:, 0 if not go_backwards else -1] = True
    # Outputs come in processing order (reversed with go_backwards).
    output_mask = mask[:, ::-1] if go_backwards else mask
    weight_of_output = rng.normal(size=(3, 9, UNITS)) * output_mask[..., None]
    results = []
    for fused in (True, False):
        layer = make_layer(
            kind,
            attention,
            hidden,
            output,
            fused=fused,
            return_sequences=True,
            return_state=True,
            go_backwards=go_backwards,
        )
        layer.set_weights(weights)

        def loss_fn(outputs):
            sequence, h, n, d, m = outputs
            return (
                keras.ops.sum(sequence * keras.ops.convert_to_tensor(weight_of_output))
                + keras.ops.sum(h * h)
                + keras.ops.sum(n * 0.3)
                + keras.ops.sum(d * 0.1)
                + keras.ops.sum(m * 0.0)
            )

        results.append(loss_and_gradients(layer, x, loss_fn, mask=mask))
    (fused_out, fused_loss, fused_grads), (auto_out, auto_loss, auto_grads) = results
    for a, b in zip(fused_out[1:], auto_out[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        fused_out[0] * output_mask[..., None],
        auto_out[0] * output_mask[..., None],
        rtol=1e-10,
    )
    np.testing.assert_allclose(fused_loss, auto_loss, rtol=1e-10)
    for a, b in zip(fused_grads, auto_grads):
        assert np.isfinite(a).all()
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("kind", ["rda", "rwa"])
def test_fused_equals_autodiff_with_dropout_masks(kind):
    """Input and recurrent dropout: with the same masks, the same outputs and
    gradients (the recurrent mask multiplies h_{t-1} in R's gradient too)."""
    rng = np.random.default_rng(seed_of(kind, "dropout"))
    params, s0 = reference_params(kind, rng)
    weights = keras_weights(kind, params, s0)
    x = rng.normal(size=(4, 8, INPUT_DIM))
    input_mask = (rng.random((4, INPUT_DIM)) > 0.3) / 0.7
    recurrent_mask = (rng.random((4, UNITS)) > 0.4) / 0.6
    results = []
    for fused in (True, False):
        layer = make_layer(
            kind,
            "exp",
            "linear",
            "tanh",
            fused=fused,
            return_sequences=True,
            dropout=0.3,
            recurrent_dropout=0.4,
        )
        layer.set_weights(weights)
        layer.cell._dropout_mask = keras.ops.convert_to_tensor(input_mask)
        layer.cell._recurrent_dropout_mask = keras.ops.convert_to_tensor(recurrent_mask)
        results.append(
            loss_and_gradients(
                layer, x, lambda out: keras.ops.sum(out**2), training=True
            )
        )
    (fused_out, _, fused_grads), (auto_out, _, auto_grads) = results
    np.testing.assert_allclose(fused_out[0], auto_out[0], rtol=1e-10)
    for a, b in zip(fused_grads, auto_grads):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("kind", ["rda", "rwa"])
def test_mixed_precision_keeps_float32_sums_and_agrees_with_float32(kind):
    """Under mixed_float16 the matmuls run in float16 and the sums in
    float32: outputs and gradients stay within float16 rounding of the
    float32 layer over 400 steps."""
    rng = np.random.default_rng(seed_of(kind, "mixed"))
    x = rng.normal(size=(4, 400, INPUT_DIM)).astype(np.float32)
    runs = []
    for policy in ("float32", "mixed_float16"):
        keras.config.set_dtype_policy(policy)
        layer = (keras_rda.RDA if kind == "rda" else keras_rda.RWA)(
            UNITS, return_sequences=True, return_state=True
        )
        layer.build((None, None, INPUT_DIM))
        if policy == "float32":
            weights = layer.get_weights()
        layer.set_weights(weights)
        runs.append(
            loss_and_gradients(
                layer,
                x,
                lambda out: keras.ops.sum(keras.ops.cast(out[0], "float32") ** 2),
            )
        )
        if policy == "mixed_float16":
            assert layer.compute_dtype == "float16"
    keras.config.set_dtype_policy("float32")
    (out32, loss32, grads32), (out16, loss16, grads16) = runs
    np.testing.assert_allclose(out16[0], out32[0], atol=2e-2, rtol=2e-2)
    np.testing.assert_allclose(loss16, loss32, rtol=1e-2)
    for g16, g32 in zip(grads16, grads32):
        assert np.isfinite(g16).all()
        scale = np.abs(g32).max()
        assert np.abs(g16.astype(np.float32) - g32).max() <= 0.05 * scale


@pytest.mark.parametrize("name", ["rda-exp", "rda-relu", "rda-softplus", "rwa"])
def test_ten_thousand_steps_with_huge_logits_finite(name):
    """10,000 steps with attention logits in the thousands: finite outputs and
    gradients, compiled with XLA (the backward pass included)."""
    rng = np.random.default_rng(seed_of(name, "long"))
    if name == "rwa":
        layer = keras_rda.RWA(3, return_sequences=True)
    else:
        layer = keras_rda.RDA(
            3, attention_activation=name.split("-")[1], return_sequences=True
        )
    layer.build((None, None, 2))
    weights = [rng.normal(0.0, 1.0, w.shape) for w in layer.get_weights()]
    weights[0] = weights[0] * 2000.0
    weights[2] = weights[2] * 1000.0
    layer.set_weights(weights)
    x = rng.normal(size=(2, 10_000, 2)).astype(np.float32)
    (y,), _, grads = loss_and_gradients(
        layer, x, lambda out: keras.ops.mean(out), jit=True
    )
    assert np.isfinite(y).all()
    for g in grads:
        assert np.isfinite(g).all()
    assert y[:, -100:].std() > 0
