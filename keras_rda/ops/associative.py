"""Shared math of the associative-memory cells (fast weights, WeiNet, LN cells).

Small functions named after the papers' operations, written with `keras.ops`
only, so that `FastWeightsCell`, `WeiNetCell`, `LayerNormLSTMCell` and
`RecurrentHighwayCell` share one implementation of layer normalisation, of
the outer product `h h^T`, of the memory reads `A h` / `h^T A` / `h^T A h`,
(argument validation is `keras_rda.utils.validation`).

Shapes: `h` is `[batch, units]`, a memory `A` is `[batch, units, units]`
(or `[batch, num_memories, units, units]` for WeiNet's array of memories).
"""

import keras
from keras import ops

from keras_rda.utils import validation

# Variance floor of layer normalisation. Large enough for float16 / mixed
# precision, small enough to be invisible for activations of order one.
LAYER_NORM_EPSILON = 1e-5


def add_layer_norm_weights(layer, name, units):
    """Creates the gain (init 1) and bias (init 0) of one layer norm."""
    gamma = layer.add_weight(shape=(units,), name=f"{name}_gamma", initializer="ones")
    beta = layer.add_weight(shape=(units,), name=f"{name}_beta", initializer="zeros")
    return gamma, beta


def layer_norm(x, gamma=None, beta=None, epsilon=LAYER_NORM_EPSILON):
    """Layer normalisation over the last axis (Ba, Kiros & Hinton 2016).

    `LN(x) = gamma * (x - mean(x)) / sqrt(var(x) + epsilon) + beta`, computed
    in float32 at least (mixed precision), returned in the dtype of `x`.
    """
    # A dtype name on every backend (PyTorch's `torch.float16` is not equal
    # to "float16"; in float16 the variance's gradient overflows at x = 0).
    dtype = keras.backend.standardize_dtype(x.dtype)
    compute = "float32" if dtype in ("float16", "bfloat16") else dtype
    x = ops.cast(x, compute)
    centred = x - ops.mean(x, axis=-1, keepdims=True)
    variance = ops.mean(ops.square(centred), axis=-1, keepdims=True)
    y = centred * ops.rsqrt(variance + epsilon)
    y = ops.cast(y, dtype)
    if gamma is not None:
        y = y * ops.cast(gamma, dtype)
    if beta is not None:
        y = y + ops.cast(beta, dtype)
    return y


def outer(h):
    """`h h^T` per example: `[batch, units]` -> `[batch, units, units]`."""
    return ops.expand_dims(h, -1) * ops.expand_dims(h, -2)


def memory_times_vector(memory, h):
    """`A h` per example: `[batch, units, units] x [batch, units] -> [batch, units]`.

    `(A h)_i = sum_j A_ij h_j` (fast weights' retrieval, Ba et al. 2016).
    """
    return ops.einsum("...ij,...j->...i", memory, h)


def vector_times_memory(h, memory):
    """`h^T A` per example (WeiNet eq. 6): `m_j = sum_i h_i A_ij`."""
    return ops.einsum("...i,...ij->...j", h, memory)


def quadratic_form(h, memories):
    """`h^T A^k h` for each of K memories (WeiNet eq. 4).

    Args:
        h: `[batch, units]`.
        memories: `[batch, K, units, units]`.

    Returns:
        `[batch, K]`.
    """
    return ops.einsum("bi,bkij,bj->bk", h, memories, h)


def row_and_column_means(memory):
    """WeiNet eq. 7's `A^c`, `A^r`: column-wise and row-wise means of `A`.

    Returns `(column_means, row_means)`, each `[batch, units]`:
    `column_means_j = mean_i A_ij` and `row_means_i = mean_j A_ij`.
    """
    return ops.mean(memory, axis=-2), ops.mean(memory, axis=-1)


def flat_to_matrices(flat, leading, units):
    """Reshapes a flat state `[batch, leading*units*units]` to matrices."""
    shape = (-1, units, units) if leading is None else (-1, leading, units, units)
    return ops.reshape(flat, shape)


def matrices_to_flat(matrices):
    """Inverse of `flat_to_matrices`: `[batch, ...]` -> `[batch, prod(...)]`."""
    size = 1
    for d in matrices.shape[1:]:
        size *= int(d)
    return ops.reshape(matrices, (-1, size))


def get_activation(name, argument="activation", choices=("tanh", "relu", "linear")):
    """A validated activation function from its name."""
    validation.one_of(argument, name, choices)
    return keras.activations.get(name)
