"""Memory addressing shared by `DNCCell` and `NTMCell`.

Small functions that read like the equations of

- Graves et al. 2016, "Hybrid computing using a neural network with dynamic
  external memory" (Nature 538), Methods section "Differentiable neural
  computer" (DNC), and
- Graves et al. 2014, "Neural Turing Machines", section 3.3 (NTM).

Everything is written with `keras.ops`, batched, for any number of heads.
Shape names: `B` batch, `N` memory slots (`memory_size`), `W` word size,
`H` heads (read or write), `R` read heads.

Numerics: every division and square root is guarded so that all-zero memory
and all-zero keys (the initial state) give finite values and finite gradients.

Builtin forms: the DNC's allocation takes `builtin_forms` (default False).
With True, its cumulative product is a product over a lower-triangular mask
instead of `ops.cumprod`, which LiteRT runs only through TensorFlow's Flex
ops: the same products (in another order), made of ops that every runtime
has as a builtin, for a fixed memory size. The streaming step model
(`keras_rda.streaming`) computes its memory cells so, so that its exports to
LiteRT need builtin ops only. Training keeps `ops.cumprod`: its gradient is
linear in the memory size, the mask's quadratic.
"""

import functools
import operator

import numpy as np
from keras import ops

EPSILON = 1e-6


def product_over_heads(x):
    """`prod_h x[:, h]` over the (static) heads axis 1, as products of slices.

    Equal to `ops.prod(x, axis=1)`; written out because JAX's derivative of
    `prod` needs every dimension known, and `model.export` on JAX takes it
    with a symbolic batch size.

    Args:
        x: `[B, H, ...]`.

    Returns:
        `[B, ...]`.
    """
    return functools.reduce(operator.mul, [x[:, h] for h in range(x.shape[1])])


def exclusive_cumprod(x, builtin_forms=False):
    """`y[:, j] = prod_{i<j} x[:, i]` (`y[:, 0] = 1`), over axis 1 of `[B, N]`.

    `ops.cumprod` of `x` shifted right by one; with `builtin_forms` (and
    the static `N` it needs) the product over a strictly lower-triangular
    mask instead: `prod_i (x[:, i] T[j, i] + 1 - T[j, i])` with
    `T[j, i] = 1` for `i < j`, exact since `T` is 0 or 1.

    Args:
        x: `[B, N]`.
        builtin_forms: whether to take the masked product (see the module
            docstring).

    Returns:
        `[B, N]`.
    """
    num = x.shape[-1]
    if builtin_forms and num is not None:
        below = ops.convert_to_tensor(np.tri(num, num, -1), dtype=x.dtype)
        return ops.prod(x[:, None, :] * below + (1.0 - below), axis=-1)
    shifted = ops.concatenate([ops.ones_like(x[:, :1]), x[:, :-1]], axis=1)
    return ops.cumprod(shifted, axis=1)


def oneplus(x):
    """`1 + softplus(x)`: the DNC's key strengths and NTM sharpening, in [1, inf)."""
    return 1.0 + ops.softplus(x)


def cosine_similarity(memory, keys, epsilon=EPSILON):
    """Cosine similarity of each key with each memory row, safe for zeros.

    `K(k, M[i]) = k . M[i] / (|k| |M[i]| + eps)` with `|x| = sqrt(x.x + eps)`,
    so zero vectors give similarity 0 and finite gradients.

    Args:
        memory: `[B, N, W]`.
        keys: `[B, H, W]`.

    Returns:
        `[B, H, N]`.
    """
    dot = ops.matmul(keys, ops.transpose(memory, (0, 2, 1)))
    key_norm = ops.sqrt(ops.sum(ops.square(keys), axis=-1) + epsilon)
    memory_norm = ops.sqrt(ops.sum(ops.square(memory), axis=-1) + epsilon)
    norms = key_norm[:, :, None] * memory_norm[:, None, :]
    return dot / (norms + epsilon)


def content_weights(memory, keys, strengths):
    """Content-based addressing, `C(M, k, beta)[i] = softmax_i(beta K(k, M[i]))`.

    DNC paper eq. (Methods, "Content-based addressing"); NTM eq. (5).

    Args:
        memory: `[B, N, W]`.
        keys: `[B, H, W]`.
        strengths: `[B, H]`, positive key strengths `beta` (already passed
            through `oneplus` or `softplus`).

    Returns:
        `[B, H, N]`, each row sums to 1.
    """
    similarity = cosine_similarity(memory, keys)
    return ops.softmax(similarity * strengths[:, :, None], axis=-1)


# ----------------------------------------------------------------------------
# DNC: dynamic memory allocation.
# ----------------------------------------------------------------------------


def retention(free_gates, prev_read_weights):
    """Memory retention vector `psi = prod_r (1 - f_r w^r_{t-1})`.

    Args:
        free_gates: `[B, R]` in [0, 1].
        prev_read_weights: `[B, R, N]`.

    Returns:
        `[B, N]` in [0, 1].
    """
    return product_over_heads(1.0 - free_gates[:, :, None] * prev_read_weights)


def update_usage(prev_usage, prev_write_weights, free_gates, prev_read_weights):
    """Usage `u_t = (u_{t-1} + w - u_{t-1} * w) * psi_t`.

    With several write heads `w` is the combined write `1 - prod_h (1 - w_h)`,
    as DeepMind's `dnc` does.

    Args:
        prev_usage: `[B, N]` in [0, 1].
        prev_write_weights: `[B, Hw, N]`.
        free_gates: `[B, R]`.
        prev_read_weights: `[B, R, N]`.

    Returns:
        `[B, N]` in [0, 1].
    """
    write = 1.0 - product_over_heads(1.0 - prev_write_weights)
    usage = prev_usage + (1.0 - prev_usage) * write
    return usage * retention(free_gates, prev_read_weights)


def allocation_weights(usage, epsilon=EPSILON, builtin_forms=False):
    """Allocation weighting `a_t[phi_j] = (1 - u[phi_j]) prod_{i<j} u[phi_i]`.

    `phi` sorts the slots by ascending usage (the free list). As in DeepMind's
    `dnc`, usage is first squashed to `[eps, 1]` so that the products stay
    differentiable, and the slots are ordered by their non-usage `1 - u`
    (DeepMind's `top_k(1 - u)`): where the dtype rounds several tiny usages
    to one non-usage (float32 after a first write, usages of 1e-6 and below),
    those slots tie and the lower index comes first, as with `top_k`. The
    sort is a stable `argsort` of `u - 1` (exactly `-(1 - u)`), which, unlike
    `top_k`, a SavedModel exported from JAX can run.

    Args:
        usage: `[B, N]` in [0, 1].
        epsilon: the smallest usage the products see.
        builtin_forms: passed to `exclusive_cumprod`.

    Returns:
        `[B, N]`, non-negative, sums to at most 1; the largest entry is the
        least-used slot.
    """
    usage = epsilon + (1.0 - epsilon) * usage
    num_slots = ops.shape(usage)[-1]
    # The free list phi (indices only; no gradient flows through the sort).
    free_list = ops.argsort(ops.stop_gradient(usage - 1.0), axis=-1)
    # permutation[b, j, i] = 1 where i = phi_j: sorting and unsorting are
    # products with it (XLA-friendly inside a cond, unlike gathers).
    permutation = ops.one_hot(free_list, num_slots, dtype=usage.dtype)
    sorted_usage = ops.einsum("bji,bi->bj", permutation, usage)
    # Exclusive cumulative product: prod_{i<j} u[phi_i].
    sorted_allocation = (1.0 - sorted_usage) * exclusive_cumprod(
        sorted_usage, builtin_forms
    )
    # Undo the sort: allocation[b, phi_j] = sorted_allocation[b, j].
    return ops.einsum("bj,bji->bi", sorted_allocation, permutation)


def write_allocation_weights(usage, write_gates, num_write_heads, builtin_forms=False):
    """Allocation weightings of several write heads, one after another.

    Each head allocates from the usage left by the heads before it:
    `a_h = allocation(u)`, then `u <- u + (1 - u) g^w_h a_h` (DeepMind's `dnc`).

    Args:
        usage: `[B, N]`.
        write_gates: `[B, Hw]` in [0, 1] (the gates times the allocation gates).
        num_write_heads: Python int `Hw`.
        builtin_forms: passed to `exclusive_cumprod`.

    Returns:
        `[B, Hw, N]`.
    """
    weights = []
    for head in range(num_write_heads):
        allocation = allocation_weights(usage, builtin_forms=builtin_forms)
        weights.append(allocation)
        usage = usage + (1.0 - usage) * write_gates[:, head : head + 1] * allocation
    return ops.stack(weights, axis=1)


def dnc_write_weights(allocation, content, allocation_gates, write_gates):
    """`w^w = g^w (g^a a + (1 - g^a) c^w)`.

    Args:
        allocation: `[B, Hw, N]`.
        content: `[B, Hw, N]` content weights of the write keys.
        allocation_gates: `[B, Hw]`.
        write_gates: `[B, Hw]`.

    Returns:
        `[B, Hw, N]`.
    """
    g_a = allocation_gates[:, :, None]
    g_w = write_gates[:, :, None]
    return g_w * (g_a * allocation + (1.0 - g_a) * content)


# ----------------------------------------------------------------------------
# DNC: temporal memory linkage.
# ----------------------------------------------------------------------------


def update_link(prev_link, prev_precedence, write_weights):
    """Link `L[i, j] = (1 - w[i] - w[j]) L[i, j] + w[i] p_{t-1}[j]`, `L[i, i] = 0`.

    One link matrix per write head.

    Args:
        prev_link: `[B, Hw, N, N]`.
        prev_precedence: `[B, Hw, N]`.
        write_weights: `[B, Hw, N]`.

    Returns:
        `[B, Hw, N, N]`.
    """
    w_i = write_weights[:, :, :, None]
    w_j = write_weights[:, :, None, :]
    link = (1.0 - w_i - w_j) * prev_link + w_i * prev_precedence[:, :, None, :]
    num_slots = ops.shape(write_weights)[-1]
    return link * (1.0 - ops.eye(num_slots, dtype=link.dtype))


def update_precedence(prev_precedence, write_weights):
    """Precedence `p_t = (1 - sum_i w[i]) p_{t-1} + w`.

    Args:
        prev_precedence: `[B, Hw, N]`.
        write_weights: `[B, Hw, N]`.

    Returns:
        `[B, Hw, N]`.
    """
    total = ops.sum(write_weights, axis=-1, keepdims=True)
    return (1.0 - total) * prev_precedence + write_weights


def directional_read_weights(link, prev_read_weights, forward):
    """Forward `f = L w^r_{t-1}` or backward `b = L^T w^r_{t-1}` weightings.

    Args:
        link: `[B, Hw, N, N]`.
        prev_read_weights: `[B, R, N]`.
        forward: Python bool.

    Returns:
        `[B, R, Hw, N]`: for each read head, one weighting per write head.
    """
    # f[b, h, r, i] = sum_j L[b, h, i, j] w[b, r, j]; b uses L[b, h, j, i].
    equation = "bhij,brj->brhi" if forward else "bhji,brj->brhi"
    return ops.einsum(equation, link, prev_read_weights)


def dnc_read_weights(content, forward, backward, read_modes):
    """`w^r = pi[backward] b + pi[forward] f + pi[content] c`, per write head.

    Args:
        content: `[B, R, N]`.
        forward: `[B, R, Hw, N]`.
        backward: `[B, R, Hw, N]`.
        read_modes: `[B, R, 2 Hw + 1]`, softmax over the last axis, in the order
            backward (Hw), forward (Hw), content (1), as DeepMind's `dnc`.

    Returns:
        `[B, R, N]`, each row sums to at most 1.
    """
    num_write_heads = ops.shape(forward)[2]
    backward_mode = read_modes[:, :, :num_write_heads, None]
    forward_mode = read_modes[:, :, num_write_heads : 2 * num_write_heads, None]
    content_mode = read_modes[:, :, 2 * num_write_heads :]
    return (
        content_mode * content
        + ops.sum(backward_mode * backward, axis=2)
        + ops.sum(forward_mode * forward, axis=2)
    )


# ----------------------------------------------------------------------------
# Reading and writing (DNC and NTM).
# ----------------------------------------------------------------------------


def erase_and_write(memory, write_weights, erase_vectors, write_vectors):
    """`M_t = M_{t-1} * prod_h (1 - w_h e_h^T) + sum_h w_h v_h^T`.

    Args:
        memory: `[B, N, W]`.
        write_weights: `[B, Hw, N]`.
        erase_vectors: `[B, Hw, W]` in [0, 1].
        write_vectors: `[B, Hw, W]`.

    Returns:
        `[B, N, W]`.
    """
    erase = write_weights[:, :, :, None] * erase_vectors[:, :, None, :]
    keep = product_over_heads(1.0 - erase)
    add = ops.matmul(ops.transpose(write_weights, (0, 2, 1)), write_vectors)
    return memory * keep + add


def read_memory(memory, read_weights):
    """Read vectors `r = M^T w^r`.

    Args:
        memory: `[B, N, W]`.
        read_weights: `[B, R, N]`.

    Returns:
        `[B, R, W]`.
    """
    return ops.matmul(read_weights, memory)


# ----------------------------------------------------------------------------
# NTM: location-based addressing.
# ----------------------------------------------------------------------------


def interpolate(content, prev_weights, gates):
    """Interpolation gate, NTM eq. (7): `w^g = g w^c + (1 - g) w_{t-1}`.

    Args:
        content: `[B, H, N]`.
        prev_weights: `[B, H, N]`.
        gates: `[B, H]` in [0, 1].

    Returns:
        `[B, H, N]`.
    """
    gates = gates[:, :, None]
    return gates * content + (1.0 - gates) * prev_weights


def circular_shift(weights, shifts):
    """Circular convolution, NTM eq. (8): `w~[i] = sum_j w[j] s[i - j mod N]`.

    With a static memory size, one gather of the `2 S + 1` rolled copies
    of `weights` and a weighted sum over them: builtin ops in every runtime,
    and no slices, which ONNX converters fail to carry into the branches of
    a write schedule's `If`.

    Args:
        weights: `[B, H, N]`.
        shifts: `[B, H, 2 S + 1]`, a distribution over the shifts
            `-S, ..., 0, ..., S` (in that order).

    Returns:
        `[B, H, N]`.
    """
    num_shifts = shifts.shape[-1]
    shift_range = (num_shifts - 1) // 2
    num = weights.shape[-1]
    if num is None:
        result = 0.0
        for k in range(num_shifts):
            # roll(w, offset)[i] = w[i - offset]: the weight moves by `offset`.
            rolled = ops.roll(weights, k - shift_range, axis=-1)
            result = result + shifts[:, :, k : k + 1] * rolled
        return result
    # rolled[b, h, k, i] = w[b, h, i - offset_k mod N]
    offsets = np.arange(num_shifts)[:, None] - shift_range
    indices = (np.arange(num)[None, :] - offsets) % num  # [2 S + 1, N]
    rolled = ops.take(weights, indices.astype("int32"), axis=-1)
    return ops.sum(ops.expand_dims(shifts, -1) * rolled, axis=2)


def sharpen(weights, gamma, epsilon=EPSILON):
    """Sharpening, NTM eq. (9): `w[i] = w~[i]^gamma / sum_j w~[j]^gamma`.

    `eps` is added before the power (so `d/d gamma` stays finite at 0), and
    the weights are divided by their maximum first (which cancels in the
    ratio), so the largest power is 1 and the sum cannot underflow for any
    `gamma`.

    Args:
        weights: `[B, H, N]`, non-negative.
        gamma: `[B, H]`, >= 1.

    Returns:
        `[B, H, N]`, each row sums to 1.
    """
    weights = weights + epsilon
    # The maximum cancels in the ratio: no gradient flows through it.
    scaled = weights / ops.stop_gradient(ops.max(weights, axis=-1, keepdims=True))
    powered = ops.power(scaled, gamma[:, :, None])
    return powered / ops.sum(powered, axis=-1, keepdims=True)
