"""The Triton kernels of `keras_rda.ops.kernels.triton_recurrence` (private).

Importing this module imports Triton and decorates the kernels: do it only
through `triton_recurrence._kernels`, which sets `TRITON_INTERPRET` first
when interpret mode is asked for (Triton reads it when `triton.jit`
decorates), and never in a process that has loaded TensorFlow.

Layouts (all contiguous, row-major; `K = k - 1` gate blocks, `k` = 4 with a
discount, 3 without):

- `P` `[time, batch, k * units]`: blocks u, g, a[, gamma].
- `R` `[units, K * units]`: blocks g, a[, gamma].
- `H` `[time, batch, units]` (the hidden output), `H0`, `N0`, `D0`, `M0`,
  `RM` (recurrent dropout mask) `[batch, units]`, `MASK` int8 `[time, batch]`.
- Saved for the backward pass, float32: `G` `[time, batch, K * units]` (the
  gate pre-activations `P_t[g, a, gamma] + (h_{t-1} r) R`), `N`, `D`, `M`
  `[time, batch, units]` (the state after every step, masked steps
  repeating it).

Every program owns `BLOCK_B` batch rows and all `units` (padded to
`BLOCK_U`, a power of two >= 16; loads and stores are masked) and runs the
whole time loop. The recurrent matmuls read their left operand (`h_{t-1}`
forward, `dG_t` backward) back from the output the same program has just
written, in `BLOCK_K` column chunks (a register tensor cannot be sliced),
after a barrier; `R` is read from the cache in `[BLOCK_K, BLOCK_U]` tiles.
"""

import triton
import triton.language as tl

#: Codes of the attention activations (`attention_average.ATTENTION_ACTIVATIONS`).
EXP, SIGMOID, SOFTPLUS, RELU = 0, 1, 2, 3
#: Below this logit `log softplus(x) = x` (`attention_average.SOFTPLUS_LINEAR_BELOW`).
SOFTPLUS_LINEAR_BELOW = -20.0


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
    """`tanh(x)`: a Taylor polynomial below |x| = 0.125, else from `exp`."""
    ax = tl.abs(x)
    e = tl.exp(-2.0 * ax)
    large = (1.0 - e) / (1.0 + e)
    x2 = ax * ax
    small = ax * (
        1.0
        + x2
        * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0))))
    )
    magnitude = tl.where(ax < 0.125, small, large)
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
    if ATTENTION == 0:
        log_a = logits
    elif ATTENTION == 1:
        log_a = _log_sigmoid(logits)
    elif ATTENTION == 2:
        safe = tl.maximum(logits, -20.0)
        log_a = tl.where(logits < -20.0, logits, tl.log(_softplus(safe)))
    else:
        positive = logits > 0.0
        log_a = tl.log(tl.where(positive, logits, 1.0))
    return log_a, positive


@triton.jit
def _log_attention_slope(logits, ATTENTION: tl.constexpr):
    """`d log f_a(x) / dx` at `logits` (`rda_recurrence._log_attention_slope`)."""
    if ATTENTION == 0:
        slope = tl.full(logits.shape, 1.0, tl.float32)
    elif ATTENTION == 1:
        slope = _sigmoid(-logits)
    elif ATTENTION == 2:
        safe = tl.maximum(logits, -20.0)
        slope = tl.where(logits < -20.0, 1.0, _sigmoid(safe) / _softplus(safe))
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
    if ATTENTION == 3:
        current = tl.where(positive, log_a, past)
        m = tl.maximum(past, current)
        p = tl.exp(past - m)
        q = tl.where(positive, tl.exp(tl.where(positive, log_a, m) - m), 0.0)
    else:
        m = tl.maximum(past, log_a)
        p = tl.exp(past - m)
        q = tl.exp(log_a - m)
    return p, q, m


@triton.jit
def _gate_matmul(
    acc,
    LEFT,
    left_prev_offset,
    left_stride,
    RIGHT,
    rows,
    row_ok,
    cols,
    col_ok,
    U,
    right_row_stride,
    right_col_stride,
    BLOCK_U: tl.constexpr,
    BLOCK_K: tl.constexpr,
    SCALE,
    HAS_SCALE: tl.constexpr,
):
    """`acc + (LEFT[rows, :U] * SCALE) @ RIGHT[:U, :U]`, `[BLOCK_B, BLOCK_U]`,
    in float32, over `BLOCK_K`-column chunks of the left operand.

    `LEFT + left_prev_offset` points at a `[batch, *]` matrix with row stride
    `left_stride`; `RIGHT[i, j]` is at `RIGHT + i * right_row_stride +
    j * right_col_stride`; `SCALE` `[batch, units]` (row stride `U`).
    """
    for k0 in range(0, BLOCK_U, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < U
        left_ok = row_ok[:, None] & k_ok[None, :]
        left = tl.load(
            LEFT + left_prev_offset + rows[:, None] * left_stride + ks[None, :],
            mask=left_ok,
            other=0.0,
            cache_modifier=".cg",
        ).to(tl.float32)
        if HAS_SCALE:
            left = left * tl.load(
                SCALE + rows[:, None] * U + ks[None, :], mask=left_ok, other=0.0
            ).to(tl.float32)
        right = tl.load(
            RIGHT + ks[:, None] * right_row_stride + cols[None, :] * right_col_stride,
            mask=k_ok[:, None] & col_ok[None, :],
            other=0.0,
        ).to(tl.float32)
        acc = tl.dot(left, right, acc, input_precision="ieee")
    return acc


# ----------------------------------------------------------------- forward


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
    BLOCK_B: tl.constexpr,
    BLOCK_U: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """The whole forward time loop for `BLOCK_B` batch rows: writes `H`,
    the final state (`N_LAST`, `D_LAST`, `M_LAST`, float32 `[batch, units]`)
    and, with `SAVE`, what the backward pass reads (`G`, `N`, `D`, `M`)."""
    NUM_GATES: tl.constexpr = 3 if DISCOUNT else 2
    pid = tl.program_id(0)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B)
    cols = tl.arange(0, BLOCK_U)
    row_ok = rows < B
    col_ok = cols < U
    ok = row_ok[:, None] & col_ok[None, :]
    state = rows[:, None] * U + cols[None, :]  # offsets in a [batch, units] matrix
    p_row = rows[:, None] * ((NUM_GATES + 1) * U) + cols[None, :]
    g_row = rows[:, None] * (NUM_GATES * U) + cols[None, :]
    h_dtype = H.dtype.element_ty

    h = tl.load(H0 + state, mask=ok, other=0.0).to(tl.float32)
    n = tl.load(N0 + state, mask=ok, other=0.0).to(tl.float32)
    d = tl.load(D0 + state, mask=ok, other=0.0).to(tl.float32)
    m = tl.load(M0 + state, mask=ok, other=0.0).to(tl.float32)

    for t in range(0, T):
        # G_t = P_t[g, a, gamma] + (h_{t-1} r) R; h_{t-1} is H0 or H[t - 1].
        p_t = P + t * B * ((NUM_GATES + 1) * U)
        gates_g = tl.load(p_t + p_row + U, mask=ok, other=0.0).to(tl.float32)
        gates_a = tl.load(p_t + p_row + 2 * U, mask=ok, other=0.0).to(tl.float32)
        if t == 0:
            left = H0
            left_offset = 0
        else:
            left = H
            left_offset = (t - 1) * B * U
        gates_g = _gate_matmul(
            gates_g,
            left,
            left_offset,
            U,
            R,
            rows,
            row_ok,
            cols,
            col_ok,
            U,
            NUM_GATES * U,
            1,
            BLOCK_U,
            BLOCK_K,
            RM,
            HAS_RECURRENT_MASK,
        )
        gates_a = _gate_matmul(
            gates_a,
            left,
            left_offset,
            U,
            R + U,
            rows,
            row_ok,
            cols,
            col_ok,
            U,
            NUM_GATES * U,
            1,
            BLOCK_U,
            BLOCK_K,
            RM,
            HAS_RECURRENT_MASK,
        )
        g_t = G + t * B * (NUM_GATES * U)
        if SAVE:
            tl.store(g_t + g_row, gates_g, mask=ok)
            tl.store(g_t + g_row + U, gates_a, mask=ok)
        gates_c = gates_a  # unused without a discount
        if DISCOUNT:
            gates_c = tl.load(p_t + p_row + 3 * U, mask=ok, other=0.0).to(tl.float32)
            gates_c = _gate_matmul(
                gates_c,
                left,
                left_offset,
                U,
                R + 2 * U,
                rows,
                row_ok,
                cols,
                col_ok,
                U,
                NUM_GATES * U,
                1,
                BLOCK_U,
                BLOCK_K,
                RM,
                HAS_RECURRENT_MASK,
            )
            if SAVE:
                tl.store(g_t + g_row + 2 * U, gates_c, mask=ok)

        # The scaled running average (RDA paper, section 5).
        u = tl.load(p_t + p_row, mask=ok, other=0.0).to(tl.float32)
        log_a, positive = _log_attention(gates_a, ATTENTION)
        p, q, m_new = _average_weights(
            d, m, log_a, positive, gates_c, DISCOUNT, ATTENTION
        )
        z = u * _tanh(gates_g)
        n_new = n * p + z * q
        d_new = d * p + q
        average = n_new / (d_new + (1.0 - _sign(d_new)))
        if TANH_HIDDEN:
            average = _tanh(average)
        # The carried h is the stored one (in H's dtype), as on the portable path.
        h_new = average.to(h_dtype).to(tl.float32)
        if HAS_MASK:
            real = tl.load(MASK + t * B + rows, mask=row_ok, other=0) != 0
            real = real[:, None]
            h_new = tl.where(real, h_new, h)
            n_new = tl.where(real, n_new, n)
            d_new = tl.where(real, d_new, d)
            m_new = tl.where(real, m_new, m)
        h, n, d, m = h_new, n_new, d_new, m_new
        out = t * B * U + state
        tl.store(H + out, h.to(h_dtype), mask=ok)
        if SAVE:
            tl.store(N + out, n, mask=ok)
            tl.store(D + out, d, mask=ok)
            tl.store(M + out, m, mask=ok)
        # The next step's matmul reads H[t] written by other threads.
        tl.debug_barrier()

    tl.store(N_LAST + state, n, mask=ok)
    tl.store(D_LAST + state, d, mask=ok)
    tl.store(M_LAST + state, m, mask=ok)


# ---------------------------------------------------------------- backward


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
    BLOCK_B: tl.constexpr,
    BLOCK_U: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """The whole backward time loop (reversed) for `BLOCK_B` batch rows:
    writes `dP_t` (float32) and the gradients of the initial state."""
    NUM_GATES: tl.constexpr = 3 if DISCOUNT else 2
    pid = tl.program_id(0)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B)
    cols = tl.arange(0, BLOCK_U)
    row_ok = rows < B
    col_ok = cols < U
    ok = row_ok[:, None] & col_ok[None, :]
    state = rows[:, None] * U + cols[None, :]
    p_row = rows[:, None] * ((NUM_GATES + 1) * U) + cols[None, :]
    g_row = rows[:, None] * (NUM_GATES * U) + cols[None, :]

    # Gradients of the loss w.r.t. the state after the last step.
    dh = tl.full((BLOCK_B, BLOCK_U), 0.0, tl.float32)
    dn = tl.load(DN_T + state, mask=ok, other=0.0)
    dd = tl.load(DD_T + state, mask=ok, other=0.0)
    dm = tl.load(DM_T + state, mask=ok, other=0.0)

    for i in range(0, T):
        t = T - 1 - i
        out = t * B * U + state
        dh = dh + tl.load(DH + out, mask=ok, other=0.0)
        # The state before (n_prev, d_prev, m_prev) and after (n, d) step t.
        if t == 0:
            n_prev = tl.load(N0 + state, mask=ok, other=0.0).to(tl.float32)
            d_prev = tl.load(D0 + state, mask=ok, other=0.0).to(tl.float32)
            m_prev = tl.load(M0 + state, mask=ok, other=0.0).to(tl.float32)
        else:
            n_prev = tl.load(N + out - B * U, mask=ok, other=0.0)
            d_prev = tl.load(D + out - B * U, mask=ok, other=0.0)
            m_prev = tl.load(M + out - B * U, mask=ok, other=0.0)
        n = tl.load(N + out, mask=ok, other=0.0)
        d = tl.load(D + out, mask=ok, other=0.0)
        g_t = G + t * B * (NUM_GATES * U)
        gates_g = tl.load(g_t + g_row, mask=ok, other=0.0)
        gates_a = tl.load(g_t + g_row + U, mask=ok, other=0.0)
        gates_c = gates_a
        if DISCOUNT:
            gates_c = tl.load(g_t + g_row + 2 * U, mask=ok, other=0.0)
        p_t = P + t * B * ((NUM_GATES + 1) * U)
        u = tl.load(p_t + p_row, mask=ok, other=0.0).to(tl.float32)

        # Recompute the step's weights and features.
        log_a, positive = _log_attention(gates_a, ATTENTION)
        p, q, _ = _average_weights(
            d_prev, m_prev, log_a, positive, gates_c, DISCOUNT, ATTENTION
        )
        tanh_g = _tanh(gates_g)
        z = u * tanh_g
        d_inv = 1.0 / (d + (1.0 - _sign(d)))
        average = n * d_inv

        # Back through h = f_h(n / d) and the running sums.
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
        if HAS_MASK:
            real = tl.load(MASK + t * B + rows, mask=row_ok, other=0) != 0
            real = real[:, None]
            d_u = tl.where(real, d_u, 0.0)
            d_g = tl.where(real, d_g, 0.0)
            d_a = tl.where(real, d_a, 0.0)
            d_c = tl.where(real, d_c, 0.0)
        dp_t = DP + t * B * ((NUM_GATES + 1) * U)
        tl.store(dp_t + p_row, d_u, mask=ok)
        tl.store(dp_t + p_row + U, d_g, mask=ok)
        tl.store(dp_t + p_row + 2 * U, d_a, mask=ok)
        if DISCOUNT:
            tl.store(dp_t + p_row + 3 * U, d_c, mask=ok)
        # The matmul reads dG_t back from DP, written by other threads.
        tl.debug_barrier()

        # dh_{t-1} = (dG_t R^T) r: R^T[j, i] = R[i, gate * U + j].
        dh_prev = tl.full((BLOCK_B, BLOCK_U), 0.0, tl.float32)
        for gate in range(0, NUM_GATES):
            dh_prev = _gate_matmul(
                dh_prev,
                dp_t + (gate + 1) * U,
                0,
                (NUM_GATES + 1) * U,
                R + gate * U,
                rows,
                row_ok,
                cols,
                col_ok,
                U,
                1,
                NUM_GATES * U,
                BLOCK_U,
                BLOCK_K,
                RM,
                False,
            )
        if HAS_RECURRENT_MASK:
            dh_prev = dh_prev * tl.load(RM + state, mask=ok, other=0.0).to(tl.float32)
        dn_prev = dn_t * p
        dd_prev = dd_t * p
        dm_prev = d_past
        if HAS_MASK:
            dh_prev = tl.where(real, dh_prev, dh)
            dn_prev = tl.where(real, dn_prev, dn)
            dd_prev = tl.where(real, dd_prev, dd)
            dm_prev = tl.where(real, dm_prev, dm)
        dh, dn, dd, dm = dh_prev, dn_prev, dd_prev, dm_prev

    tl.store(DH0 + state, dh, mask=ok)
    tl.store(DN0 + state, dn, mask=ok)
    tl.store(DD0 + state, dd, mask=ok)
    tl.store(DM0 + state, dm, mask=ok)
