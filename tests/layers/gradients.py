"""Gradients on the TensorFlow, JAX and PyTorch backends alike.

The tests run under any `KERAS_BACKEND`; this is the one place that knows
how each backend differentiates: `loss_and_gradients` for a layer's loss,
`value_and_grad` for a plain function of arrays.
"""

import keras
import numpy as np


def loss_and_gradients(layer, inputs, loss_fn, jit=False, **call_kwargs):
    """Value and gradients of `loss_fn(layer(inputs, **call_kwargs))`.

    Args:
        layer: a Keras layer (built on first use, as by a call).
        inputs: NumPy array, the layer's input.
        loss_fn: maps the layer's output (a tensor or list) to a scalar.
        jit: whether to compile the computation with XLA.
        **call_kwargs: passed to the layer call (`mask`, `training`, ...).

    Returns:
        `(outputs, loss, gradients)`: the outputs as NumPy arrays (a list),
        the loss, and the gradients (NumPy) with respect to each of
        `layer.trainable_weights` and then `inputs`.
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        def compute(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                outputs = layer(x, **call_kwargs)
                loss = loss_fn(outputs)
            grads = tape.gradient(loss, layer.trainable_weights + [x])
            return outputs, loss, grads

        if jit:
            compute = tf.function(compute, jit_compile=True)
        outputs, loss, grads = compute(tf.constant(inputs))
        if any(g is None for g in grads):
            raise ValueError("the loss does not depend on every weight and the inputs")
    elif backend == "jax":
        import jax

        if not layer.built:  # as a first call would (stateless_call does not)
            layer(inputs, **call_kwargs)
        trainable = [v.value for v in layer.trainable_variables]
        non_trainable = [v.value for v in layer.non_trainable_variables]

        def forward(trainable, x):
            outputs, _ = layer.stateless_call(
                trainable, non_trainable, x, **call_kwargs
            )
            return loss_fn(outputs), outputs

        compute = jax.value_and_grad(forward, argnums=(0, 1), has_aux=True)
        if jit:
            compute = jax.jit(compute)
        (loss, outputs), (d_trainable, d_inputs) = compute(
            trainable, jax.numpy.asarray(inputs)
        )
        grads = list(d_trainable) + [d_inputs]
    else:  # torch
        import torch

        x = torch.tensor(np.asarray(inputs), requires_grad=True)
        outputs = layer(x, **call_kwargs)
        loss = loss_fn(outputs)
        weights = [w.value for w in layer.trainable_weights]
        grads = torch.autograd.grad(loss, weights + [x])
        loss = loss.detach()
        outputs = keras.tree.map_structure(lambda o: o.detach(), outputs)
        grads = [g.detach() for g in grads]
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    return (
        [np.asarray(o) for o in outputs],
        float(loss),
        [np.asarray(g) for g in grads],
    )


def value_and_grad(fn, *arrays, jit=False):
    """Value of `fn(*arrays)` and its gradients with respect to each array.

    Args:
        fn: maps backend tensors (one per array) to a scalar, with
            `keras.ops` only.
        *arrays: NumPy arrays (floating point), the arguments of `fn`.
        jit: whether to compile the computation with XLA.

    Returns:
        `(value, gradients)`: the value (float) and one NumPy gradient per
        array, of the array's shape.
    """
    backend = keras.backend.backend()
    arrays = [np.asarray(a) for a in arrays]
    if backend == "tensorflow":
        import tensorflow as tf

        def compute(*xs):
            with tf.GradientTape() as tape:
                for x in xs:
                    tape.watch(x)
                value = fn(*xs)
            return value, tape.gradient(value, list(xs))

        if jit:
            compute = tf.function(compute, jit_compile=True)
        value, grads = compute(*(tf.constant(a) for a in arrays))
        if any(g is None for g in grads):
            raise ValueError("`fn` does not depend on every array (a None gradient)")
    elif backend == "jax":
        import jax

        compute = jax.value_and_grad(fn, argnums=tuple(range(len(arrays))))
        if jit:
            compute = jax.jit(compute)
        value, grads = compute(*(jax.numpy.asarray(a) for a in arrays))
    else:  # torch
        import torch

        xs = [torch.tensor(a, requires_grad=True) for a in arrays]
        value = fn(*xs)
        grads = [g.detach() for g in torch.autograd.grad(value, xs)]
        value = value.detach()
    return float(value), [np.asarray(g) for g in grads]


def enable_float64():
    """Lets JAX compute in float64 (off by default); a no-op elsewhere."""
    if keras.backend.backend() == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
