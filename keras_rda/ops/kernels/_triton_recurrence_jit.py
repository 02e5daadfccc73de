"""The Triton kernels of `keras_rda.ops.kernels.triton_recurrence` (private).

Importing this module imports Triton and decorates the kernels: do it only
through `triton_recurrence._kernels`, which sets `TRITON_INTERPRET` first
when interpret mode is asked for (Triton reads it when `triton.jit`
decorates), and never in a process that has loaded TensorFlow.

Equations: see `keras_rda.ops.rda_recurrence` (the forward step and the
closed-form backward step).

Layouts (all contiguous, row-major; `K = k - 1` gate blocks, `k` = 4 with a
discount, 3 without):

- `P` `[time, batch, k * units]`: blocks u, g, a[, gamma].
- `R` `[U_PAD, K * U_PAD]`: the recurrent kernel's blocks g, a[, gamma],
  each zero-padded to `U_PAD` rows and columns (a multiple of `BLOCK_K`
  floats), so that every row and block of `R` starts 128-byte aligned.
- `H` `[time, batch, units]` (the hidden output), `H0`, `N0`, `D0`, `M0`,
  `RM` (recurrent dropout mask) `[batch, units]`, `MASK` int8 `[time, batch]`.
- Saved for the backward pass, float32: `G` `[time, batch, K * units]` (the
  gate pre-activations `P_t[g, a, gamma] + (h_{t-1} r) R`), `N`, `D`, `M`
  `[time, batch, units]` (the state after every step, masked steps
  repeating it).

Every program owns `BLOCK_B` batch rows and all `units` (padded to
`BLOCK_U`, a power of two, for the register tiles; loads and stores are
masked) and runs the whole time loop. The recurrent matmuls read their
left operand (`h_{t-1}` forward, `dG_t` backward) back from the output the
same program has just written, in `BLOCK_K` column chunks (a register
tensor cannot be sliced), after a barrier, up to `U_PAD` (not `BLOCK_U`);
`R` is read from the cache in `[BLOCK_K, BLOCK_U]` tiles. The program's
tile (`_tile`), the recurrent matmul's settings `matmul: tl.constexpr =
(U_PAD, BLOCK_K, PRECISION, EMULATE)` (built once per kernel, read by index
in `_gate_matmul`) and groups of tiles read or written together travel
between the helpers as tuples (Triton inlines every helper).
"""

import triton
import triton.language as tl

#: Codes of the attention activations (`attention_average.ATTENTION_ACTIVATIONS`).
EXP = tl.constexpr(0)
SIGMOID = tl.constexpr(1)
SOFTPLUS = tl.constexpr(2)
RELU = tl.constexpr(3)
#: Codes of the recurrent matmul's precisions (`kernels.KERNEL_PRECISIONS`):
#: IEEE float32, TF32 tensor cores, bfloat16 operands; float32 accumulation.
FLOAT32 = tl.constexpr(0)
TF32 = tl.constexpr(1)
BFLOAT16 = tl.constexpr(2)
#: The float32 bits a TF32 operand keeps (sign, exponent, 10 mantissa
#: bits), those of a bfloat16 (7 mantissa bits), and half a bfloat16 ulp
#: less one (round to nearest, `_tensor_core_operand`).
TF32_MASK = tl.constexpr(0xFFFFE000)
BFLOAT16_MASK = tl.constexpr(0xFFFF0000)
BFLOAT16_HALF = tl.constexpr(0x7FFF)
#: Below this logit `log softplus(x) = x` (`attention_average.SOFTPLUS_LINEAR_BELOW`).
SOFTPLUS_LINEAR_BELOW = tl.constexpr(-20.0)
#: Below this |x| `_tanh` takes its Taylor polynomial (no cancellation).
TANH_TAYLOR_BELOW = tl.constexpr(0.125)


# ------------------------------------------------------------ math helpers
# Triton's interpreter has no libdevice, so tanh and log1p are written from
# exp and log, accurate to a few float32 ulps.


@triton.jit
def _log1p(y):
    """`log(1 + y)` for `y >= 0` (Goldberg's correction of `log(1 + y)`)."""
    w = 1.0 + y
    exact = w == 1.0
    return tl.where(exact, y, tl.log(w) * (y / tl.where(exact, 1.0, w - 1.0)))


@triton.jit
def _tanh(x):
    """`tanh(x)`: a Taylor polynomial below `TANH_TAYLOR_BELOW`, else from
    `exp`."""
    ax = tl.abs(x)
    e = tl.exp(-2.0 * ax)
    large = (1.0 - e) / (1.0 + e)
    x2 = ax * ax
    small = ax * (
        1.0
        + x2
        * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0))))
    )
    magnitude = tl.where(ax < TANH_TAYLOR_BELOW, small, large)
    return tl.where(x < 0.0, -magnitude, magnitude)


@triton.jit
def _sigmoid(x):
    e = tl.exp(-tl.abs(x))  # <= 1: no overflow
    return tl.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


@triton.jit
def _log_sigmoid(x):
    return tl.minimum(x, 0.0) - _log1p(tl.exp(-tl.abs(x)))


@triton.jit
def _softplus(x):
    return tl.maximum(x, 0.0) + _log1p(tl.exp(-tl.abs(x)))


@triton.jit
def _sign(x):
    return tl.where(x > 0.0, 1.0, tl.where(x < 0.0, -1.0, 0.0))


@triton.jit
def _log_attention(logits, ATTENTION: tl.constexpr):
    """`(log f_a(logits), where f_a > 0)` (`attention_average.log_attention`)."""
    positive = logits == logits  # all True
    if ATTENTION == EXP:
        log_a = logits
    elif ATTENTION == SIGMOID:
        log_a = _log_sigmoid(logits)
    elif ATTENTION == SOFTPLUS:
        safe = tl.maximum(logits, SOFTPLUS_LINEAR_BELOW)
        log_a = tl.where(
            logits < SOFTPLUS_LINEAR_BELOW, logits, tl.log(_softplus(safe))
        )
    else:
        positive = logits > 0.0
        log_a = tl.log(tl.where(positive, logits, 1.0))
    return log_a, positive


@triton.jit
def _log_attention_slope(logits, ATTENTION: tl.constexpr):
    """`d log f_a(x) / dx` at `logits` (`rda_recurrence._log_attention_slope`)."""
    if ATTENTION == EXP:
        slope = tl.full(logits.shape, 1.0, tl.float32)
    elif ATTENTION == SIGMOID:
        slope = _sigmoid(-logits)
    elif ATTENTION == SOFTPLUS:
        safe = tl.maximum(logits, SOFTPLUS_LINEAR_BELOW)
        slope = tl.where(
            logits < SOFTPLUS_LINEAR_BELOW, 1.0, _sigmoid(safe) / _softplus(safe)
        )
    else:
        positive = logits > 0.0
        slope = tl.where(positive, 1.0 / tl.where(positive, logits, 1.0), 0.0)
    return slope


@triton.jit
def _average_weights(
    d_prev,
    m_prev,
    log_a,
    positive,
    gamma_logits,
    DISCOUNT: tl.constexpr,
    ATTENTION: tl.constexpr,
):
    """`(p_t, q_t, m_t)` (`attention_average.average_weights`)."""
    past = m_prev
    if DISCOUNT:
        past = m_prev + _log_sigmoid(gamma_logits)
    past = tl.where(d_prev != 0.0, past, log_a)
    if ATTENTION == RELU:
        current = tl.where(positive, log_a, past)
        m = tl.maximum(past, current)
        p = tl.exp(past - m)
        q = tl.where(positive, tl.exp(tl.where(positive, log_a, m) - m), 0.0)
    else:
        m = tl.maximum(past, log_a)
        p = tl.exp(past - m)
        q = tl.exp(log_a - m)
    return p, q, m


# ---------------------------------------------------------- the tiles


@triton.jit
def _tile(B, U, NUM_GATES: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_U: tl.constexpr):
    """The program's tile, one tuple passed whole to the helpers: `(rows,
    row_ok, cols, ok, state, p_row, g_row)`, its batch rows and which are
    real, its columns, its real `[rows, units]` entries, and their offsets
    in a `[batch, units]` matrix, in a step of `P` (`[batch, k * units]`)
    and in a step of `G` (`[batch, K * units]`)."""
    rows = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    cols = tl.arange(0, BLOCK_U)
    row_ok = rows < B
    ok = row_ok[:, None] & (cols < U)[None, :]
    state = rows[:, None] * U + cols[None, :]
    p_row = rows[:, None] * ((NUM_GATES + 1) * U) + cols[None, :]
    g_row = rows[:, None] * (NUM_GATES * U) + cols[None, :]
    return rows, row_ok, cols, ok, state, p_row, g_row


@triton.jit
def _load(ptr, offsets, ok):
    """The `[rows, units]` tile at `offsets`, in float32 (0 where not `ok`)."""
    return tl.load(ptr + offsets, mask=ok, other=0.0).to(tl.float32)


@triton.jit
def _load3(ptrs, offsets, ok):
    """The three tiles at `offsets` of the pointers `ptrs`, in float32."""
    a_ptr, b_ptr, c_ptr = ptrs
    return (
        _load(a_ptr, offsets, ok),
        _load(b_ptr, offsets, ok),
        _load(c_ptr, offsets, ok),
    )


@triton.jit
def _store3(ptrs, offsets, values, ok):
    """Stores the three tiles `values` at `offsets` of the pointers `ptrs`."""
    a_ptr, b_ptr, c_ptr = ptrs
    a, b, c = values
    tl.store(a_ptr + offsets, a, mask=ok)
    tl.store(b_ptr + offsets, b, mask=ok)
    tl.store(c_ptr + offsets, c, mask=ok)


@triton.jit
def _store_blocks(ptr, U, ok, blocks, NUM_BLOCKS: tl.constexpr):
    """Stores the first `NUM_BLOCKS` of the four tiles `blocks` as blocks of
    `U` columns at `ptr` (a step of `G` or of `dP`)."""
    a, b, c, d = blocks
    tl.store(ptr, a, mask=ok)
    tl.store(ptr + U, b, mask=ok)
    if NUM_BLOCKS >= 3:
        tl.store(ptr + 2 * U, c, mask=ok)
    if NUM_BLOCKS == 4:
        tl.store(ptr + 3 * U, d, mask=ok)


@triton.jit
def _is_real(MASK, t, B, rows, row_ok):
    """`[rows, 1]`: whether step `t` is real for each batch row."""
    return (tl.load(MASK + t * B + rows, mask=row_ok, other=0) != 0)[:, None]


@triton.jit
def _where(real, new, old):
    """The four tiles `new` where `real`, `old` elsewhere (skipped steps)."""
    a, b, c, d = new
    old_a, old_b, old_c, old_d = old
    return (
        tl.where(real, a, old_a),
        tl.where(real, b, old_b),
        tl.where(real, c, old_c),
        tl.where(real, d, old_d),
    )


@triton.jit
def _gate_matmul(
    acc,
    left_ptr,
    left_stride,
    scale_ptr,
    right_ptr,
    right_row_stride,
    right_col_stride,
    rows,
    row_ok,
    cols,
    U,
    matmul,
    HAS_SCALE: tl.constexpr,
):
    """`acc + (LEFT[rows, :U] * SCALE) @ RIGHT[:U_PAD, :U_PAD]`, float32,
    `[BLOCK_B, BLOCK_U]`, over `BLOCK_K`-column chunks of the left operand,
    with the settings `matmul = (U_PAD, BLOCK_K, PRECISION, EMULATE)`.

    The dots by `PRECISION` (`_dot`): IEEE float32 (`FLOAT32`), TF32 tensor
    cores (`TF32`), or bfloat16 operands (`BFLOAT16`); they accumulate in
    float32 (`acc`) in every case.

    `left_ptr` points at a `[batch, *]` matrix with row stride
    `left_stride`; `RIGHT[i, j]` is at `right_ptr + i * right_row_stride +
    j * right_col_stride`, zero past `U` (the padded `R`); `scale_ptr` a
    `[batch, units]` matrix (row stride `U`).
    """
    # Indexed, not unpacked: Triton keeps a tuple's constexprs through `[i]`.
    U_PAD: tl.constexpr = matmul[0]
    BLOCK_K: tl.constexpr = matmul[1]
    PRECISION: tl.constexpr = matmul[2]
    EMULATE: tl.constexpr = matmul[3]
    right_ok = (cols < U_PAD)[None, :]
    for k0 in range(0, U_PAD, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        left_ok = row_ok[:, None] & (ks < U)[None, :]
        left = tl.load(
            left_ptr + rows[:, None] * left_stride + ks[None, :],
            mask=left_ok,
            other=0.0,
            cache_modifier=".cg",
        ).to(tl.float32)
        if HAS_SCALE:
            left = left * tl.load(
                scale_ptr + rows[:, None] * U + ks[None, :], mask=left_ok, other=0.0
            ).to(tl.float32)
        right = tl.load(
            right_ptr
            + ks[:, None] * right_row_stride
            + cols[None, :] * right_col_stride,
            mask=right_ok,
            other=0.0,
        )
        acc = _dot(left, right, acc, PRECISION, EMULATE)
    return acc


@triton.jit
def _dot(left, right, acc, PRECISION: tl.constexpr, EMULATE: tl.constexpr):
    """`acc + left @ right` at `PRECISION`, float32 accumulation; `left` is
    float32, `right` as loaded (bfloat16 for `BFLOAT16`: the host rounds
    `R`). With `EMULATE` (interpret mode) a reduced precision is emulated:
    `left` is rounded here (`R` on the host) and the product taken in IEEE
    float32, since Triton's interpreter computes TF32 dots in float32 and
    cannot multiply bfloat16 (3.9 multiplies their uint16 storage)."""
    if PRECISION == FLOAT32:
        acc = tl.dot(left, right.to(tl.float32), acc, input_precision="ieee")
    elif EMULATE:
        left = _tensor_core_operand(left, PRECISION)
        acc = tl.dot(left, right.to(tl.float32), acc, input_precision="ieee")
    elif PRECISION == TF32:
        acc = tl.dot(left, right.to(tl.float32), acc, input_precision="tf32")
    else:
        acc = tl.dot(left.to(tl.bfloat16), right.to(tl.bfloat16), acc)
    return acc


@triton.jit
def _tensor_core_operand(x, PRECISION: tl.constexpr):
    """Float32 `x` as the tensor cores read it, in float32: TF32 keeps the
    top 10 of 23 mantissa bits (the rest ignored, not rounded: `tl.dot`'s
    documentation), bfloat16 rounds to 7, to nearest with ties to even (as
    `.to(tl.bfloat16)` on a GPU), for finite `x`."""
    bits = x.to(tl.uint32, bitcast=True)
    if PRECISION == TF32:
        bits = bits & TF32_MASK
    else:
        bits = (bits + BFLOAT16_HALF + ((bits >> 16) & 1)) & BFLOAT16_MASK
    return bits.to(tl.float32, bitcast=True)


# ----------------------------------------------------------------- forward


@triton.jit
def _gate_preactivation(
    gate: tl.constexpr,
    P_t,
    left_ptr,
    R,
    RM,
    tile,
    U,
    NUM_GATES: tl.constexpr,
    HAS_RECURRENT_MASK: tl.constexpr,
    matmul,
):
    """`G_t`'s block `gate` (0: g, 1: a, 2: gamma): `P_t`'s block `gate + 1`
    plus `(h_{t-1} r) R` of that block, `h_{t-1}` at `left_ptr`."""
    rows, row_ok, cols, ok, _, p_row, _ = tile
    U_PAD: tl.constexpr = matmul[0]
    acc = tl.load(P_t + p_row + (gate + 1) * U, mask=ok, other=0.0)
    return _gate_matmul(
        acc=acc.to(tl.float32),
        left_ptr=left_ptr,
        left_stride=U,
        scale_ptr=RM,
        right_ptr=R + gate * U_PAD,
        right_row_stride=NUM_GATES * U_PAD,
        right_col_stride=1,
        rows=rows,
        row_ok=row_ok,
        cols=cols,
        U=U,
        matmul=matmul,
        HAS_SCALE=HAS_RECURRENT_MASK,
    )


@triton.jit
def _forward_gates(
    t,
    P,
    H0,
    H,
    R,
    RM,
    tile,
    B,
    U,
    NUM_GATES: tl.constexpr,
    HAS_RECURRENT_MASK: tl.constexpr,
    matmul,
):
    """Step `t`'s `(u_t, G^g_t, G^a_t, G^gamma_t)`: `G_t = P_t[g, a, gamma]
    + (h_{t-1} r) R`, `h_{t-1}` read back from `H0` or `H[t - 1]`
    (`G^gamma_t` is `G^a_t` without a discount)."""
    P_t = P + t * B * ((NUM_GATES + 1) * U)
    if t == 0:
        left = H0
        left_offset = 0
    else:
        left = H
        left_offset = (t - 1) * B * U
    h = left + left_offset
    gates_g = _gate_preactivation(
        0, P_t, h, R, RM, tile, U, NUM_GATES, HAS_RECURRENT_MASK, matmul
    )
    gates_a = _gate_preactivation(
        1, P_t, h, R, RM, tile, U, NUM_GATES, HAS_RECURRENT_MASK, matmul
    )
    gates_c = gates_a
    if NUM_GATES == 3:
        gates_c = _gate_preactivation(
            2, P_t, h, R, RM, tile, U, NUM_GATES, HAS_RECURRENT_MASK, matmul
        )
    _, _, _, ok, _, p_row, _ = tile
    u = tl.load(P_t + p_row, mask=ok, other=0.0).to(tl.float32)
    return u, gates_g, gates_a, gates_c


@triton.jit
def _average_step(
    u,
    gates_g,
    gates_a,
    gates_c,
    n,
    d,
    m,
    DISCOUNT: tl.constexpr,
    ATTENTION: tl.constexpr,
    TANH_HIDDEN: tl.constexpr,
):
    """`(f_h(n_t / d_t), n_t, d_t, m_t)`: the scaled running average's step
    (RDA paper, section 5; `rda_recurrence`)."""
    log_a, positive = _log_attention(gates_a, ATTENTION)
    p, q, m_new = _average_weights(d, m, log_a, positive, gates_c, DISCOUNT, ATTENTION)
    n_new = n * p + u * _tanh(gates_g) * q
    d_new = d * p + q
    average = n_new / (d_new + (1.0 - _sign(d_new)))
    if TANH_HIDDEN:
        average = _tanh(average)
    return average, n_new, d_new, m_new


@triton.jit
def forward_kernel(
    P,
    R,
    H0,
    N0,
    D0,
    M0,
    MASK,
    RM,
    H,
    G,
    N,
    D,
    M,
    N_LAST,
    D_LAST,
    M_LAST,
    T,
    B,
    U,
    DISCOUNT: tl.constexpr,
    ATTENTION: tl.constexpr,
    TANH_HIDDEN: tl.constexpr,
    HAS_MASK: tl.constexpr,
    HAS_RECURRENT_MASK: tl.constexpr,
    SAVE: tl.constexpr,
    PRECISION: tl.constexpr,
    EMULATE: tl.constexpr,
    BLOCK_B: tl.constexpr,
    BLOCK_U: tl.constexpr,
    BLOCK_K: tl.constexpr,
    U_PAD: tl.constexpr,
):
    """The forward pass of the recurrence over all `T` steps, for `BLOCK_B`
    batch rows: `keras_rda.ops.rda_recurrence`'s forward step (its module
    docstring has the equations) from `(H0, N0, D0, M0)`, writing every
    `h_t` to `H`, the final state to `N_LAST`, `D_LAST`, `M_LAST` (float32
    `[batch, units]`) and, with `SAVE`, what the backward kernel reads (`G`,
    `N`, `D`, `M`)."""
    NUM_GATES: tl.constexpr = 3 if DISCOUNT else 2
    tile = _tile(B, U, NUM_GATES, BLOCK_B, BLOCK_U)
    rows, row_ok, _, ok, state, _, g_row = tile
    matmul: tl.constexpr = (U_PAD, BLOCK_K, PRECISION, EMULATE)
    h = _load(H0, state, ok)
    n, d, m = _load3((N0, D0, M0), state, ok)
    for t in range(0, T):
        u, gates_g, gates_a, gates_c = _forward_gates(
            t, P, H0, H, R, RM, tile, B, U, NUM_GATES, HAS_RECURRENT_MASK, matmul
        )
        if SAVE:
            G_t = G + t * B * (NUM_GATES * U) + g_row
            gates = (gates_g, gates_a, gates_c, gates_c)
            _store_blocks(G_t, U, ok, gates, NUM_GATES)
        average, n_new, d_new, m_new = _average_step(
            u, gates_g, gates_a, gates_c, n, d, m, DISCOUNT, ATTENTION, TANH_HIDDEN
        )
        # The carried h is the stored one (in H's dtype), as on the portable path.
        h_new = average.to(H.dtype.element_ty).to(tl.float32)
        if HAS_MASK:
            real = _is_real(MASK, t, B, rows, row_ok)
            h_new, n_new, d_new, m_new = _where(
                real, (h_new, n_new, d_new, m_new), (h, n, d, m)
            )
        h, n, d, m = h_new, n_new, d_new, m_new
        out = t * B * U + state
        tl.store(H + out, h.to(H.dtype.element_ty), mask=ok)
        if SAVE:
            _store3((N, D, M), out, (n, d, m), ok)
        # The next step's matmul reads H[t] written by other threads.
        tl.debug_barrier()
    _store3((N_LAST, D_LAST, M_LAST), state, (n, d, m), ok)


# ---------------------------------------------------------------- backward


@triton.jit
def _step_inputs(t, P, G, initial, saved, tile, B, U, NUM_GATES: tl.constexpr):
    """What the backward step `t` reads: `(u, G^g, G^a, G^gamma, n_{t-1},
    d_{t-1}, m_{t-1}, n_t, d_t)` (`G^gamma` is `G^a` without a discount),
    from `P`, `G`, the `initial` state `(N0, D0, M0)` and the `saved` states
    `(N, D, M)`."""
    _, _, _, ok, state, p_row, g_row = tile
    out = t * B * U + state
    N, D, M = saved
    if t == 0:
        n_prev, d_prev, m_prev = _load3(initial, state, ok)
    else:  # the saved state after step t - 1, one `[batch, units]` back
        n_prev, d_prev, m_prev = _load3((N + out, D + out, M + out), -(B * U), ok)
    n = _load(N, out, ok)
    d = _load(D, out, ok)
    G_t = G + t * B * (NUM_GATES * U) + g_row
    gates_g = _load(G_t, 0, ok)
    gates_a = _load(G_t + U, 0, ok)
    gates_c = gates_a
    if NUM_GATES == 3:
        gates_c = _load(G_t + 2 * U, 0, ok)
    P_t = P + t * B * ((NUM_GATES + 1) * U)
    u = _load(P_t, p_row, ok)
    return u, gates_g, gates_a, gates_c, n_prev, d_prev, m_prev, n, d


@triton.jit
def _step_gradients(
    dh,
    dn,
    dd,
    inputs,
    DISCOUNT: tl.constexpr,
    ATTENTION: tl.constexpr,
    TANH_HIDDEN: tl.constexpr,
):
    """Back through step t (`rda_recurrence`'s backward step): `(d_u, d_g,
    d_a, d_gamma, dn_{t-1}, dd_{t-1}, dm_{t-1})` from the gradients `(dh, dn,
    dd)` of the state after it and the step's `_step_inputs`, recomputing
    the step's weights."""
    u, gates_g, gates_a, gates_c, n_prev, d_prev, m_prev, n, d = inputs
    log_a, positive = _log_attention(gates_a, ATTENTION)
    p, q, _ = _average_weights(
        d_prev, m_prev, log_a, positive, gates_c, DISCOUNT, ATTENTION
    )
    tanh_g = _tanh(gates_g)
    z = u * tanh_g
    d_inv = 1.0 / (d + (1.0 - _sign(d)))
    average = n * d_inv
    d_average = dh
    if TANH_HIDDEN:
        hidden = _tanh(average)
        d_average = dh * (1.0 - hidden * hidden)
    dn_t = dn + d_average * d_inv
    dd_t = dd - d_average * average * d_inv
    dz = dn_t * q
    dq = dn_t * z + dd_t
    d_past = (dn_t * n_prev + dd_t * d_prev) * p
    d_past = tl.where(d_prev != 0.0, d_past, 0.0)
    d_u = dz * tanh_g
    d_g = dz * u * (1.0 - tanh_g * tanh_g)
    d_a = dq * q * _log_attention_slope(gates_a, ATTENTION)
    d_c = d_past * _sigmoid(-gates_c)
    return d_u, d_g, d_a, d_c, dn_t * p, dd_t * p, d_past


@triton.jit
def _backward_matmul(
    DP_t,
    R,
    RM,
    tile,
    U,
    NUM_GATES: tl.constexpr,
    HAS_RECURRENT_MASK: tl.constexpr,
    matmul,
):
    """`dh_{t-1} = (dG_t R^T) r`, `[BLOCK_B, BLOCK_U]`: `R^T[j, i]` of gate
    block `gate` is `R[i, gate * U_PAD + j]`; `dG_t` is read back from
    `DP_t`, `r` from `RM` (with `HAS_RECURRENT_MASK`)."""
    rows, row_ok, cols, ok, state, _, _ = tile
    U_PAD: tl.constexpr = matmul[0]
    acc = tl.full(ok.shape, 0.0, tl.float32)
    for gate in tl.static_range(NUM_GATES):
        acc = _gate_matmul(
            acc=acc,
            left_ptr=DP_t + (gate + 1) * U,
            left_stride=(NUM_GATES + 1) * U,
            scale_ptr=R,  # unused (HAS_SCALE False)
            right_ptr=R + gate * U_PAD,
            right_row_stride=1,
            right_col_stride=NUM_GATES * U_PAD,
            rows=rows,
            row_ok=row_ok,
            cols=cols,
            U=U,
            matmul=matmul,
            HAS_SCALE=False,
        )
    if HAS_RECURRENT_MASK:
        acc = acc * _load(RM, state, ok)
    return acc


@triton.jit
def backward_kernel(
    P,
    R,
    N0,
    D0,
    M0,
    MASK,
    RM,
    G,
    N,
    D,
    M,
    DH,
    DN_T,
    DD_T,
    DM_T,
    DP,
    DH0,
    DN0,
    DD0,
    DM0,
    T,
    B,
    U,
    DISCOUNT: tl.constexpr,
    ATTENTION: tl.constexpr,
    TANH_HIDDEN: tl.constexpr,
    HAS_MASK: tl.constexpr,
    HAS_RECURRENT_MASK: tl.constexpr,
    PRECISION: tl.constexpr,
    EMULATE: tl.constexpr,
    BLOCK_B: tl.constexpr,
    BLOCK_U: tl.constexpr,
    BLOCK_K: tl.constexpr,
    U_PAD: tl.constexpr,
):
    """The backward pass of `forward_kernel` over all `T` steps in reverse,
    for `BLOCK_B` batch rows: `keras_rda.ops.rda_recurrence`'s closed-form
    backward step (its module docstring has the equations) from the
    upstream `DH` and `(DN_T, DD_T, DM_T)` and what the forward saved,
    writing `dP_t` (float32; its gate blocks are `dG_t`) and the gradients
    of the initial state to `DH0`, `DN0`, `DD0`, `DM0`."""
    NUM_GATES: tl.constexpr = 3 if DISCOUNT else 2
    tile = _tile(B, U, NUM_GATES, BLOCK_B, BLOCK_U)
    rows, row_ok, _, ok, state, p_row, _ = tile
    matmul: tl.constexpr = (U_PAD, BLOCK_K, PRECISION, EMULATE)
    # Gradients of the loss w.r.t. the state after the last step.
    dh = tl.full((BLOCK_B, BLOCK_U), 0.0, tl.float32)
    dn, dd, dm = _load3((DN_T, DD_T, DM_T), state, ok)
    for i in range(0, T):
        t = T - 1 - i
        dh = dh + tl.load(DH + t * B * U + state, mask=ok, other=0.0)
        inputs = _step_inputs(t, P, G, (N0, D0, M0), (N, D, M), tile, B, U, NUM_GATES)
        d_u, d_g, d_a, d_c, dn_prev, dd_prev, dm_prev = _step_gradients(
            dh, dn, dd, inputs, DISCOUNT, ATTENTION, TANH_HIDDEN
        )
        if HAS_MASK:
            real = _is_real(MASK, t, B, rows, row_ok)
            d_u, d_g, d_a, d_c = _where(
                real, (d_u, d_g, d_a, d_c), (0.0, 0.0, 0.0, 0.0)
            )
        DP_t = DP + t * B * ((NUM_GATES + 1) * U)
        _store_blocks(DP_t + p_row, U, ok, (d_u, d_g, d_a, d_c), NUM_GATES + 1)
        # The matmul reads dG_t back from DP, written by other threads.
        tl.debug_barrier()
        dh_prev = _backward_matmul(
            DP_t, R, RM, tile, U, NUM_GATES, HAS_RECURRENT_MASK, matmul
        )
        if HAS_MASK:
            dh_prev, dn_prev, dd_prev, dm_prev = _where(
                real, (dh_prev, dn_prev, dd_prev, dm_prev), (dh, dn, dd, dm)
            )
        dh, dn, dd, dm = dh_prev, dn_prev, dd_prev, dm_prev
    tl.store(DH0 + state, dh, mask=ok)
    _store3((DN0, DD0, DM0), state, (dn, dd, dm), ok)
