"""The layers with `use_kernel=True` against `use_kernel=False`.

On JAX (Pallas) and PyTorch (Triton) the RDA, RWA and ParallelRDA layers
run their recurrence or scan as a fused kernel; every output, state and
gradient must equal today's path with the same weights, whatever the
layer's options. Without a GPU the kernels run in interpret mode (set
here); on a GPU the same tests run the compiled kernels.
"""

import keras
import numpy as np
import pytest

import keras_rda
from keras_rda.ops import kernels
from tests.layers.gradients import loss_and_gradients

pytestmark = pytest.mark.requires_backend("jax", "torch")

LAYERS = {
    "RDA": keras_rda.RDA,
    "RWA": keras_rda.RWA,
    "ParallelRDA": keras_rda.ParallelRDA,
}


@pytest.fixture(autouse=True)
def _interpret_without_a_gpu(monkeypatch):
    monkeypatch.setenv(kernels.INTERPRET_VARIABLE, "1")
    if kernels.unavailable_reason() is not None:
        pytest.fail(f"the kernel cannot run: {kernels.unavailable_reason()}")
    if _has_gpu():
        monkeypatch.delenv(kernels.INTERPRET_VARIABLE)


def _has_gpu():
    if keras.backend.backend() == "jax":
        import jax

        return jax.default_backend() == "gpu"
    import torch

    return torch.cuda.is_available()


def twins(name, **kwargs):
    """The layer with and without the kernel, sharing one set of weights."""
    with_kernel = LAYERS[name](5, use_kernel=True, **kwargs)
    without = LAYERS[name](5, use_kernel=False, **kwargs)
    return with_kernel, without


def compare(
    name,
    x,
    layer_kwargs=None,
    rtol=2e-5,
    atol=2e-5,
    of_largest=None,
    gradients=True,
    **call_kwargs,
):
    """Outputs, loss and every gradient (weights and inputs) agree.

    With `of_largest`, each array's absolute tolerance is that fraction of
    its largest entry (for ill-conditioned cases, where float32 rounding
    alone moves the small entries). With `gradients=False` the gradients
    are only checked to be finite.
    """
    with_kernel, without = twins(name, **(layer_kwargs or {}))
    with_kernel(x, **call_kwargs)
    without(x, **call_kwargs)
    without.set_weights(with_kernel.get_weights())
    weights = np.random.default_rng(1).normal(size=(5,)).astype("float32")

    def loss(outputs):
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        w = keras.ops.convert_to_tensor(weights)
        return sum(keras.ops.sum(keras.ops.cast(o, "float32") * w) for o in outputs)

    got = loss_and_gradients(with_kernel, x, loss, **call_kwargs)
    want = loss_and_gradients(without, x, loss, **call_kwargs)
    for part, (got_part, want_part) in enumerate(zip(got, want)):
        if part == 2 and not gradients:
            assert all(np.all(np.isfinite(np.asarray(g, "float32"))) for g in got_part)
            continue
        if isinstance(got_part, float):
            np.testing.assert_allclose(got_part, want_part, rtol=rtol, atol=atol)
            continue
        assert len(got_part) == len(want_part)
        for a, b in zip(got_part, want_part):
            a, b = np.asarray(a, "float32"), np.asarray(b, "float32")
            assert np.all(np.isfinite(a))
            tolerance = atol if of_largest is None else of_largest * np.max(np.abs(b))
            np.testing.assert_allclose(a, b, rtol=rtol, atol=tolerance)


def sequences(batch=3, time=6, features=4, scale=1.0):
    rng = np.random.default_rng(0)
    return (scale * rng.normal(size=(batch, time, features))).astype("float32")


@pytest.mark.parametrize("name", list(LAYERS))
def test_every_output_and_state_with_their_gradients(name):
    compare(name, sequences(), {"return_sequences": True, "return_state": True})


@pytest.mark.parametrize("name", list(LAYERS))
def test_masks_with_leading_inner_and_trailing_padding(name):
    mask = np.ones((3, 6), bool)
    mask[0, :2] = False
    mask[1, 3] = False
    mask[2, 4:] = False
    compare(name, sequences(), {"return_sequences": True}, mask=mask)


# The RWA and the RDA share the recurrence kernel (`discount` apart), which
# tests/ops/kernels covers option by option; the layer-level cases below
# take one of them where the other adds nothing but time.
@pytest.mark.parametrize("name", ["RDA", "ParallelRDA"])
def test_given_initial_state_and_go_backwards(name):
    x = sequences()
    source = LAYERS[name](5, return_state=True)
    _, *state = source(x)
    state = [np.asarray(s) for s in state]
    compare(name, x, {"go_backwards": True}, initial_state=state)


@pytest.mark.parametrize(
    "name, options",
    [
        ("RDA", {"attention_activation": "exp", "hidden_activation": "tanh"}),
        ("RDA", {"attention_activation": "relu", "output_activation": "tanh"}),
        ("ParallelRDA", {"attention_activation": "exp"}),
    ],
)
def test_the_attention_and_hidden_activations(name, options):
    compare(name, sequences(scale=3.0), {"return_sequences": True, **options})


@pytest.mark.parametrize("name", list(LAYERS))
def test_large_logits_stay_finite_and_equal(name):
    """Inputs of 1e3 give logits of 1e3-1e4, where the attention is close to
    a hard maximum and its gradient ill-conditioned: on the portable path
    itself, float32 gradients differ from float64 ones by about 1e-5 of
    their largest entry with sigmoid attention (several times the small
    entries' size), so each array is compared to a fraction of its largest
    entry; with exponential attention float32 and float64 gradients of the
    recurrent kernel differ by several times their size, so there the
    gradients are only checked to be finite."""
    compare(name, sequences(scale=1e3), {"return_sequences": True}, of_largest=1e-4)
    options = {"return_sequences": True}
    if name != "RWA":
        options["attention_activation"] = "exp"
    compare(name, sequences(scale=1e3), options, rtol=1e-4, gradients=False)


@pytest.mark.parametrize("name", ["RDA", "ParallelRDA"])
def test_mixed_precision(name):
    keras.config.set_dtype_policy("mixed_float16")
    compare(name, sequences(), {"return_sequences": True}, rtol=2e-3, atol=2e-3)


def test_a_training_step_with_the_kernel_matches_one_without():
    """`model.fit` sees the same loss and weights after one Adam step."""
    x = sequences(batch=4)
    y = np.random.default_rng(2).normal(size=(4, 1)).astype("float32")
    models = []
    for use_kernel in (True, False):
        model = keras.Sequential(
            [
                keras.Input((6, 4)),
                keras_rda.RDA(5, use_kernel=use_kernel),
                keras.layers.Dense(1),
            ]
        )
        model.compile(keras.optimizers.Adam(1e-2), "mse")
        models.append(model)
    models[1].set_weights(models[0].get_weights())
    losses = [m.train_on_batch(x, y) for m in models]
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    for a, b in zip(models[0].get_weights(), models[1].get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
