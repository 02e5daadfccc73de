"""The fused RWA/RDA recurrence: a time loop with a hand-written backward pass.

`keras_rda.RDA` and `keras_rda.RWA` run their whole sequence through
`fused_recurrence`. The input projections `P_t = W x_t` of every step
arrive precomputed (one matmul before the loop); the loop holds one
`[batch, units] x [units, (k - 1) * units]` matmul and the element-wise
scaled running average (`keras_rda.ops.attention_average`). Its gradient
is not obtained by differentiating the loop: `custom_gradient` attaches
the closed-form backward pass below, derived from the forward lines one
by one.

Forward, step t (`k - 1` gate blocks g, a[, gamma]; masked steps keep the
state):

    G_t     = P_t[g, a, gamma] + (h_{t-1} * r) R           r: recurrent dropout mask
    z_t     = u_t tanh(g_t)
    past    = m_{t-1} + log gamma_t   (m_{t-1} if no discount; log a_t if d = 0)
    m_t     = max(past, log a_t)      (a constant for differentiation)
    p_t     = exp(past - m_t),  q_t = exp(log a_t - m_t)
    n_t     = n_{t-1} p_t + z_t q_t,  d_t = d_{t-1} p_t + q_t
    h_t     = f_h(n_t / d_t)

It stores per step `tanh g_t`, the slopes `d log a_t / d a` and
`d log gamma_t / d gamma` (`sigmoid(-x)` for a sigmoid gate; none for `exp`
attention), `n_{t-1}`, `d_{t-1}`, `p_t`, `q_t` and `h_t` (and `f_h(A_t)` in
float32 under mixed precision); the backward pass recomputes `n_t`, `d_t`
and `A_t` from them, but no transcendental function.

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

Cost. The step is written for the executor that runs it
(`_counts_transcendentals`): under XLA (JAX) each weight comes from as few
`exp` and `log` as it can (`log sigmoid` and its slope from one `exp`, and
`p_t`, `q_t` from one, as one of them is exactly 1), and the slopes the
backward needs are saved, so that the backward has no transcendental
function; op by op (TensorFlow without XLA, PyTorch) it takes the fewest
ops. The bias is added inside the loop rather than to the whole
`[time, batch, k * units]` projection before it.

Backends: all three; the loop is `keras_rda.ops.scan`, the gradient
attached by `keras_rda.ops.custom_gradient` (on PyTorch one
`torch.autograd.Function` holding both loops).
"""

import collections

import keras
from keras import ops

from keras_rda.ops import attention_average
from keras_rda.ops import custom_gradient
from keras_rda.ops import scan as scan_lib
from keras_rda.utils import keras_compat

# Static description of the unit: python values, closed over by the loops.
RecurrenceSpec = collections.namedtuple(
    "RecurrenceSpec",
    ["units", "discount", "attention_activation", "hidden_activation", "acc_dtype"],
)

_SOFTPLUS_LINEAR_BELOW = attention_average.SOFTPLUS_LINEAR_BELOW

#: `k`, the blocks per unit of the input projections `P_t`: u, g, a and
#: gamma for the RDA, u, g, a for the RWA (no discount); the recurrent
#: kernel has `k - 1` (the documented weight layout).
RDA_BLOCKS = 4
RWA_BLOCKS = 3


def projection_blocks(discount):
    """`k` of a unit with or without a discount (`RDA_BLOCKS`, `RWA_BLOCKS`)."""
    return RDA_BLOCKS if discount else RWA_BLOCKS


#: `projects_in_loop`: the widest input, as a fraction of `units`, that the
#: loop projects step by step.
IN_LOOP_PROJECTION_MAX_RATIO = 0.25


def projects_in_loop(input_dim, units):
    """Whether the loop should project each step's input itself
    (`fused_recurrence(..., input_kernel=W)`) rather than take the
    projections of all steps.

    Projecting all steps first is one large, efficient matmul, but it and
    its gradient are `[time, batch, k * units]` tensors written to memory
    once each; for narrow inputs (a few features, as in the papers'
    synthetic tasks) writing them costs more than the matmul, and the
    small per-step matmul `x_t W` is nearly free
    (`benchmarks/rnn_speed.py`, `--input-dim`).
    """
    return input_dim is not None and input_dim <= IN_LOOP_PROJECTION_MAX_RATIO * units


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
        safe = keras_compat.maximum(logits, _SOFTPLUS_LINEAR_BELOW)
        slope = ops.sigmoid(safe) / ops.softplus(safe)
        return ops.where(logits < _SOFTPLUS_LINEAR_BELOW, 1.0, slope)
    # relu: log a = log(x) where x > 0.
    positive = logits > 0
    return ops.where(positive, 1.0 / ops.where(positive, logits, 1.0), 0.0)


def _select(mask, new, old):
    """`new` where the step is real (`mask` `[batch, 1]`), else `old`."""
    return new if mask is None else ops.where(mask, new, old)


# ------------------------------------------------------------------ forward


def _counts_transcendentals():
    """Whether the step's cost is its transcendental functions rather than
    its number of ops.

    On JAX the loop is compiled by XLA, which fuses the element-wise work
    into a few kernels: there `exp`, `log` and `tanh` are what costs, and
    the step computes each weight from as few of them as it can. TensorFlow
    (without XLA) and PyTorch launch one kernel per op, whose overhead
    costs more than the arithmetic at these sizes: there the step takes
    the fewest ops (`log_sigmoid` and `sigmoid` are one kernel each).
    Both give the same values, to rounding. (TensorFlow under
    `jit_compile=True` is XLA too, and runs the same speed either way:
    `benchmarks/rnn_profile.py`.)
    """
    return keras.backend.backend() == "jax"


def _log_sigmoid_and_slope(logits):
    """`log sigmoid(x)` and its derivative `sigmoid(-x)`, from one `exp`.

    With `e = exp(-|x|)` (in `(0, 1]`, never overflowing):
    `log sigmoid(x) = min(x, 0) - log(1 + e)` and
    `sigmoid(-x) = [x >= 0] e / (1 + e) + [x < 0] / (1 + e)`. The forward
    pass keeps the slope for the backward, which then needs no
    transcendental function. (`log(1 + e)` rather than `log1p(e)`: the
    absolute error is at most one rounding of 1, below float32's precision
    of the log-weight it is added to, and `log` costs half of `log1p`.)

    Args:
        logits: `[batch, units]`.

    Returns:
        `(log_sigmoid, slope)`, each `[batch, units]`.
    """
    if not _counts_transcendentals():
        return ops.log_sigmoid(logits), ops.sigmoid(-logits)
    e = ops.exp(-ops.abs(logits))
    one_plus = 1.0 + e
    log_sigmoid = keras_compat.minimum(logits, 0.0) - ops.log(one_plus)
    slope = ops.where(logits >= 0, e, 1.0) / one_plus
    return log_sigmoid, slope


def _log_attention_and_slope(logits, activation):
    """`(log a, d log a / d logits, positive)` of the attention, `[batch, units]`
    each (`positive` as in `attention_average.log_attention`; the slope is
    None for `exp`, whose slope is 1)."""
    if activation == "exp":
        return logits, None, None
    if activation == "sigmoid":
        return (*_log_sigmoid_and_slope(logits), None)
    log_a, positive = attention_average.log_attention(logits, activation)
    return log_a, _log_attention_slope(logits, activation), positive


def _average_weights(d_prev, m_prev, log_a, log_gamma, positive):
    """`(p_t, q_t, m_t)` of `attention_average.average_weights`, values only.

    Without ReLU attention one of the two weights is exactly 1, the one of
    the larger log-weight, so both come from one `exp`: with
    `delta = past - log a_t`, `e = exp(-|delta|)`, `(p, q) = (1, e)` where
    `delta >= 0` and `(e, 1)` otherwise. Not differentiable as written (the
    branch of weight 1 is a constant): it serves the forward pass of the
    hand-written backward, which uses `p` and `q` themselves as the
    derivatives `dp / d past` and `dq / d log a`.
    """
    if positive is not None or not _counts_transcendentals():
        return attention_average.average_weights(
            d_prev, m_prev, log_a, log_gamma, positive
        )
    past = m_prev if log_gamma is None else m_prev + log_gamma
    past = ops.where(attention_average.attended(d_prev), past, log_a)
    delta = past - log_a
    e = ops.exp(-ops.abs(delta))
    past_larger = delta >= 0
    p = ops.where(past_larger, 1.0, e)
    q = ops.where(past_larger, e, 1.0)
    m = ops.where(past_larger, past, log_a)
    return p, q, m


def _forward_step(spec, recurrent_kernel, recurrent_mask, bias, input_kernel):
    """The forward step `(carry, x) -> (carry, saved)` for `scan`."""
    acc = spec.acc_dtype
    units = spec.units

    def step(carry, xs):
        h_prev, n_prev, d_prev, m_prev = carry
        projected, *mask = xs
        mask = mask[0] if mask else None
        if input_kernel is not None:  # `projected` is x_t
            projected = keras_compat.matmul(projected, input_kernel)
        if bias is not None:
            projected = projected + bias
        h_in = h_prev if recurrent_mask is None else h_prev * recurrent_mask
        u = projected[:, :units]
        gates = ops.cast(
            projected[:, units:] + keras_compat.matmul(h_in, recurrent_kernel), acc
        )
        g, a_logits, gamma_logits = _split_gates(gates, spec)
        log_a, a_slope, positive = _log_attention_and_slope(
            a_logits, spec.attention_activation
        )
        log_gamma = gamma_slope = None
        if spec.discount:
            log_gamma, gamma_slope = _log_sigmoid_and_slope(gamma_logits)
        p, q, m = _average_weights(d_prev, m_prev, log_a, log_gamma, positive)
        tanh_g = keras_compat.tanh(g)
        z = ops.cast(u, acc) * tanh_g
        n = n_prev * p + z * q
        d = d_prev * p + q
        h_acc = attention_average.apply_activation(
            attention_average.weighted_average(n, d), spec.hidden_activation
        )
        h = ops.cast(h_acc, h_prev.dtype)
        saved = {"n_prev": n_prev, "d_prev": d_prev, "p": p, "q": q, "tanh_g": tanh_g}
        if input_kernel is not None:
            saved["u"] = u
        if a_slope is not None:
            saved["a_slope"] = a_slope
        if spec.discount:
            saved["gamma_slope"] = gamma_slope
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


def _backward_step(spec, recurrent_kernel, recurrent_mask, bias, input_kernel):
    """The reverse step `(carry, x) -> (carry, y)` for `scan`: `y` is `dP_t`,
    or with `input_kernel` `(dG_t, dx_t)`, the carry then also summing
    `dW` and `db` over the steps."""
    acc = spec.acc_dtype
    units = spec.units
    kernel_t = ops.transpose(recurrent_kernel)
    input_kernel_t = None if input_kernel is None else ops.transpose(input_kernel)

    def step(carry, xs):
        dh, dn, dd, dm, *sums = carry
        projected, d_hidden, saved = xs
        mask = saved.get("mask")
        n_prev, d_prev, p, q, tanh_g = (
            saved[k] for k in ("n_prev", "d_prev", "p", "q", "tanh_g")
        )
        dh = dh + ops.cast(d_hidden, acc)
        if input_kernel is not None:
            u = saved["u"]
        else:
            u = projected[:, :units]
            if bias is not None:
                u = u + bias[:units]
        u = ops.cast(u, acc)
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
        d_log_a = dq * q
        if "a_slope" in saved:
            d_log_a = d_log_a * saved["a_slope"]
        d_blocks = [dz * u * (1.0 - tanh_g * tanh_g), d_log_a]
        if spec.discount:
            d_blocks.append(d_past * saved["gamma_slope"])
        d_gates = ops.concatenate(d_blocks, axis=-1)
        dh_prev = ops.cast(
            keras_compat.matmul(ops.cast(d_gates, kernel_t.dtype), kernel_t), acc
        )
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
        d_projected = ops.cast(d_projected, projected.dtype)
        if input_kernel is None:
            return new_carry, d_projected
        # dx_t = dP_t W^T; dW and db summed over the steps in the carry.
        d_kernel, *d_bias = sums  # d_bias: [] without a bias
        sums = [d_kernel + keras_compat.matmul(ops.transpose(projected), d_projected)]
        sums += [db + ops.sum(d_projected, axis=0) for db in d_bias]
        d_inputs = keras_compat.matmul(d_projected, input_kernel_t)
        return (*new_carry, *sums), (d_projected[:, units:], d_inputs)

    return step


# ------------------------------------------------------------------ the op


def fused_recurrence(
    projected,
    recurrent_kernel,
    initial_state,
    spec,
    mask=None,
    recurrent_mask=None,
    bias=None,
    input_kernel=None,
):
    """Runs the unit over a time-major sequence of input projections.

    Args:
        projected: `[time, batch, k * units]`, `W x_t + b` of every step
            (blocks u, g, a[, gamma]), in the compute dtype; without `b`
            where `bias` is given. With `input_kernel`, the inputs `x_t`
            themselves, `[time, batch, input_dim]`.
        recurrent_kernel: `[units, (k - 1) * units]`, in the compute dtype.
        initial_state: `[h_0, n_0, d_0, m_0]`, each `[batch, units]`; `h_0`
            in the compute dtype, the sums in `spec.acc_dtype`.
        spec: a `RecurrenceSpec`.
        mask: None or boolean `[time, batch, 1]`, False at steps to skip.
        recurrent_mask: None or `[batch, units]`, the recurrent dropout mask
            applied to `h_{t-1}`.
        bias: None, or `[k * units]` in the compute dtype: `b`, added inside
            the loop. Adding it there costs nothing (it joins the step's
            element-wise work), where adding it to `projected` beforehand
            writes the whole `[time, batch, k * units]` tensor once more.
        input_kernel: None, or `W`, `[input_dim, k * units]` in the compute
            dtype: the loop then projects each step's input itself
            (`x_t W`, one small matmul a step, as Keras's LSTM does) and sums
            `dW = sum_t x_t^T dP_t` and `db` in its backward loop, so that
            neither the projections nor their gradients are ever written as
            `[time, batch, k * units]` tensors. It pays where `input_dim` is
            small next to `units`: `projects_in_loop`.

    Returns:
        `(hidden, n, d, m)`: `hidden` `[time, batch, units]` the state `h_t`
        after every step (a skipped step repeats the previous one), and the
        final scaled sums and log scale, each `[batch, units]`.
    """
    optional = {
        "input_kernel": input_kernel,
        "bias": bias,
        "mask": mask,
        "recurrent_mask": recurrent_mask,
    }
    given = [name for name, value in optional.items() if value is not None]

    @custom_gradient.custom_gradient
    def recurrence(projected, recurrent_kernel, h0, n0, d0, m0, *extra):
        extra = dict(zip(given, extra))
        hidden, n, d, m, saved = _forward(
            spec, projected, recurrent_kernel, (h0, n0, d0, m0), extra
        )

        def grad(*upstream, variables=None):
            # TensorFlow and PyTorch pass one upstream gradient per output;
            # JAX passes the outputs' structure as one argument.
            if len(upstream) == 1:
                upstream = upstream[0]
            inputs = (projected, recurrent_kernel, h0, n0, d0, m0)
            grads, extra_grads = _gradients(
                spec, upstream, inputs, extra, (hidden, n, d, m), saved
            )
            grads += [extra_grads.get(name) for name in given]
            if variables:
                return grads, [None] * len(variables)
            return grads

        return (hidden, n, d, m), grad

    return recurrence(
        projected, recurrent_kernel, *initial_state, *(optional[k] for k in given)
    )


def _forward(spec, projected, recurrent_kernel, initial_state, extra):
    """The forward loop of `fused_recurrence`: `(hidden, n, d, m, saved)`,
    `saved` what the backward pass reads (`extra`: the optional inputs
    given, by name)."""
    mask = extra.get("mask")
    step = _forward_step(
        spec,
        recurrent_kernel,
        extra.get("recurrent_mask"),
        extra.get("bias"),
        extra.get("input_kernel"),
    )
    xs = [projected] if mask is None else [projected, mask]
    (_, n, d, m), saved = scan_lib.scan(
        step,
        initial_state,
        xs,
        stack=False,  # the saved tensors are read step by step
    )
    hidden, saved = saved
    hidden = scan_lib.stacked(hidden)
    if spec.hidden_activation == "tanh":
        saved.setdefault("tanh_average", hidden)
    return hidden, n, d, m, saved


def _gradients(spec, upstream, inputs, extra, outputs, saved):
    """The closed-form backward pass of `fused_recurrence`.

    Args:
        spec: the `RecurrenceSpec`.
        upstream: the gradients of `(hidden, n, d, m)` (None: zero).
        inputs: `(projected, recurrent_kernel, h0, n0, d0, m0)`.
        extra: the optional inputs given, by name (`input_kernel`, `bias`,
            `mask`, `recurrent_mask`).
        outputs: `(hidden, n, d, m)`, the forward's results.
        saved: what the forward loop saved for this pass.

    Returns:
        `(grads, extra_grads)`: the gradients of `inputs`, in order, and
        those of `input_kernel` and `bias` by name, where given.
    """
    projected, recurrent_kernel, h0, n0, d0, m0 = inputs
    bias, mask = extra.get("bias"), extra.get("mask")
    recurrent_mask = extra.get("recurrent_mask")
    input_kernel = extra.get("input_kernel")
    hidden, n, d, m = outputs
    d_hidden, dn, dd, dm = (
        ops.zeros_like(ref) if g is None else ops.cast(g, ref.dtype)
        for g, ref in zip(upstream, (hidden, n, d, m))
    )
    carry = (ops.zeros_like(n0), dn, dd, dm)
    if input_kernel is not None:
        carry += (ops.zeros_like(input_kernel),)
        carry += () if bias is None else (ops.zeros_like(bias),)
    carry, d_steps = scan_lib.scan(
        _backward_step(spec, recurrent_kernel, recurrent_mask, bias, input_kernel),
        carry,
        (projected, d_hidden, saved if mask is None else dict(saved, mask=mask)),
        reverse=True,
    )
    dh0, dn0, dd0, dm0, *sums = carry
    extra_grads = {}
    if input_kernel is None:
        d_projected = d_steps
        d_gates = d_projected[..., spec.units :]
        if bias is not None:
            extra_grads["bias"] = ops.sum(d_projected, axis=(0, 1))
    else:
        (d_gates, d_projected) = d_steps  # d_projected: dx_t
        extra_grads["input_kernel"] = sums[0]
        if bias is not None:
            extra_grads["bias"] = sums[1]
    d_kernel = _recurrent_kernel_gradient(d_gates, hidden, h0, recurrent_mask, spec)
    grads = [
        d_projected,
        ops.cast(d_kernel, recurrent_kernel.dtype),
        ops.cast(dh0, h0.dtype),
        ops.cast(dn0, n0.dtype),
        ops.cast(dd0, d0.dtype),
        ops.cast(dm0, m0.dtype),
    ]
    return grads, extra_grads


def _recurrent_kernel_gradient(d_gates, hidden, h0, recurrent_mask, spec):
    """`dR = sum_t (h_{t-1} r)^T dG_t` as one matmul over `time * batch` rows.

    Args:
        d_gates: `[time, batch, (k - 1) * units]`, the gradients `dG_t`.
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
    gate_rows = ops.reshape(ops.cast(d_gates, acc), (-1, d_gates.shape[-1]))
    return keras_compat.matmul(ops.transpose(h_rows), gate_rows)
