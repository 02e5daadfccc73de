"""The RWA/RDA recurrence as two Pallas kernels (JAX): forward and backward.

Computes exactly `keras_rda.ops.rda_recurrence.fused_recurrence`, the RDA
unit of the RDA paper, section 5 (the RWA being `gamma_t = 1`), with the
scaled running average of `keras_rda.ops.attention_average` (RWA paper,
Appendix D). Masked steps keep the state and repeat `h_{t-1}`.

Equations: see `keras_rda.ops.rda_recurrence` (the forward step and the
closed-form backward step, written out once there).

Passes. The forward pass is one `pallas_call`: the whole time loop is a
`lax.fori_loop` inside the kernel, and the state `(h, n, d, m)` stays in
float32 values (registers) from the first step to the last. The backward
pass is a second `pallas_call` running time in reverse, carrying the
gradients `(dh, dn, dd, dm)` of the state, with the closed-form step of
`rda_recurrence` (see its docstring); it writes `dP_t`, the gradient of the
projections, per step. After it, `dR = sum_t (h_{t-1} r)^T dG_t` is one
matmul over all `time * batch` rows, outside the kernel; the gradients of
the projection's kernel and bias come from autodiff of the projection in
the layer. Gradients flow to `projected`, `recurrent_kernel` and the four
initial states (`m_0` gets what the portable path gives it: the gradient of
`m_0 + log gamma_t` at the first real step t, 0 where `d_0 = 0`). As on the
portable path, `h_t` is rounded to the dtype of `h_0` at every step.

Saved for the backward pass (float32, `[time, batch, units]` each, padded):
`h_t` (the output anyway), `n_t`, `d_t`, `m_t`, and the gate
pre-activations `G_t` (`(k - 1)` blocks). The backward recomputes from
them `tanh g_t`, `log a_t`, `log gamma_t`, the weights `p_t`, `q_t`, `n_t`,
`d_t` and `f_h(n_t / d_t)`, element-wise; it does not recompute the
recurrent matmul. When no gradient is asked for (inference), the forward
kernel writes only `h_t` and the final `(n, d, m)`.

Tiling. The grid runs over tiles of `BLOCK_BATCH` batch rows: rows are
independent, so the programs never synchronise. Units are padded to a
power of two of at least 16 (Triton's block and `tl.dot` sizes) and split
into column blocks of at most `BLOCK_UNITS`; the recurrent matmul of a step
is a static set of `[BLOCK_BATCH, block] x [block, block]` dots per gate,
each reading its block of `R` (kept as `[k - 1, units, units]`) from the
cache at every step: at 250 units `R` is 768 KB, more than on-chip memory.
Padded rows and columns hold zeros, stay finite, and are sliced away.

Supports: RDA and RWA (`discount`), attention `exp`, `sigmoid`, `softplus`,
`relu`, hidden activation `linear` or `tanh`, a step mask, a recurrent
dropout mask, given initial states, and float32, float16 or bfloat16
inputs (computed in float32; results in the dtypes `fused_recurrence`
returns). Not float64 (`unsupported_reason`). The per-step dots run in IEEE
float32 on the Triton backend by default (`PRECISIONS`); `precision="tf32"`
runs them as TF32 and `"bfloat16"` casts their operands to bfloat16, both
accumulating in float32 (`_dot`); `dR` stays a float32 matmul. In interpret
mode TF32 is emulated (operands truncated to 10 mantissa bits), as the CPU
has no TF32.

`interpret=True` runs both kernels through Pallas's interpreter (CPU, CI);
otherwise they lower through Pallas's Triton backend on a GPU.
"""

import collections
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from keras_rda.ops import attention_average
from keras_rda.ops import rda_recurrence
from keras_rda.utils import validation

#: Batch rows per program (Triton's `tl.dot` needs at least 16).
BLOCK_BATCH = 16
#: The widest column block of the units in one dot.
BLOCK_UNITS = 64
#: The smallest padded number of units (Triton's `tl.dot` needs 16).
MIN_UNITS = 16
#: Warps per program on the Triton backend.
NUM_WARPS = 4
#: Software-pipeline stages of the Triton backend: 1, none (the kernel's
#: loop is the time loop, each step's dots depend on the one before).
NUM_STAGES = 1
#: The `lax` precision of the in-kernel dots by `precision`
#: (`kernels.KERNEL_PRECISIONS`): HIGHEST is IEEE float32 on the Triton
#: backend, DEFAULT TF32 (and, for bfloat16 operands, the bfloat16 dot).
PRECISIONS = {
    "float32": lax.Precision.HIGHEST,
    "tf32": lax.Precision.DEFAULT,
    "bfloat16": lax.Precision.DEFAULT,
}
#: The float32 bits a TF32 operand keeps (sign, exponent, 10 mantissa
#: bits), as a uint32: interpret mode's TF32 emulation.
TF32_MASK = 0xFFFFE000

_ATTENTION = attention_average.ATTENTION_ACTIVATIONS
_HIDDEN = attention_average.HIDDEN_ACTIVATIONS
_INPUT_DTYPES = ("float32", "float16", "bfloat16")
_SOFTPLUS_LINEAR_BELOW = attention_average.SOFTPLUS_LINEAR_BELOW
_F32 = jnp.float32

# Static shape and configuration of one call, closed over by the kernels.
_Layout = collections.namedtuple(
    "_Layout",
    [
        "time",
        "blocks",  # k: u, g, a[, gamma]
        "units",  # padded
        "block_units",
        "block_batch",
        "discount",
        "attention",
        "hidden",
        "hidden_dtype",  # h is rounded to it every step, as the portable path
        "has_mask",
        "has_recurrent_mask",
        "precision",  # of the per-step dots: a key of `PRECISIONS`
        "interpret",
    ],
)


def unsupported_reason(spec, dtype):
    """Why the kernel cannot compute this configuration, or None.

    Args:
        spec: a `rda_recurrence.RecurrenceSpec`.
        dtype: the compute dtype of `projected` (a name or a dtype).

    Returns:
        None, or a short sentence naming what is not supported.
    """
    name = jnp.dtype(dtype).name
    if name not in _INPUT_DTYPES:
        return (
            "the Pallas recurrence computes in float32 and takes float32, "
            f"float16 or bfloat16 inputs, not {name}"
        )
    acc = jnp.dtype(spec.acc_dtype).name
    if acc != "float32":
        return f"the Pallas recurrence accumulates in float32, not {acc}"
    if spec.attention_activation not in _ATTENTION:
        return f"attention_activation={spec.attention_activation!r} has no kernel"
    if spec.hidden_activation not in _HIDDEN:
        return f"hidden_activation={spec.hidden_activation!r} has no kernel"
    return None


# ------------------------------------------------------- element-wise math
# The same lines as `attention_average` and `rda_recurrence`, on jnp values
# inside the kernels (`[block_batch, block_units]` each).


def _log_sigmoid(x):
    """`log sigmoid(x)`, stable for every finite x."""
    return jnp.minimum(x, 0.0) - jnp.log1p(jnp.exp(-jnp.abs(x)))


def _softplus(x):
    return jnp.maximum(x, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


def _sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def _log_attention(logits, activation):
    """`(log f_a(logits), positive)` as `attention_average.log_attention`."""
    if activation == "exp":
        return logits, None
    if activation == "sigmoid":
        return _log_sigmoid(logits), None
    if activation == "softplus":
        safe = jnp.maximum(logits, _SOFTPLUS_LINEAR_BELOW)
        linear = logits < _SOFTPLUS_LINEAR_BELOW
        return jnp.where(linear, logits, jnp.log(_softplus(safe))), None
    positive = logits > 0.0
    return jnp.log(jnp.where(positive, logits, 1.0)), positive


def _log_attention_slope(logits, activation):
    """`d log f_a(x) / dx`, as `rda_recurrence._log_attention_slope`."""
    if activation == "exp":
        return jnp.ones_like(logits)
    if activation == "sigmoid":
        return _sigmoid(-logits)
    if activation == "softplus":
        safe = jnp.maximum(logits, _SOFTPLUS_LINEAR_BELOW)
        slope = _sigmoid(safe) / _softplus(safe)
        return jnp.where(logits < _SOFTPLUS_LINEAR_BELOW, 1.0, slope)
    positive = logits > 0.0
    return jnp.where(positive, 1.0 / jnp.where(positive, logits, 1.0), 0.0)


def _safe_denominator(d):
    """`d` where `d > 0`, else 1 (`attention_average.safe_denominator`)."""
    return jnp.where(d > 0.0, d, 1.0)


def _average_weights(d_prev, m_prev, log_a, log_gamma, positive):
    """`(p_t, q_t, m_t)` as `attention_average.average_weights`."""
    past = m_prev if log_gamma is None else m_prev + log_gamma
    past = jnp.where(d_prev > 0.0, past, log_a)
    if positive is None:
        m = jnp.maximum(past, log_a)
        return jnp.exp(past - m), jnp.exp(log_a - m), m
    current = jnp.where(positive, log_a, past)
    m = jnp.maximum(past, current)
    safe_log_a = jnp.where(positive, log_a, m)
    q = jnp.where(positive, jnp.exp(safe_log_a - m), 0.0)
    return jnp.exp(past - m), q, m


def _dot(left, right, layout, transpose_right=False):
    """`left @ right`, or `left @ right.T`, at `layout.precision`,
    accumulated in float32."""
    if layout.precision == "bfloat16":
        left, right = left.astype(jnp.bfloat16), right.astype(jnp.bfloat16)
    elif layout.precision == "tf32" and layout.interpret:
        left, right = _tf32_values(left), _tf32_values(right)
    return lax.dot_general(
        left,
        right,
        (((1,), (1 if transpose_right else 0,)), ((), ())),
        precision=PRECISIONS[layout.precision],
        preferred_element_type=_F32,
    )


def _tf32_values(x):
    """Float32 `x` with TF32's 10 mantissa bits, the others cleared (as the
    tensor cores ignore them)."""
    bits = lax.bitcast_convert_type(x, jnp.uint32) & jnp.uint32(TF32_MASK)
    return lax.bitcast_convert_type(bits, _F32)


def _hidden_of(n, d, layout):
    """`f_h(n / d)` in float32."""
    average = n / _safe_denominator(d)
    return jnp.tanh(average) if layout.hidden == "tanh" else average


def _columns(c, layout):
    """The `c`-th column block of the padded units."""
    return pl.ds(c * layout.block_units, layout.block_units)


def _num_column_blocks(layout):
    return layout.units // layout.block_units


def _load_chunks(ref, layout, *index):
    """`ref[*index, :, block]` for every column block, in float32."""
    return tuple(
        ref[(*index, slice(None), _columns(c, layout))].astype(_F32)
        for c in range(_num_column_blocks(layout))
    )


def _select(mask, new, old):
    return new if mask is None else jnp.where(mask, new, old)


def _step_mask(mask_ref, t):
    """`[bb, 1]`: whether step `t` is real for each row, or None unmasked."""
    if mask_ref is None:
        return None
    return mask_ref[t, :].astype(_F32)[:, None] > 0.0


def _average_weights_of(g_pre, d_prev, m_prev, layout):
    """`(p_t, q_t, m_t)` from the gate pre-activations `g_pre` (g, a[,
    gamma]) of one column block."""
    log_a, positive = _log_attention(g_pre[1], layout.attention)
    log_gamma = _log_sigmoid(g_pre[2]) if layout.discount else None
    return _average_weights(d_prev, m_prev, log_a, log_gamma, positive)


# ----------------------------------------------------------------- forward


def _gate_preactivations(p_ref, r_ref, h_in, t, c, layout):
    """`G_t`'s gate blocks (g, a[, gamma]) on column block `c`: `P_t`'s
    plus `(h_{t-1} r) R`, one `[bb, block] x [block, block]` dot per column
    block of `h_{t-1} r` (`h_in`)."""
    cols = _columns(c, layout)
    g_pre = []
    for j in range(layout.blocks - 1):
        acc = p_ref[t, :, j + 1, cols].astype(_F32)
        for kc in range(_num_column_blocks(layout)):
            acc = acc + _dot(
                h_in[kc], r_ref[j, _columns(kc, layout), cols].astype(_F32), layout
            )
        g_pre.append(acc)
    return g_pre


def _forward_block(u, g_pre, h_prev, n_prev, d_prev, m_prev, mask, layout):
    """The step on one column block: `(h_t, n_t, d_t, m_t)`, the previous
    state where the step is skipped."""
    p, q, m = _average_weights_of(g_pre, d_prev, m_prev, layout)
    z = u * jnp.tanh(g_pre[0])
    n = n_prev * p + z * q
    d = d_prev * p + q
    h = _hidden_of(n, d, layout)
    if layout.hidden_dtype != "float32":
        h = h.astype(layout.hidden_dtype).astype(_F32)
    olds = (h_prev, n_prev, d_prev, m_prev)
    return tuple(_select(mask, new, old) for new, old in zip((h, n, d, m), olds))


def _forward_kernel(layout, save, *refs):
    """One batch tile, all steps. Refs (blocks of this tile):

    inputs: projected `[T, bb, k, U]`, kernel `[k - 1, U, U]`, h0, n0, d0,
    m0 `[bb, U]`, [mask `[T, bb]`], [recurrent mask `[bb, U]`];
    outputs: hidden `[T, bb, U]`, final n, d, m `[bb, U]`, and with `save`
    n, d, m `[T, bb, U]` and gates `[T, bb, k - 1, U]` of every step.
    """
    refs = list(refs)
    p_ref, r_ref, h0_ref, n0_ref, d0_ref, m0_ref = refs[:6]
    del refs[:6]
    mask_ref = refs.pop(0) if layout.has_mask else None
    rmask_ref = refs.pop(0) if layout.has_recurrent_mask else None
    hid_ref, n_out, d_out, m_out = refs[:4]
    saved_refs = refs[4:] if save else None
    chunks = _num_column_blocks(layout)
    rmask = _load_chunks(rmask_ref, layout) if rmask_ref is not None else None

    def step(t, carry):
        h_in = carry[0]
        if rmask is not None:
            h_in = tuple(h * r for h, r in zip(h_in, rmask))
        mask = _step_mask(mask_ref, t)
        new = ([], [], [], [])
        for c in range(chunks):
            cols = _columns(c, layout)
            g_pre = _gate_preactivations(p_ref, r_ref, h_in, t, c, layout)
            u = p_ref[t, :, 0, cols].astype(_F32)
            state = (x[c] for x in carry)
            for out, value in zip(new, _forward_block(u, g_pre, *state, mask, layout)):
                out.append(value)
            hid_ref[t, :, cols] = new[0][c]
            if save:
                for ref, value in zip(saved_refs[:3], new[1:]):
                    ref[t, :, cols] = value[c]
                for j, value in enumerate(g_pre):
                    saved_refs[3][t, :, j, cols] = value
        return tuple(tuple(x) for x in new)

    initial = tuple(
        _load_chunks(ref, layout) for ref in (h0_ref, n0_ref, d0_ref, m0_ref)
    )
    _, n, d, m = lax.fori_loop(0, layout.time, step, initial)
    for ref, value in zip((n_out, d_out, m_out), (n, d, m)):
        for c in range(chunks):
            ref[:, _columns(c, layout)] = value[c]


# ---------------------------------------------------------------- backward


def _backward_block(dh, u, g_pre, n_prev, d_prev, m_prev, dn_next, dd_next, layout):
    """Back through the step on one column block (`rda_recurrence`'s
    backward step), from `dh` (the upstream of `h_t` included) and the
    gradients `(dn, dd)` of the state after it.

    Returns:
        `(d_u, d_gates, dn, dd, p, d_past)`: the gradient of `u_t`, those of
        the gate blocks (g, a[, gamma]), those of `n_t` and `d_t` (the state
        before the step gets `dn p`, `dd p` and `dm_{t-1} = d_past`), and
        the step's weight `p_t`.
    """
    tanh_g = jnp.tanh(g_pre[0])
    p, q, _ = _average_weights_of(g_pre, d_prev, m_prev, layout)
    z = u * tanh_g
    n = n_prev * p + z * q
    d = d_prev * p + q
    d_inv = 1.0 / _safe_denominator(d)
    average = n * d_inv
    d_average = dh
    if layout.hidden == "tanh":
        hidden = _hidden_of(n, d, layout)
        d_average = dh * (1.0 - hidden * hidden)
    dn = dn_next + d_average * d_inv
    dd = dd_next - d_average * average * d_inv
    dz = dn * q
    dq = dn * z + dd
    d_past = (dn * n_prev + dd * d_prev) * p
    d_past = jnp.where(d_prev > 0.0, d_past, 0.0)
    d_gates = [
        dz * u * (1.0 - tanh_g * tanh_g),
        dq * q * _log_attention_slope(g_pre[1], layout.attention),
    ]
    if layout.discount:
        d_gates.append(d_past * _sigmoid(-g_pre[2]))
    return dz * tanh_g, d_gates, dn, dd, p, d_past


def _recurrent_gradient(d_gates, r_ref, kc, layout):
    """`dG_t R^T` on column block `kc` of `h_{t-1}`: the sum over the gates
    and the column blocks `c` of `dG_j[c] . R_j[kc, c]^T`."""
    acc = jnp.zeros_like(d_gates[0][0])
    for c in range(_num_column_blocks(layout)):
        for j in range(layout.blocks - 1):
            acc = acc + _dot(
                d_gates[c][j],
                r_ref[j, _columns(kc, layout), _columns(c, layout)].astype(_F32),
                layout,
                transpose_right=True,
            )
    return acc


def _backward_kernel(layout, *refs):
    """One batch tile, all steps in reverse. Refs (blocks of this tile):

    inputs: projected, kernel, h0, n0, d0, m0, [mask], [recurrent mask] as
    in the forward kernel; the saved n, d, m `[T, bb, U]` and gates
    `[T, bb, k - 1, U]`; the upstream gradients of hidden `[T, bb, U]` and
    of the final n, d, m `[bb, U]`;
    outputs: d_projected `[T, bb, k, U]`, dh0, dn0, dd0, dm0 `[bb, U]`.
    """
    refs = list(refs)
    p_ref, r_ref, _, n0_ref, d0_ref, m0_ref = refs[:6]
    del refs[:6]
    mask_ref = refs.pop(0) if layout.has_mask else None
    rmask_ref = refs.pop(0) if layout.has_recurrent_mask else None
    n_ref, d_ref, m_ref, g_ref, dhid_ref, dn_in, dd_in, dm_in = refs[:8]
    dp_ref, dh0_ref, dn0_ref, dd0_ref, dm0_ref = refs[8:]
    chunks = _num_column_blocks(layout)
    rmask = _load_chunks(rmask_ref, layout) if rmask_ref is not None else None
    initial_state = tuple(_load_chunks(ref, layout) for ref in (n0_ref, d0_ref, m0_ref))

    def previous(ref, initial, t):
        """The state after step `t - 1` (the initial state at t = 0)."""
        loaded = _load_chunks(ref, layout, jnp.maximum(t - 1, 0))
        return tuple(jnp.where(t > 0, x, x0) for x, x0 in zip(loaded, initial))

    def step(i, carry):
        t = layout.time - 1 - i
        dh_next, dn_next, dd_next, dm_next = carry
        n_prev, d_prev, m_prev = (
            previous(ref, x0, t)
            for ref, x0 in zip((n_ref, d_ref, m_ref), initial_state)
        )
        mask = _step_mask(mask_ref, t)
        dh_all, d_gates, new_n, new_d, new_m = [], [], [], [], []
        for c in range(chunks):
            cols = _columns(c, layout)
            dh = dh_next[c] + dhid_ref[t, :, cols].astype(_F32)
            u = p_ref[t, :, 0, cols].astype(_F32)
            g_pre = [g_ref[t, :, j, cols] for j in range(layout.blocks - 1)]
            d_u, blocks, dn, dd, p, d_past = _backward_block(
                dh, u, g_pre, n_prev[c], d_prev[c], m_prev[c], dn_next[c],
                dd_next[c], layout,
            )  # fmt: skip
            for j, value in enumerate([d_u] + blocks):
                dp_ref[t, :, j, cols] = _select(mask, value, 0.0)
            dh_all.append(dh)
            d_gates.append(blocks)
            new_n.append(_select(mask, dn * p, dn_next[c]))
            new_d.append(_select(mask, dd * p, dd_next[c]))
            new_m.append(_select(mask, d_past, dm_next[c]))
        new_h = []
        for kc in range(chunks):
            acc = _recurrent_gradient(d_gates, r_ref, kc, layout)
            if rmask is not None:
                acc = acc * rmask[kc]
            new_h.append(_select(mask, acc, dh_all[kc]))
        return tuple(new_h), tuple(new_n), tuple(new_d), tuple(new_m)

    initial = (
        tuple(
            jnp.zeros((layout.block_batch, layout.block_units), _F32)
            for _ in range(chunks)
        ),
        _load_chunks(dn_in, layout),
        _load_chunks(dd_in, layout),
        _load_chunks(dm_in, layout),
    )
    final = lax.fori_loop(0, layout.time, step, initial)
    for ref, value in zip((dh0_ref, dn0_ref, dd0_ref, dm0_ref), final):
        for c in range(chunks):
            ref[:, _columns(c, layout)] = value[c]


# ------------------------------------------------------------- pallas_call


def _specs(layout):
    """Block specs of the kernels' operands, by kind."""
    t, k, u, bb = layout.time, layout.blocks, layout.units, layout.block_batch
    return {
        "projected": pl.BlockSpec((t, bb, k, u), lambda b: (0, b, 0, 0)),
        "gates": pl.BlockSpec((t, bb, k - 1, u), lambda b: (0, b, 0, 0)),
        "kernel": pl.BlockSpec((k - 1, u, u), lambda b: (0, 0, 0)),
        "row": pl.BlockSpec((bb, u), lambda b: (b, 0)),
        "sequence": pl.BlockSpec((t, bb, u), lambda b: (0, b, 0)),
        "mask": pl.BlockSpec((t, bb), lambda b: (0, b)),
    }


def _compiler_params(interpret):
    if interpret:
        return None
    from jax.experimental.pallas import triton as pl_triton

    return pl_triton.CompilerParams(num_warps=NUM_WARPS, num_stages=NUM_STAGES)


def _extra_specs(layout, specs):
    return [specs["mask"]] * layout.has_mask + [
        specs["row"]
    ] * layout.has_recurrent_mask


def _run_forward(layout, save, interpret, inputs):
    """The forward `pallas_call` over padded float32 inputs."""
    projected = inputs[0]
    t, batch, _, u = projected.shape
    specs = _specs(layout)
    sequence = jax.ShapeDtypeStruct((t, batch, u), _F32)
    row = jax.ShapeDtypeStruct((batch, u), _F32)
    out_shape = [sequence, row, row, row]
    out_specs = [specs["sequence"]] + [specs["row"]] * 3
    if save:
        gates = jax.ShapeDtypeStruct((t, batch, layout.blocks - 1, u), _F32)
        out_shape += [sequence, sequence, sequence, gates]
        out_specs += [specs["sequence"]] * 3 + [specs["gates"]]
    return pl.pallas_call(
        functools.partial(_forward_kernel, layout, save),
        out_shape=out_shape,
        grid=(batch // layout.block_batch,),
        in_specs=[specs["projected"], specs["kernel"]]
        + [specs["row"]] * 4
        + _extra_specs(layout, specs),
        out_specs=out_specs,
        interpret=interpret,
        compiler_params=_compiler_params(interpret),
        name="rda_recurrence_forward",
    )(*inputs)


def _run_backward(layout, interpret, inputs, saved, upstream):
    """The backward `pallas_call`: `(d_projected, dh0, dn0, dd0, dm0)`."""
    projected = inputs[0]
    t, batch, k, u = projected.shape
    specs = _specs(layout)
    row = jax.ShapeDtypeStruct((batch, u), _F32)
    return pl.pallas_call(
        functools.partial(_backward_kernel, layout),
        out_shape=[jax.ShapeDtypeStruct(projected.shape, _F32)] + [row] * 4,
        grid=(batch // layout.block_batch,),
        in_specs=[specs["projected"], specs["kernel"]]
        + [specs["row"]] * 4
        + _extra_specs(layout, specs)
        + [specs["sequence"]] * 3
        + [specs["gates"], specs["sequence"]]
        + [specs["row"]] * 3,
        out_specs=[specs["projected"]] + [specs["row"]] * 4,
        interpret=interpret,
        compiler_params=_compiler_params(interpret),
        name="rda_recurrence_backward",
    )(*inputs, *saved, *upstream)


def _padded_recurrence(layout, interpret):
    """The differentiable recurrence over padded float32 operands.

    Returns a function of `(projected [T, B, k, U], kernel [k - 1, U, U],
    h0, n0, d0, m0 [B, U], *extra)` (extra: mask `[T, B]`, recurrent mask
    `[B, U]`, as in `layout`) giving `(hidden [T, B, U], n, d, m [B, U])`.
    """

    @jax.custom_vjp
    def run(*inputs):
        return tuple(_run_forward(layout, False, interpret, inputs))

    def forward(*inputs):
        hidden, n, d, m, *saved = _run_forward(layout, True, interpret, inputs)
        return (hidden, n, d, m), (inputs, hidden, saved)

    def backward(residuals, upstream):
        inputs, hidden, saved = residuals
        d_projected, *d_initial = _run_backward(
            layout, interpret, inputs, saved, upstream
        )
        h0 = inputs[2]
        recurrent_mask = inputs[-1] if layout.has_recurrent_mask else None
        d_kernel = _recurrent_kernel_gradient(d_projected, hidden, h0, recurrent_mask)
        extra = [jnp.zeros_like(x) for x in inputs[6:]]
        return (d_projected, d_kernel, *d_initial, *extra)

    run.defvjp(forward, backward)
    return run


def _recurrent_kernel_gradient(d_projected, hidden, h0, recurrent_mask):
    """`dR_j = sum_t (h_{t-1} r)^T dG^j_t`, one matmul over all rows.

    Args:
        d_projected: `[T, B, k, U]`; blocks 1.. are the gates' `dG_t`.
        hidden: `[T, B, U]`, `h_t`.
        h0: `[B, U]`.
        recurrent_mask: None or `[B, U]`.

    Returns:
        `[k - 1, U, U]`, in the layout of the padded kernel.
    """
    h_prev = jnp.concatenate([h0[None], hidden[:-1]], axis=0)
    if recurrent_mask is not None:
        h_prev = h_prev * recurrent_mask
    return jnp.einsum(
        "tbi,tbjo->jio",
        h_prev,
        d_projected[:, :, 1:],
        precision=lax.Precision.HIGHEST,
    )


# ------------------------------------------------------------------ the op


def _padded_size(units, block_units):
    padded = max(MIN_UNITS, pl.next_power_of_2(units))
    return padded, min(padded, max(block_units, MIN_UNITS))


def _pad(x, sizes):
    """Zero-pads `x` at the end of each axis to `sizes`."""
    return jnp.pad(x, [(0, s - n) for n, s in zip(x.shape, sizes)])


def recurrence(
    projected,
    recurrent_kernel,
    initial_state,
    spec,
    mask=None,
    recurrent_mask=None,
    precision="float32",
    interpret=False,
):
    """`rda_recurrence.fused_recurrence` as a forward and a backward kernel.

    Args:
        projected: `[time, batch, k * units]`, `W x_t + b` of every step
            (blocks u, g, a[, gamma]); float32, float16 or bfloat16.
        recurrent_kernel: `[units, (k - 1) * units]`.
        initial_state: `[h_0, n_0, d_0, m_0]`, each `[batch, units]`.
        spec: a `rda_recurrence.RecurrenceSpec`.
        mask: None or boolean `[time, batch, 1]`, False at steps to skip.
        recurrent_mask: None or `[batch, units]`, the recurrent dropout
            mask applied to `h_{t-1}`.
        precision: the per-step dots' operands: `"float32"` (IEEE),
            `"tf32"` or `"bfloat16"` (`kernels.KERNEL_PRECISIONS`),
            accumulated in float32.
        interpret: run the kernels in Pallas's interpreter (on a CPU).

    Returns:
        `(hidden, n, d, m)`: `hidden` `[time, batch, units]` in the dtype of
        `h_0`, and the final `n`, `d`, `m`, each `[batch, units]` in the
        dtypes of `n_0`, `d_0`, `m_0`. Differentiable (`jax.custom_vjp`)
        with respect to `projected`, `recurrent_kernel` and the initial
        state.

    Raises:
        ValueError: the configuration is not supported (see
            `unsupported_reason`), `projected` or `recurrent_kernel`
            does not have the unit's shape, or `precision` is not one of
            `kernels.KERNEL_PRECISIONS`.
    """
    _check_arguments(projected, recurrent_kernel, spec)
    time, batch, _ = projected.shape
    h0, n0, d0, m0 = initial_state
    padded_units, block_units = _padded_size(spec.units, BLOCK_UNITS)
    layout = _Layout(
        time=time,
        blocks=rda_recurrence.projection_blocks(spec.discount),
        units=padded_units,
        block_units=block_units,
        block_batch=BLOCK_BATCH,
        discount=bool(spec.discount),
        attention=spec.attention_activation,
        hidden=spec.hidden_activation,
        hidden_dtype=jnp.dtype(h0.dtype).name,
        has_mask=mask is not None,
        has_recurrent_mask=recurrent_mask is not None,
        precision=validation.one_of("precision", precision, tuple(PRECISIONS)),
        interpret=bool(interpret),
    )
    inputs = _padded_inputs(
        layout, projected, recurrent_kernel, initial_state, mask, recurrent_mask
    )
    hidden, n, d, m = _padded_recurrence(layout, interpret)(*inputs)
    units = spec.units
    return (
        hidden[:, :batch, :units].astype(h0.dtype),
        n[:batch, :units].astype(n0.dtype),
        d[:batch, :units].astype(d0.dtype),
        m[:batch, :units].astype(m0.dtype),
    )


def _check_arguments(projected, recurrent_kernel, spec):
    """Raises the `ValueError` of `recurrence` where the configuration has
    no kernel or the shapes do not fit the unit."""
    reason = unsupported_reason(spec, projected.dtype)
    if reason is not None:
        raise ValueError(f"The Pallas recurrence cannot run: {reason}.")
    units = spec.units
    blocks = rda_recurrence.projection_blocks(spec.discount)
    if projected.ndim != 3 or projected.shape[-1] != blocks * units:
        raise ValueError(
            "Received an invalid value for argument `projected`, expected "
            f"shape [time, batch, {blocks * units}], got {projected.shape}"
        )
    if tuple(recurrent_kernel.shape) != (units, (blocks - 1) * units):
        raise ValueError(
            "Received an invalid value for argument `recurrent_kernel`, "
            f"expected shape ({units}, {(blocks - 1) * units}), got "
            f"{tuple(recurrent_kernel.shape)}"
        )
    if projected.shape[0] == 0:
        raise ValueError(
            "Received an invalid value for argument `projected`, expected at "
            f"least one step, got shape {projected.shape}"
        )


def _padded_inputs(layout, projected, recurrent_kernel, initial_state, mask, rmask):
    """The kernels' operands, float32, zero-padded to `layout`'s units and
    to a multiple of `BLOCK_BATCH` rows: projected `[T, B, k, U]`, the
    recurrent kernel as `[k - 1, U, U]`, h0, n0, d0, m0 `[B, U]`, then the
    step mask `[T, B]` and the recurrent mask `[B, U]` where given."""
    time, batch, _ = projected.shape
    blocks, padded_units = layout.blocks, layout.units
    units = initial_state[0].shape[-1]
    padded_batch = -(-batch // BLOCK_BATCH) * BLOCK_BATCH
    row = (padded_batch, padded_units)
    p = jnp.reshape(projected.astype(_F32), (time, batch, blocks, units))
    kernel = jnp.reshape(recurrent_kernel.astype(_F32), (units, blocks - 1, units))
    inputs = [
        _pad(p, (time, padded_batch, blocks, padded_units)),
        _pad(
            jnp.transpose(kernel, (1, 0, 2)), (blocks - 1, padded_units, padded_units)
        ),
    ] + [_pad(jnp.asarray(s).astype(_F32), row) for s in initial_state]
    if mask is not None:
        step_mask = jnp.reshape(jnp.asarray(mask), (time, batch)).astype(_F32)
        inputs.append(_pad(step_mask, (time, padded_batch)))
    if rmask is not None:
        inputs.append(_pad(jnp.asarray(rmask).astype(_F32), row))
    return inputs
