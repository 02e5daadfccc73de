"""The RWA/RDA step in forms built for inference: the same function, fewer ops.

At streaming sizes (one step, batch 1) an exported graph costs about one
fixed overhead per kernel, so the step is written with the fewest kernels
that still compute the unit's equations (RDA paper, section 5):

    z_t = u_t * tanh(g_t),   a_t = f_a(.),   gamma_t = sigmoid(.)
    n_t = gamma_t n_{t-1} + z_t a_t,   d_t = gamma_t d_{t-1} + a_t
    h_t = f_h(n_t / d_t)

Both forms project `[x_t, h_{t-1}]` in one matrix product (one kernel;
the `u` block reads `x_t` only, so its rows for `h` are zeros), with the
attention and discount columns negated once (constants, folded by the
exporters), and carry a *stream state* that differs from the training
form's `[h, n^, d^, m]` only at the boundary: `to_stream_states` and
`to_sequence_states` convert it (NumPy, outside the graph), so a stream
can start from a sequence layer's `return_state` or `initial_state` and
hand its state back. The empty state (nothing attended: `d = 0`) holds
`h = f_h(s0)` already, so the step needs no `where` for it.

**Plain form (sigmoid attention, the default).** The stream state is the
unscaled `[h, n, d]` (`[n, d]` for `ParallelRDACell`), and the step is
the equations above, with

    a_t = 1 / (1 + exp(min(-x_a, 69))),   gamma_t = 1 / (1 + exp(-x_gamma)).

*It cannot overflow.* `0 < a_t <= 1` and `0 <= gamma_t <= 1`, so
`d_t <= t` and `|n_t| <= t max|z|`: finite for streams of up to
`FLT_MAX / max(1, max|z|)` steps, over `10^30` steps (a step a
nanosecond for `10^13` years) for any `|z| < 3e8`.

*It cannot divide by zero, and rounding does not grow.* Every term of
`d_t` is `>= 0` and the last is `a_t`, so after the first step
`d_t >= a_t >= A = 1 / (1 + e^69) = 1.0e-30`, whatever came before (also
`d_{t-1} = 0`, also `gamma_t = 0`), and `n_t / d_t` is finite. A term
below float32's normal range (`FLT_MIN = 1.18e-38`: `gamma_t d_{t-1}`,
`gamma_t n_{t-1}` or `z_t a_t` of a decayed past or a tiny `z`) may be
rounded to a subnormal or flushed to 0 (TensorFlow's CPU kernels flush
subnormals): an absolute error below `FLT_MIN`, so below
`FLT_MIN / A = 1.2e-8` relative to `d_t` (in `h_t`: at most `1.2e-8`
absolute, `2.4e-8 max|z|` for the numerator's). Older errors are
multiplied by `gamma_t d_{t-1} / d_t <= 1` each step, so they do not
grow: the plain form equals the scaled form of the training path
(`keras_rda.ops.attention_average`) to float32 rounding, over any stream
length, wherever the floor below does not act.

*The floor, and the one difference it makes.* Without it,
`a_t = sigmoid(x_a)` is 0 in float32 for `x_a < -103.9` (`< -87.3`
where subnormals are flushed), which from an empty state gives `0 / 0`,
and subnormal or flushed terms would no longer be negligible against
`d_t`. (The runtimes' `Sigmoid` kernels are worse: onnxruntime's returns
0 below `x = -17.5`, so the step builds `a_t` and `gamma_t` from `exp`.)
Clamping `-x_a` at 69 replaces every `a_t < A` by `A`, and that is the
only difference from the equations beyond float32 rounding: where some
attention logits are below `-69`, those steps weigh `A` instead of
`a_t < A`, which moves `h_t` by at most `2 max|z| S_t / d_t`, `S_t`
(`<= A t`) the discounted sum of the replaced weights. That is below
float32's resolution unless the whole recent past's attended weight
`d_t` is itself below `~1e-23` (every recent logit below `-53`), far from
what trained units reach; there the plain form averages those steps
(weight `A` each, discounted) where the equations take the largest
weight's `z` (`tests/streaming/test_inference.py` checks both). The
discount needs no floor: `gamma_t = 0` (its logit below `-88.7`) drops a
past whose weight is below `A` times `d_{t-1}` only. A state converted
from the scaled form (`to_stream_states`) whose `exp(m) d^` is below
`FLT_MIN` loses that past the same way.

**Scaled form (`exp`, `softplus` attention).** `exp(x)` overflows for
`x > 88.7` and softplus is unbounded above, so these keep the running
maximum `m_t` of the log-weights (`attention_average`):

    m_t = max(m_{t-1} + log gamma_t, log a_t)
    p_t = exp(m_{t-1} + log gamma_t - m_t),   q_t = exp(log a_t - m_t)
    n^_t = n^_{t-1} p_t + z_t q_t,   d^_t = d^_{t-1} p_t + q_t

with the stream state `[h, n^, d^, m]` in which the empty state has
`m = EMPTY_LOG_SCALE` (`-1.7e38`) instead of the training form's `0`, so
that `p_t = exp(-1.7e38 - m_t) = 0` there and no `where` or `sign` is
needed (for log-weights of magnitude below `1e38`); it is the scaled form
itself, to float32 rounding. ReLU attention (`a_t` can be exactly 0, and
the average stay empty after a step) and units under mixed precision keep
the training form (`inference_form` is None).
"""

import keras
import numpy as np
from keras import ops

from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.ops import attention_average

#: `m` of the scaled form's empty state: `exp(m + log gamma_t - m_t)` is
#: then 0 without a `where` (finite: onnxruntime's `Exp` gives NaN at
#: `-inf`).
EMPTY_LOG_SCALE = -0.5 * float(np.finfo("float32").max)

#: The plain form clamps `-x_a` at this: `a_t >= 1 / (1 + e^69) = 1.0e-30`,
#: so that terms below float32's normal range are negligible against `d_t`
#: (see the module docstring).
NEGATIVE_LOGIT_CEILING = 69.0


def inference_form(cell):
    """Which inference form computes `cell`'s step.

    Args:
        cell: any recurrent cell.

    Returns:
        `"plain"` (sigmoid attention), `"scaled"` (`exp`, `softplus`) for an
        RWA/RDA/ParallelRDA cell computing in its compute dtype, else None
        (ReLU attention, mixed precision, other cells: the training form).
    """
    if not isinstance(cell, BaseRDACell):
        return None
    if cell.accumulation_dtype != cell.compute_dtype:
        return None
    if cell.attention_activation == "sigmoid":
        return "plain"
    if cell.attention_activation in ("exp", "softplus"):
        return "scaled"
    return None


def has_inference_form(cell):
    """Whether `inference_step` computes `cell`'s step (`inference_form`)."""
    return inference_form(cell) is not None


def _softplus(x):
    """`softplus(x) = relu(x) + log(1 + exp(-|x|))`, from element-wise ops
    that runtimes vectorise (onnxruntime's `Softplus` kernel is scalar)."""
    return ops.relu(x) + ops.log(1.0 + ops.exp(-ops.abs(x)))


def _stream_weights(cell):
    """`(kernel, bias)` of the stream's one projection of `[x_t, h_{t-1}]`:
    `[input_dim (+ units), k * units]` and `[k * units]` (or None), blocks
    `u, g, a(, gamma)`, the `u` block's rows for `h` zero, and the columns
    that the form takes negated negated (a constant for the exporters)."""
    units, k = cell.units, cell.num_blocks
    kernel = cell.kernel
    if cell.gates_read_hidden:
        zeros = ops.zeros((units, units), dtype=kernel.dtype)
        recurrent = ops.concatenate([zeros, cell.recurrent_kernel], axis=-1)
        kernel = ops.concatenate([kernel, recurrent], axis=0)
    signs = np.ones(k * units, dtype=keras.backend.standardize_dtype(kernel.dtype))
    form = inference_form(cell)
    if form == "plain":
        signs[2 * units :] = -1.0  # -x_a, -x_gamma
    elif cell.discount:
        signs[3 * units :] = -1.0  # -x_gamma
    kernel = kernel * signs
    bias = cell.bias * signs if cell.use_bias else None
    return kernel, bias


def _project(cell, inputs, hidden):
    """`(u, g, rest)`: `[batch, units]` twice and the attention (and
    discount) pre-activations `[batch, (k - 2) * units]`, signed as
    `_stream_weights` says."""
    kernel, bias = _stream_weights(cell)
    if hidden is not None:
        inputs = ops.concatenate([inputs, hidden], axis=-1)
    projected = ops.matmul(inputs, kernel)
    if bias is not None:
        projected = projected + bias
    units = cell.units
    return ops.split(projected, [units, 2 * units], axis=-1)


def _plain_weights(cell, negated):
    """`(a_t, gamma_t or None)` from `[-x_a(, -x_gamma)]`: sigmoids from
    `exp`, the attention's floored at `1 / (1 + e^69)`."""
    units = cell.units
    dtype = keras.backend.standardize_dtype(negated.dtype)
    ceiling = np.full(negated.shape[-1], NEGATIVE_LOGIT_CEILING, dtype=dtype)
    if cell.discount:
        ceiling[units:] = np.finfo(dtype).max  # the discount: no floor
    weights = 1.0 / (1.0 + ops.exp(ops.minimum(negated, ceiling)))
    if not cell.discount:
        return weights, None
    return tuple(ops.split(weights, 2, axis=-1))


def _log_weights(cell, rest):
    """`(log a_t, -log gamma_t or None)` from `[x_a(, -x_gamma)]`."""
    if cell.discount:
        logits, negated_gamma = ops.split(rest, 2, axis=-1)
        neg_log_gamma = _softplus(negated_gamma)
    else:
        logits, neg_log_gamma = rest, None
    if cell.attention_activation == "exp":
        return logits, neg_log_gamma
    log_a, _ = attention_average.log_attention(logits, cell.attention_activation)
    return log_a, neg_log_gamma


def inference_step(cell, inputs, states):
    """One step of an RWA/RDA/ParallelRDA cell in its inference form.

    Args:
        cell: a built cell that `has_inference_form`.
        inputs: `[batch, input_dim]`, `x_t`.
        states: the stream state (`to_stream_states`): `[h, n, d]` (plain
            form) or `[h, n^, d^, m]` (scaled form), without `h` for
            `ParallelRDACell`; each `[batch, units]`.

    Returns:
        `(o_t, new_states)`: `[batch, units]` and the stream state at step
        t, in the same order and shapes.
    """
    if cell.gates_read_hidden:
        hidden, *sums = states
    else:
        hidden, sums = None, list(states)
    u, g, rest = _project(cell, inputs, hidden)
    features = u * ops.tanh(g)
    if inference_form(cell) == "plain":
        numerator, denominator = sums
        a, gamma = _plain_weights(cell, rest)
        if gamma is not None:
            numerator, denominator = gamma * numerator, gamma * denominator
        numerator = numerator + features * a
        denominator = denominator + a
        new_sums = [numerator, denominator]
    else:
        numerator, denominator, log_scale = sums
        log_a, neg_log_gamma = _log_weights(cell, rest)
        past = log_scale if neg_log_gamma is None else log_scale - neg_log_gamma
        new_scale = ops.maximum(past, log_a)
        past_weight = ops.exp(past - new_scale)
        new_weight = ops.exp(log_a - new_scale)
        numerator = numerator * past_weight + features * new_weight
        denominator = denominator * past_weight + new_weight
        new_sums = [numerator, denominator, new_scale]
    new_hidden = cell.hidden_from_average(numerator / denominator)
    if cell.gates_read_hidden:
        new_sums.insert(0, new_hidden)
    return cell.output_from_hidden(new_hidden), new_sums


# ------------------------------------------------------------ the boundary


def _numpy(states):
    return [np.asarray(ops.convert_to_numpy(s)) for s in states]


def _hidden_of_empty(cell, hidden, denominator):
    """`h` with `f_h(s0)` where nothing has been attended (`d = 0`), as the
    training form reads it (`BaseRDACell.read_hidden_state`)."""
    if cell.initial_state is None:
        return hidden
    s0 = np.asarray(ops.convert_to_numpy(cell.initial_state), hidden.dtype)
    h0 = s0 if cell.hidden_activation == "linear" else np.tanh(s0)
    return np.where(denominator > 0, hidden, h0).astype(hidden.dtype)


def to_stream_states(cell, states):
    """The training form's state `[h, n^, d^, m]` as the stream state.

    Args:
        cell: a built cell that `has_inference_form`.
        states: its state (`get_initial_state`, a sequence layer's
            `return_state`), arrays `[batch, units]`.

    Returns:
        NumPy arrays: `[h, n, d]` with `n = n^ exp(m)`, `d = d^ exp(m)`
        (plain form), or `[h, n^, d^, m]` with `m = EMPTY_LOG_SCALE` where `d^ = 0`
        (scaled form, `EMPTY_LOG_SCALE`: about `-1.7e38`); `h = f_h(s0)`
        where `d^ = 0`; no `h` without one.
    """
    states = _numpy(states)
    if cell.gates_read_hidden:
        hidden, numerator, denominator, log_scale = states
        hidden = [_hidden_of_empty(cell, hidden, denominator)]
    else:
        hidden = []
        numerator, denominator, log_scale = states
    dtype = numerator.dtype
    if inference_form(cell) == "plain":
        scale = np.exp(log_scale.astype("float64"))
        return hidden + [
            (numerator * scale).astype(dtype),
            (denominator * scale).astype(dtype),
        ]
    log_scale = np.where(denominator > 0, log_scale, EMPTY_LOG_SCALE).astype(dtype)
    return hidden + [numerator, denominator, log_scale]


def to_sequence_states(cell, states):
    """The stream state as the training form's `[h, n^, d^, m]`.

    Args:
        cell: a built cell that `has_inference_form`.
        states: its stream state, arrays `[batch, units]`.

    Returns:
        NumPy arrays for the sequence layer's `initial_state` (or the
        cell's step): the plain form's sums with `m = 0`, the scaled
        form's with `m = 0` where nothing has been attended.
    """
    states = _numpy(states)
    hidden = [states.pop(0)] if cell.gates_read_hidden else []
    if inference_form(cell) == "plain":
        numerator, denominator = states
        log_scale = np.zeros_like(denominator)
    else:
        numerator, denominator, log_scale = states
        log_scale = np.where(denominator > 0, log_scale, 0.0).astype(log_scale.dtype)
    return hidden + [numerator, denominator, log_scale]


class InferenceStep(keras.layers.Layer):
    """Calls `inference_step` of a cell: the RWA/RDA step of a step model.

    Args:
        cell: a cell that `has_inference_form` (its weights are this
            layer's).
        **kwargs: `keras.layers.Layer` arguments.
    """

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell

    def call(self, inputs, states):
        return inference_step(self.cell, inputs, states)
