"""A `jax.lax.scan`-style loop with stacked per-step outputs, on each backend.

`keras.ops.scan` is `jax.lax.scan` on JAX, but on TensorFlow (Keras 3.15) it
requires every per-step output to have the carry's shape, and the fused
RWA/RDA recurrence stacks outputs of other shapes. This module picks the
backend's own loop: `jax.lax.scan` on JAX, a `tf.while_loop` over
`TensorArray`s on TensorFlow (`keras_rda.ops.tf_scan`), and on PyTorch
`keras.ops.scan`'s Python loop, its outputs stacked after it. None is
differentiated: the recurrence that uses them has its own backward pass.
"""

import keras
from keras import ops

FUSED_BACKENDS = ("tensorflow", "jax", "torch")


def supports_scan():
    """Whether this backend has a loop here (TensorFlow, JAX, PyTorch)."""
    return keras.backend.backend() in FUSED_BACKENDS


def scan(step, init, xs, reverse=False):
    """`carry, ys = step(carry, x)` over the leading axis of `xs`.

    Args:
        step: `(carry, x) -> (carry, y)`, carry and y nested lists, tuples
            or dicts of tensors, `x` the structure of `xs` with each tensor
            sliced at step t.
        init: the initial carry.
        xs: a nested list, tuple or dict of `[time, ...]` tensors.
        reverse: whether to run from the last step to the first. The stacked
            outputs keep the time order of `xs` either way.

    Returns:
        `(carry, ys)`: the final carry, and each per-step output stacked to
        `[time, ...]`.
    """
    if keras.backend.backend() == "tensorflow":
        from keras_rda.ops import tf_scan

        return tf_scan.scan(step, init, xs, reverse=reverse)
    return ops.scan(step, init, xs, reverse=reverse)
