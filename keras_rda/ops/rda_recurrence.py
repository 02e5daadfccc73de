"""The fused RWA/RDA recurrence: a time loop with a hand-written backward pass.

`keras_rda.RDA` and `keras_rda.RWA` run their whole sequence through
`fused_recurrence`. The input projections `P_t = W x_t + b` of every step
arrive precomputed (one matmul before the loop); the loop holds one
`[batch, units] x [units, (k - 1) * units]` matmul and the element-wise
scaled running average (`keras_rda.ops.attention_average`). Its gradient
is not obtained by differentiating the loop: `keras.ops.custom_gradient`
attaches the closed-form backward pass below, derived from the forward
lines one by one.

Forward, step t (`k - 1` gate blocks g, a[, gamma]; masked steps keep the
state):

    G_t     = P_t[g, a, gamma] + (h_{t-1} * r) R           r: recurrent dropout mask
    z_t     = u_t tanh(g_t)
    past    = m_{t-1} + log gamma_t   (m_{t-1} if no discount; log a_t if d = 0)
    m_t     = max(past, log a_t)      (a constant for differentiation)
    p_t     = exp(past - m_t),  q_t = exp(log a_t - m_t)
    n_t     = n_{t-1} p_t + z_t q_t,  d_t = d_{t-1} p_t + q_t
    h_t     = f_h(n_t / d_t)

It stores per step `tanh g_t`, the other gate blocks of `G_t`, `n_{t-1}`,
`d_{t-1}`, `p_t`, `q_t` and `h_t` (and `f_h(A_t)` in float32 under mixed
precision); the backward pass recomputes `n_t`, `d_t` and `A_t` from them,
but neither `tanh g_t` nor `f_h(A_t)`.

Backward, step t in reverse, carrying `(dh, dn, dd)` (the gradients of
the loss with respect to the state after step t):

    dh     += dH_t                           (the upstream of h_t)
    dA      = dh f_h'(A_t),  A_t = n_t / d_t
    dn     += dA / d_t,      dd -= dA A_t / d_t
    dz      = dn q_t,  dq = dn z_t + dd,  dp = dn n_{t-1} + dd d_{t-1}
    dlog a  = dq q_t,  dlog gamma = dp p_t,  du = dz tanh(g_t),
    dg      = dz u_t (1 - tanh^2 g_t),  da = dlog a (log f_a)'(a_t),
    dgamma  = dlog gamma sigmoid(-gamma_t)
    dh_{t-1} = ([dg, da, dgamma] R^T) r,  dn_{t-1} = dn p_t,  dd_{t-1} = dd p_t

After the loop `dR = (H_prev r)^T dG` is one matmul over all `time * batch`
rows, and the gradients of `kernel` and `bias` are the hoisted projection's
(`X^T dP`, `sum dP`), one matmul each.

Exactness: `m_t` is treated as a constant, as the autodiff path does with
`stop_gradient`; the outputs `h_t` do not depend on it. Gradients equal those
of `keras.layers.RNN(cell)` (tested in float64), with one documented
difference: where `d = 1` exactly, autodiff through `maximum(d, 1)` on JAX
splits the gradient between the two arguments, while this pass (and
TensorFlow) gives it to `d`, the derivative of the plain `n / d`.

Backends: TensorFlow and JAX (the loop is `keras_rda.ops.scan`). Other
backends use the autodiff path of `keras_rda.layers.base_rda_layer`.
"""

import collections

from keras import ops

from keras_rda.ops import attention_average
from keras_rda.ops import scan as scan_lib
from keras_rda.utils import keras_compat

# Static description of the unit: python values, closed over by the loops.
RecurrenceSpec = collections.namedtuple(
    "RecurrenceSpec",
    ["units", "discount", "attention_activation", "hidden_activation", "acc_dtype"],
)

_SOFTPLUS_LINEAR_BELOW = attention_average.SOFTPLUS_LINEAR_BELOW


def supports_fused():
    """Whether the fused recurrence runs on this backend."""
    return scan_lib.supports_scan()


# ------------------------------------------------------------------ helpers


def _split_gates(gates, spec):
    """`[batch, (k - 1) units]` -> g, attention logits, discount logits."""
    if spec.discount:
        return ops.split(gates, 3, axis=-1)
    g, a = ops.split(gates, 2, axis=-1)
    return g, a, None


def _log_attention_slope(logits, activation):
    """`d log f_a(x) / dx` at `x = logits`, `[batch, units]`: the derivative
    of `attention_average.log_attention` (0 where a ReLU weight is 0)."""
    if activation == "exp":
        return ops.ones_like(logits)
    if activation == "sigmoid":
        return ops.sigmoid(-logits)
    if activation == "softplus":
        safe = ops.maximum(logits, _SOFTPLUS_LINEAR_BELOW)
        slope = ops.sigmoid(safe) / ops.softplus(safe)
        return ops.where(logits < _SOFTPLUS_LINEAR_BELOW, 1.0, slope)
    # relu: log a = log(x) where x > 0.
    positive = logits > 0
    return ops.where(positive, 1.0 / ops.where(positive, logits, 1.0), 0.0)


def _select(mask, new, old):
    """`new` where the step is real (`mask` `[batch, 1]`), else `old`."""
    return new if mask is None else ops.where(mask, new, old)


# ------------------------------------------------------------------ forward


def _forward_step(spec, recurrent_kernel, recurrent_mask):
    """The forward step `(carry, x) -> (carry, saved)` for `scan`."""
    acc = spec.acc_dtype
    units = spec.units

    def step(carry, xs):
        h_prev, n_prev, d_prev, m_prev = carry
        projected, *mask = xs
        mask = mask[0] if mask else None
        h_in = h_prev if recurrent_mask is None else h_prev * recurrent_mask
        u, gate_inputs = ops.split(projected, [units], axis=-1)
        gates = ops.cast(gate_inputs + ops.matmul(h_in, recurrent_kernel), acc)
        g, a_logits, gamma_logits = _split_gates(gates, spec)
        log_a, positive = attention_average.log_attention(
            a_logits, spec.attention_activation
        )
        log_gamma = ops.log_sigmoid(gamma_logits) if spec.discount else None
        p, q, m = attention_average.average_weights(
            d_prev, m_prev, log_a, log_gamma, positive
        )
        tanh_g = keras_compat.tanh(g)
        z = ops.cast(u, acc) * tanh_g
        n = n_prev * p + z * q
        d = d_prev * p + q
        h_acc = attention_average.apply_activation(
            attention_average.weighted_average(n, d), spec.hidden_activation
        )
        h = ops.cast(h_acc, h_prev.dtype)
        saved = {
            "n_prev": n_prev,
            "d_prev": d_prev,
            "p": p,
            "q": q,
            "tanh_g": tanh_g,
            "a_logits": a_logits,
        }
        if spec.discount:
            saved["gamma_logits"] = gamma_logits
        # The backward's tanh slope reads f_h(A_t). In float32 that is the
        # output `h` itself (`fused_recurrence` passes it); under mixed
        # precision `h` is float16, so the float32 value is saved apart.
        if spec.hidden_activation == "tanh" and h.dtype != h_acc.dtype:
            saved["tanh_average"] = h_acc
        if mask is not None:
            h, n, d, m = (
                _select(mask, new, old)
                for new, old in zip((h, n, d, m), (h_prev, n_prev, d_prev, m_prev))
            )
        return (h, n, d, m), (h, saved)

    return step


# ----------------------------------------------------------------- backward


def _backward_step(spec, recurrent_kernel, recurrent_mask):
    """The reverse step `(carry, x) -> (carry, dP_t)` for `scan`."""
    acc = spec.acc_dtype
    units = spec.units
    kernel_t = ops.transpose(recurrent_kernel)

    def step(carry, xs):
        dh, dn, dd, dm = carry
        projected, d_hidden, saved = xs
        mask = saved.get("mask")
        n_prev, d_prev, p, q, tanh_g = (
            saved[k] for k in ("n_prev", "d_prev", "p", "q", "tanh_g")
        )
        dh = dh + ops.cast(d_hidden, acc)
        u = ops.cast(ops.split(projected, [units], axis=-1)[0], acc)
        a_slope = _log_attention_slope(saved["a_logits"], spec.attention_activation)
        z = u * tanh_g
        n = n_prev * p + z * q
        d = d_prev * p + q
        d_inv = 1.0 / attention_average.safe_denominator(d)
        average = n * d_inv
        d_average = dh
        if spec.hidden_activation == "tanh":
            hidden = ops.cast(saved["tanh_average"], acc)
            d_average = dh * (1.0 - hidden * hidden)
        dn_t = dn + d_average * d_inv
        dd_t = dd - d_average * average * d_inv
        dz = dn_t * q
        dq = dn_t * z + dd_t
        d_past = (dn_t * n_prev + dd_t * d_prev) * p
        d_past = ops.where(attention_average.attended(d_prev), d_past, 0.0)
        d_a_logits = dq * q * a_slope
        d_blocks = [dz * u * (1.0 - tanh_g * tanh_g), d_a_logits]
        if spec.discount:
            d_blocks.append(d_past * ops.sigmoid(-saved["gamma_logits"]))
        d_gates = ops.concatenate(d_blocks, axis=-1)
        dh_prev = ops.cast(ops.matmul(ops.cast(d_gates, kernel_t.dtype), kernel_t), acc)
        if recurrent_mask is not None:
            dh_prev = dh_prev * ops.cast(recurrent_mask, acc)
        d_projected = ops.concatenate([dz * tanh_g, d_gates], axis=-1)
        new_carry = (dh_prev, dn_t * p, dd_t * p, d_past)
        if mask is not None:
            old_carry = (dh, dn, dd, dm)
            new_carry = tuple(
                _select(mask, new, old) for new, old in zip(new_carry, old_carry)
            )
            d_projected = _select(mask, d_projected, 0.0)
        return new_carry, ops.cast(d_projected, projected.dtype)

    return step


# ------------------------------------------------------------------ the op


def fused_recurrence(
    projected, recurrent_kernel, initial_state, spec, mask=None, recurrent_mask=None
):
    """Runs the unit over a time-major sequence of input projections.

    Args:
        projected: `[time, batch, k * units]`, `W x_t + b` of every step
            (blocks u, g, a[, gamma]), in the compute dtype.
        recurrent_kernel: `[units, (k - 1) * units]`, in the compute dtype.
        initial_state: `[h_0, n_0, d_0, m_0]`, each `[batch, units]`; `h_0`
            in the compute dtype, the sums in `spec.acc_dtype`.
        spec: a `RecurrenceSpec`.
        mask: None or boolean `[time, batch, 1]`, False at steps to skip.
        recurrent_mask: None or `[batch, units]`, the recurrent dropout mask
            applied to `h_{t-1}`.

    Returns:
        `(hidden, n, d, m)`: `hidden` `[time, batch, units]` the state `h_t`
        after every step (a skipped step repeats the previous one), and the
        final scaled sums and log scale, each `[batch, units]`.
    """
    extra = [x for x in (mask, recurrent_mask) if x is not None]
    has_mask = mask is not None
    has_recurrent_mask = recurrent_mask is not None

    @ops.custom_gradient
    def recurrence(projected, recurrent_kernel, h0, n0, d0, m0, *extra):
        mask = extra[0] if has_mask else None
        recurrent_mask = extra[-1] if has_recurrent_mask else None
        xs = [projected] if mask is None else [projected, mask]
        (_, n, d, m), saved = scan_lib.scan(
            _forward_step(spec, recurrent_kernel, recurrent_mask),
            (h0, n0, d0, m0),
            xs,
        )
        hidden, saved = saved
        if spec.hidden_activation == "tanh":
            saved.setdefault("tanh_average", hidden)

        def grad(*upstream, variables=None):
            # TensorFlow passes one upstream gradient per output; JAX passes
            # the outputs' structure as one argument.
            if len(upstream) == 1:
                upstream = upstream[0]
            d_hidden, dn, dd, dm = (
                ops.zeros_like(ref) if g is None else ops.cast(g, ref.dtype)
                for g, ref in zip(upstream, (hidden, n, d, m))
            )
            carry, d_projected = scan_lib.scan(
                _backward_step(spec, recurrent_kernel, recurrent_mask),
                (ops.zeros_like(n0), dn, dd, dm),
                (
                    projected,
                    d_hidden,
                    saved if mask is None else dict(saved, mask=mask),
                ),
                reverse=True,
            )
            dh0, dn0, dd0, dm0 = carry
            d_kernel = _recurrent_kernel_gradient(
                d_projected, hidden, h0, recurrent_mask, spec
            )
            grads = [
                d_projected,
                ops.cast(d_kernel, recurrent_kernel.dtype),
                ops.cast(dh0, h0.dtype),
                ops.cast(dn0, n0.dtype),
                ops.cast(dd0, d0.dtype),
                ops.cast(dm0, m0.dtype),
            ] + [None] * len(extra)
            if variables:
                return grads, [None] * len(variables)
            return grads

        return (hidden, n, d, m), grad

    return recurrence(projected, recurrent_kernel, *initial_state, *extra)


def _recurrent_kernel_gradient(d_projected, hidden, h0, recurrent_mask, spec):
    """`dR = sum_t (h_{t-1} r)^T dG_t` as one matmul over `time * batch` rows.

    Args:
        d_projected: `[time, batch, k * units]`, the gradients `dP_t`; their
            gate blocks are `dG_t`.
        hidden: `[time, batch, units]`, `h_t` after every step.
        h0: `[batch, units]`, the initial `h`.
        recurrent_mask: None or `[batch, units]`.
        spec: the `RecurrenceSpec`.

    Returns:
        `[units, (k - 1) * units]` in `spec.acc_dtype`.
    """
    acc = spec.acc_dtype
    units = spec.units
    h_prev = ops.concatenate([ops.expand_dims(h0, 0), hidden[:-1]], axis=0)
    if recurrent_mask is not None:
        h_prev = h_prev * recurrent_mask
    h_rows = ops.reshape(ops.cast(h_prev, acc), (-1, units))
    gate_rows = ops.reshape(
        ops.cast(d_projected[..., units:], acc),
        (-1, d_projected.shape[-1] - units),
    )
    return ops.matmul(ops.transpose(h_rows), gate_rows)
