"""The RWA/RDA step in forms built for inference: the same function, fewer ops.

At streaming sizes (one step, batch 1) an exported graph costs about one
fixed overhead per kernel and per tensor it takes and gives back, so the
step is written with the fewest kernels and the fewest state tensors that
still compute the unit's equations (RDA paper, section 5):

    z_t = u_t * tanh(g_t),   a_t = f_a(.),   gamma_t = sigmoid(.)
    n_t = gamma_t n_{t-1} + z_t a_t,   d_t = gamma_t d_{t-1} + a_t
    h_t = f_h(n_t / d_t)

**The average as the state.** Only the ratio `n_t / d_t` and the scale of
`d_t` matter, and the ratio is itself a running average: with
`r_t = n_t / d_t`,

    r_t = (gamma_t d_{t-1} r_{t-1} + z_t a_t) / d_t
        = r_{t-1} + (z_t - r_{t-1}) w_t,   w_t = a_t / d_t,

a convex combination (`0 < w_t <= 1`): the new `r_t` lies between
`r_{t-1}` and `z_t`, and a rounding error in `r` is multiplied by
`1 - w_t <= 1` every step after, so it never grows. The stream state of
every form is two tensors, `[r, d]` or `[r, l]`, each `[batch, units]`;
`h_{t-1} = f_h(r_{t-1})` (the RDA's default `f_h` is the identity, so
`h` is `r` itself). The empty state (nothing attended) holds `r = s0`
(without a learned `s0`: `f_h^-1(h_0)` of a given `h_0`, else 0), so the
step reads `h_0` with no `where`, and the first step gives `w_1 = 1`,
`r_1 = z_1`.

The gate pre-activations take two matrix products, `x_t W_x` for every
block and `h_{t-1} W_h` for the blocks that read `h` (`u` reads `x_t`
only), with the attention and discount columns negated once where the
form uses them negated (constants, folded by the exporters).
`to_stream_states` and `to_sequence_states` convert at the boundary
(NumPy, outside the graph), so a stream can start from a sequence layer's
`return_state` or `initial_state` and hand its state back.

**Plain form (sigmoid attention, the default).** The state is
`[r, d]` with the unscaled `d_t`, and

    a_t = 1 / (1 + exp(min(-x_a, 69))),   gamma_t = 1 / (1 + exp(-x_gamma)).

*It cannot overflow.* `0 < a_t <= 1` and `0 <= gamma_t <= 1`, so
`d_t <= t`: finite for streams of up to `FLT_MAX` (`3.4e38`) steps; `r`
stays between the smallest and largest `z` seen.

*It cannot divide by zero, and rounding does not grow.* Every term of
`d_t` is `>= 0` and the last is `a_t`, so `d_t >= a_t >= A =
1 / (1 + e^69) = 1.0e-30` whatever came before (also `d_{t-1} = 0`, also
`gamma_t = 0`), and `w_t = a_t / d_t` is in `(0, 1]` (in float32 too:
`fl(gamma_t d_{t-1} + a_t) >= a_t`). A term of `d_t` below float32's
normal range (`FLT_MIN = 1.18e-38`: `gamma_t d_{t-1}` of a decayed past)
may be rounded to a subnormal or flushed to 0 (TensorFlow's CPU kernels
flush subnormals): an absolute error below `FLT_MIN`, so below
`FLT_MIN / A = 1.2e-8` relative to `d_t`, which moves `w_t` by as little
and `r_t` by at most `1.2e-8 |z_t - r_{t-1}|`; by the convex update, such
errors do not grow. So the plain form equals the scaled form of the
training path (`keras_rda.ops.attention_average`) to float32 rounding,
over any stream length, wherever the floor below does not act.

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

**Log form (`exp`, `softplus` attention).** `exp(x)` overflows for
`x > 88.7` and softplus is unbounded above, so the state keeps
`l_t = log d_t` instead of `d_t`:

    p_t = l_{t-1} + log gamma_t,   s_t = log a_t - p_t,   w_t = sigmoid(s_t)
    l_t = log(exp(p_t) + a_t) = max(p_t, log a_t) - log(max(w_t, 1 - w_t))

(`max(w, 1 - w) = sigmoid(|s|)`, so the last term is
`log(1 + exp(-|s|))`, in `[0, log 2]`, exact to float32 rounding of `w`,
which moves `l` by at most `6e-8`; where a runtime's `Sigmoid` saturates,
`|s| > 17.5`, the term is below `3e-8` anyway; `s` is clamped at 20,
where `w` is 1 in float32, because LiteRT's `Logistic` gives NaN from
about 89). The empty state has `l = EMPTY_LOG_SCALE` (`-1.7e38`), so the
first step gives `s` about `1.7e38`, `w = 1`, `l_1 = log a_1` with no
`where` (for log-weights of magnitude below `1e38`). An error in `l`
changes the weight of the whole past against the newest step by the same
factor (`e^error`), not `r`'s convex update.

ReLU attention (`a_t` can be exactly 0, and the average stay empty after
a step) and units under mixed precision keep the training form
(`inference_form` is None).
"""

import keras
import numpy as np
from keras import ops

from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.ops import attention_average

#: `l` of the log form's empty state (nothing attended): the first step's
#: `sigmoid(log a_1 - l)` is then 1 without a `where` (finite: onnxruntime's
#: `Exp` and `Sigmoid` give NaN at `-inf`).
EMPTY_LOG_SCALE = -0.5 * float(np.finfo("float32").max)

#: The log form clamps `s_t` at this before the sigmoid (LiteRT's gives NaN
#: far above it): `sigmoid(20)` is 1 in float32 already.
SIGMOID_SATURATES = 20.0

#: The plain form clamps `-x_a` at this: `a_t >= 1 / (1 + e^69) = 1.0e-30`,
#: so that terms below float32's normal range are negligible against `d_t`
#: (see the module docstring).
NEGATIVE_LOGIT_CEILING = 69.0


def inference_form(cell):
    """Which inference form computes `cell`'s step.

    Args:
        cell: any recurrent cell.

    Returns:
        `"plain"` (sigmoid attention), `"log"` (`exp`, `softplus`) for an
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
        return "log"
    return None


def has_inference_form(cell):
    """Whether `inference_step` computes `cell`'s step (`inference_form`)."""
    return inference_form(cell) is not None


def _softplus(x):
    """`softplus(x) = relu(x) + log(1 + exp(-|x|))`, from element-wise ops
    that runtimes vectorise (onnxruntime's `Softplus` kernel is scalar)."""
    return ops.relu(x) + ops.log(1.0 + ops.exp(-ops.abs(x)))


def _signs(cell, dtype):
    """`[k * units]`: -1 on the columns the form takes negated (`-x_a` and
    `-x_gamma` in the plain form, `-x_gamma` in the log form), else 1."""
    units = cell.units
    signs = np.ones(cell.num_blocks * units, dtype=dtype)
    if inference_form(cell) == "plain":
        signs[2 * units :] = -1.0
    elif cell.discount:
        signs[3 * units :] = -1.0
    return signs


def _project(cell, inputs, hidden):
    """`(u, g, rest)`: `[batch, units]` twice and the attention (and
    discount) pre-activations `[batch, (k - 2) * units]`, signed as
    `_signs` says: `x_t W_x + b` for every block, plus `h_{t-1} W_h` for
    the blocks after `u` (the gates that read `h`)."""
    units = cell.units
    signs = _signs(cell, keras.backend.standardize_dtype(cell.kernel.dtype))
    projected = ops.matmul(inputs, cell.kernel * signs)
    if cell.use_bias:
        projected = projected + cell.bias * signs
    u, gates = ops.split(projected, [units], axis=-1)
    if hidden is not None:
        gates = gates + ops.matmul(hidden, cell.recurrent_kernel * signs[units:])
    g, rest = ops.split(gates, [units], axis=-1)
    return u, g, rest


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


def _plain_update(cell, rest, denominator):
    """`(w_t, d_t)` of the plain form."""
    a, gamma = _plain_weights(cell, rest)
    if gamma is not None:
        denominator = gamma * denominator
    denominator = denominator + a
    return a / denominator, denominator


def _log_update(cell, rest, log_denominator):
    """`(w_t, l_t)` of the log form."""
    log_a, neg_log_gamma = _log_weights(cell, rest)
    past = log_denominator
    if neg_log_gamma is not None:
        past = past - neg_log_gamma
    # LiteRT's `Logistic` gives NaN above about 89 (exp(s) / (1 + exp(s))).
    weight = ops.sigmoid(ops.minimum(log_a - past, SIGMOID_SATURATES))
    larger = ops.maximum(weight, 1.0 - weight)
    return weight, ops.maximum(past, log_a) - ops.log(larger)


def inference_step(cell, inputs, states):
    """One step of an RWA/RDA/ParallelRDA cell in its inference form.

    Args:
        cell: a built cell that `has_inference_form`.
        inputs: `[batch, input_dim]`, `x_t`.
        states: the stream state (`to_stream_states`): `[r, d]` (plain
            form) or `[r, l]` (log form), each `[batch, units]`.

    Returns:
        `(o_t, new_states)`: `[batch, units]` and the stream state at step
        t, in the same order and shapes.
    """
    average, scale = (ops.convert_to_tensor(s, cell.compute_dtype) for s in states)
    hidden = cell.hidden_from_average(average) if cell.gates_read_hidden else None
    u, g, rest = _project(cell, inputs, hidden)
    features = u * ops.tanh(g)
    if inference_form(cell) == "plain":
        weight, scale = _plain_update(cell, rest, scale)
    else:
        weight, scale = _log_update(cell, rest, scale)
    average = average + (features - average) * weight
    return cell.output_from_hidden(cell.hidden_from_average(average)), [average, scale]


def attended(cell, states):
    """`[batch, units]` booleans: where the stream state has attended
    something (`d > 0`), for the output a masked step repeats."""
    _, scale = states
    if inference_form(cell) == "plain":
        return scale > 0
    return scale > 0.5 * EMPTY_LOG_SCALE


def output_from_states(cell, states):
    """The output of the step that left the stream state, as the cell's
    `output_from_states` gives it from the training form's state.

    Args:
        cell: a cell that `has_inference_form`.
        states: its stream state `[r, d]` or `[r, l]`, each `[batch, units]`.

    Returns:
        `[batch, units]`: `f_o(f_h(r))`; where `s0` is learned, 0 until
        something has been attended (Keras's zeros before the first real
        step).
    """
    average = states[0]
    output = cell.output_from_hidden(cell.hidden_from_average(average))
    if not cell.learn_initial_state:
        return output
    return ops.cast(attended(cell, states), output.dtype) * output


# ------------------------------------------------------------ the boundary


def _numpy(states):
    return [np.asarray(ops.convert_to_numpy(s)) for s in states]


def _empty_average(cell, like, hidden):
    """`r` of an empty state (`d = 0`), so that `f_h(r)` is the `h_{t-1}`
    the training form reads there (`BaseRDACell.read_hidden_state`): `s0`
    where learned, else the stored `h` through `f_h`'s inverse (a seeded
    `initial_state`), else 0 (no `h`: `ParallelRDACell`)."""
    if cell.initial_state is not None:
        s0 = np.asarray(ops.convert_to_numpy(cell.initial_state), like.dtype)
        return np.broadcast_to(s0, like.shape)
    if hidden is None:
        return np.zeros_like(like)
    if cell.hidden_activation == "tanh":
        largest = np.nextafter(np.float32(1), np.float32(0))
        return np.arctanh(np.clip(hidden, -largest, largest))
    return hidden


def to_stream_states(cell, states):
    """The training form's state `[h, n^, d^, m]` as the stream state.

    Args:
        cell: a built cell that `has_inference_form`.
        states: its state (`get_initial_state`, a sequence layer's
            `return_state`), arrays `[batch, units]` (no `h` for
            `ParallelRDACell`).

    Returns:
        NumPy arrays `[r, d]` with `r = n^ / d^` (where `d^ = 0`: `s0`,
        else `h` through `f_h`'s inverse, as the training form reads `h`)
        and `d = d^ exp(m)` (plain form), or `[r, l]` with `l = log d^ + m`
        (`EMPTY_LOG_SCALE` where `d^ = 0`, log form).
    """
    states = _numpy(states)
    numerator, denominator, log_scale = states[-3:]
    hidden = states[0] if cell.gates_read_hidden else None
    dtype = numerator.dtype
    empty = denominator <= 0
    safe = np.where(empty, 1.0, denominator)
    empty_average = _empty_average(cell, numerator, hidden)
    average = np.where(empty, empty_average, numerator / safe)
    if inference_form(cell) == "plain":
        scale = denominator * np.exp(log_scale.astype("float64"))
    else:
        scale = np.where(empty, EMPTY_LOG_SCALE, np.log(safe) + log_scale)
    return [average.astype(dtype), scale.astype(dtype)]


def to_sequence_states(cell, states):
    """The stream state as the training form's `[h, n^, d^, m]`.

    Args:
        cell: a built cell that `has_inference_form`.
        states: its stream state, arrays `[batch, units]`.

    Returns:
        NumPy arrays for the sequence layer's `initial_state` (or the
        cell's step): `h = f_h(r)` (none for `ParallelRDACell`), and
        `n^ = r d`, `d^ = d`, `m = 0` (plain form) or `n^ = r`, `d^ = 1`,
        `m = l` (log form; all 0 where nothing has been attended).
    """
    average, scale = _numpy(states)
    dtype = average.dtype
    if inference_form(cell) == "plain":
        numerator, denominator = average * scale, scale
        log_scale = np.zeros_like(scale)
    else:
        full = scale > 0.5 * EMPTY_LOG_SCALE
        numerator = np.where(full, average, 0.0)
        denominator = full.astype(dtype)
        log_scale = np.where(full, scale, 0.0)
    sums = [s.astype(dtype) for s in (numerator, denominator, log_scale)]
    if not cell.gates_read_hidden:
        return sums
    hidden = ops.convert_to_numpy(cell.hidden_from_average(average))
    return [np.asarray(hidden, dtype)] + sums


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
