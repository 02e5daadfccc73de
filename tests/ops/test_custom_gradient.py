"""`keras_rda.ops.custom_gradient`: a function of several outputs gets the
gradient it defines, on every backend."""

import keras
import numpy as np

from keras_rda.ops import custom_gradient


@custom_gradient.custom_gradient
def _product_and_sum(x, y):
    """`(x * y, x + y)` with a gradient scaled by 10, so that a test can tell
    the defined gradient from the backend's own."""

    def grad(*upstream, variables=None):
        if len(upstream) == 1:  # JAX: the outputs' structure
            upstream = upstream[0]
        d_product, d_sum = upstream
        return [10.0 * (d_product * y + d_sum), 10.0 * (d_product * x + d_sum)]

    return (x * y, x + y), grad


def _gradients(x, y, c1, c2):
    """d/dx, d/dy of `sum(c1 * (x * y) + c2 * (x + y))` on the backend."""
    backend = keras.backend.backend()

    def loss(x, y):
        product, total = _product_and_sum(x, y)
        return keras.ops.sum(c1 * product + c2 * total)

    if backend == "jax":
        import jax

        return jax.grad(loss, argnums=(0, 1))(x, y)
    if backend == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            tape.watch([x, y])
            value = loss(x, y)
        return tape.gradient(value, [x, y])
    import torch

    x, y = x.clone().requires_grad_(True), y.clone().requires_grad_(True)
    return torch.autograd.grad(loss(x, y), [x, y])


def test_every_output_passes_its_upstream_gradient():
    rng = np.random.default_rng(0)
    x, y, c1, c2 = (rng.normal(size=(2, 3)).astype("float32") for _ in range(4))
    tensors = [keras.ops.convert_to_tensor(v) for v in (x, y, c1, c2)]
    product, total = _product_and_sum(*tensors[:2])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(product), x * y, rtol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(total), x + y, rtol=1e-6)
    dx, dy = (keras.ops.convert_to_numpy(g) for g in _gradients(*tensors))
    np.testing.assert_allclose(dx, 10.0 * (c1 * y + c2), rtol=1e-5)
    np.testing.assert_allclose(dy, 10.0 * (c1 * x + c2), rtol=1e-5)


def _is_backend_tensor(value):
    """Whether `value` is a tensor of the backend's own type."""
    backend = keras.backend.backend()
    if backend == "torch":
        import torch

        return isinstance(value, torch.Tensor)
    if backend == "jax":
        import jax

        return isinstance(value, jax.Array)
    import tensorflow as tf

    return isinstance(value, tf.Tensor)


def test_a_training_step_frees_what_the_gradient_kept():
    """The RDA's gradient function keeps its forward pass's saved tensors:
    once a training step is over, they are gone. On PyTorch a node that
    held them in a cycle through autograd leaked every step's saved tensors
    (about 125 MB a step for an RDA of 250 units, batch 100, T = 100)."""
    import gc

    import keras_rda

    model = keras.Sequential(
        [keras.Input((5, 2)), keras_rda.RDA(8), keras.layers.Dense(1)]
    )
    model.compile("adam", "mse")
    x = np.random.default_rng(0).random((3, 5, 2), np.float32)
    y = np.ones((3, 1), np.float32)

    def live_tensors():
        gc.collect()
        return sum(_is_backend_tensor(o) for o in gc.get_objects())

    model.train_on_batch(x, y)  # builds the optimizer's slots
    before = live_tensors()
    for _ in range(3):
        model.train_on_batch(x, y)
    assert live_tensors() == before
