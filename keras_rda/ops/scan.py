"""A `jax.lax.scan`-style loop with stacked per-step outputs, on each backend.

`keras.ops.scan` is `jax.lax.scan` on JAX, but on TensorFlow (Keras 3.15) it
requires every per-step output to have the carry's shape, and the fused
RWA/RDA recurrence stacks outputs of other shapes. This module picks the
backend's own loop: `jax.lax.scan` on JAX, a `tf.while_loop` over
`TensorArray`s on TensorFlow (`keras_rda.ops.tf_scan`), and on PyTorch
a Python loop whose outputs can stay per step (`Steps`). None is
differentiated: the recurrence that uses them has its own backward pass.
"""

import keras
from keras import ops

FUSED_BACKENDS = ("tensorflow", "jax", "torch")


def supports_scan():
    """Whether this backend has a loop here (TensorFlow, JAX, PyTorch)."""
    return keras.backend.backend() in FUSED_BACKENDS


def scan(step, init, xs, reverse=False, stack=True):
    """`carry, ys = step(carry, x)` over the leading axis of `xs`.

    Args:
        step: `(carry, x) -> (carry, y)`, carry and y nested lists, tuples
            or dicts of tensors, `x` the structure of `xs` with each tensor
            (or `Steps`) sliced at step t.
        init: the initial carry.
        xs: a nested list, tuple or dict of `[time, ...]` tensors or `Steps`.
        reverse: whether to run from the last step to the first. The stacked
            outputs keep the time order of `xs` either way.
        stack: whether to stack each per-step output into one `[time, ...]`
            tensor. With False, where the loop runs in Python (PyTorch) each
            comes back as `Steps`, so that what only a later loop reads step
            by step is never copied into one tensor (`stacked` joins one
            where it is needed whole). Compiled loops (TensorFlow, JAX) write
            their outputs into one buffer either way, and stack.

    Returns:
        `(carry, ys)`: the final carry, and each per-step output stacked to
        `[time, ...]` (or `Steps`).
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        from keras_rda.ops import tf_scan

        return tf_scan.scan(step, init, xs, reverse=reverse)
    if backend == "torch":
        return _python_scan(step, init, xs, reverse, stack)
    return ops.scan(step, init, xs, reverse=reverse)


class Steps:
    """The per-step tensors of a Python loop's output, in time order:
    `steps[t]` is step t's, as it would be of the stacked tensor."""

    def __init__(self, tensors):
        self.tensors = list(tensors)

    def __getitem__(self, t):
        return self.tensors[t]

    def __len__(self):
        return len(self.tensors)


def stacked(ys):
    """`ys` (a tensor or `Steps`) as one `[time, ...]` tensor."""
    return ops.stack(ys.tensors) if isinstance(ys, Steps) else ys


def _python_scan(step, init, xs, reverse, stack):
    """The loop in Python (PyTorch eager), outputs stacked or kept as `Steps`."""
    flat = keras.tree.flatten(xs)
    length = len(flat[0])
    outputs = [None] * length
    carry = init
    for t in reversed(range(length)) if reverse else range(length):
        x = keras.tree.pack_sequence_as(xs, [x[t] for x in flat])
        carry, outputs[t] = step(carry, x)
    joined = [
        ops.stack(list(steps)) if stack else Steps(steps)
        for steps in zip(*(keras.tree.flatten(y) for y in outputs))
    ]
    return carry, keras.tree.pack_sequence_as(outputs[0], joined)
