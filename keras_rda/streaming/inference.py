"""The RWA/RDA step in a form built for inference: the same function, fewer ops.

The training form of `BaseRDACell` (`keras_rda.ops.attention_average`)
takes the running maximum `m_t` of the log-weights with `where`s,
`maximum` and two subtractions per weight, guards the division for an
empty average, casts between dtypes and splits the gates three times. An
exported graph runs each of those as its own kernel, and at streaming
sizes (one step, batch 1) the kernels' fixed cost, not their arithmetic,
sets the time. For an attention that is positive for every finite input
(`exp`, `sigmoid`, `softplus`: every unit but ReLU attention) the step
can be written with about a third fewer ops:

- the attention and discount blocks of the kernel and bias are negated
  once (a constant, folded by the exporters), so `-log a_t` and
  `-log gamma_t` are each a `softplus` (sigmoid attention; both blocks at
  once) or the projection itself (`exp` attention), without a `neg` on
  either side;
- with `A = sign(d^_{t-1})` (1 once something has been attended, else 0)
  and `delta = A (m_{t-1} + log gamma_t - log a_t)`, the rescaling of the
  module docstring of `attention_average` becomes

      r = relu(delta),  m_t = log a_t + r,
      p_t = exp(delta - r),  q_t = exp(-r),

  which is exactly its `max` / `where` form: `p_t`, `q_t` are
  `exp(past - m_t)`, `exp(log a_t - m_t)` with `past = m_{t-1} +
  log gamma_t` when attended and `log a_t` when empty;
- after a step with a positive attention `d^_t >= 1` (one of `p_t`, `q_t`
  is exactly 1), so `n^_t / d^_t` needs no guard, and the learned `s0`
  only enters through `h_{t-1} = h_0 + A (h - h_0)` (the empty state).

The state `[h, n^, d^, m]` and the outputs are those of the training
form, to float32 rounding (`tests/streaming/test_inference.py`). ReLU
attention, whose average can stay empty after a step, and units under
mixed precision keep the training form (`has_inference_form`).
"""

import keras
from keras import ops

from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.ops import attention_average


def has_inference_form(cell):
    """Whether `inference_step` computes `cell`'s step.

    Args:
        cell: any recurrent cell.

    Returns:
        True for an RWA/RDA/ParallelRDA cell with an attention that is
        positive for every finite input, computing in its compute dtype
        (not under mixed precision).
    """
    return (
        isinstance(cell, BaseRDACell)
        and cell.attention_activation != "relu"
        and cell.accumulation_dtype == cell.compute_dtype
    )


def _negated_after(weight, columns):
    """`weight` (`[..., k]`) with its last axis negated from `columns` on:
    the attention and discount blocks of a kernel or bias."""
    kept, attention = ops.split(weight, [columns], axis=-1)
    return ops.concatenate([kept, -attention], axis=-1)


def _softplus(x):
    """`softplus(x) = relu(x) + log(1 + exp(-|x|))`, from element-wise ops
    that runtimes vectorise (onnxruntime's `Softplus` kernel is scalar: at
    batch 32 it took longer than the RDA step's matrix products)."""
    return ops.relu(x) + ops.log(1.0 + ops.exp(-ops.abs(x)))


def _negative_log_weights(cell, negated):
    """`(-log a_t, -log gamma_t or None)` from the negated pre-activations
    `[batch, (k - 2) * units]` (blocks a(, gamma))."""
    activation = cell.attention_activation
    if activation == "sigmoid" and cell.discount:
        # -log sigmoid(x) = softplus(-x), both blocks in one op.
        return tuple(ops.split(_softplus(negated), 2, axis=-1))
    if cell.discount:
        negated, negated_gamma = ops.split(negated, 2, axis=-1)
        neg_log_gamma = _softplus(negated_gamma)
    else:
        neg_log_gamma = None
    if activation == "exp":
        return negated, neg_log_gamma
    if activation == "sigmoid":
        return _softplus(negated), neg_log_gamma
    log_a, _ = attention_average.log_attention(-negated, activation)
    return -log_a, neg_log_gamma


def _projection(cell, inputs, hidden):
    """`(u, g, negated a(, gamma) pre-activations)` of one step."""
    units = cell.units
    # Blocks u, g, a(, gamma) of the kernel and bias; g, a(, gamma) of the
    # recurrent kernel.
    projected = ops.matmul(inputs, _negated_after(cell.kernel, 2 * units))
    if cell.use_bias:
        projected = projected + _negated_after(cell.bias, 2 * units)
    u, gates = ops.split(projected, [units], axis=-1)
    if hidden is not None:
        gates = gates + ops.matmul(hidden, _negated_after(cell.recurrent_kernel, units))
    g, negated = ops.split(gates, [units], axis=-1)
    return u, g, negated


def inference_step(cell, inputs, states):
    """One step of an RWA/RDA/ParallelRDA cell in its inference form.

    Equal to `cell(inputs, states, training=False)` (see the module
    docstring) for the cells `has_inference_form` accepts.

    Args:
        cell: a built `RWACell`, `RDACell` or `ParallelRDACell`.
        inputs: `[batch, input_dim]`, `x_t`.
        states: `[h, n, d, m]` (`[n, d, m]` for `ParallelRDACell`), each
            `[batch, units]`.

    Returns:
        `(o_t, new_states)`: `[batch, units]` and the states in the same
        order and shapes.
    """
    if cell.gates_read_hidden:
        hidden, numerator, denominator, log_scale = states
    else:
        hidden = None
        numerator, denominator, log_scale = states
    attended = ops.sign(denominator)
    if hidden is not None and cell.initial_state is not None:
        # h_{t-1} = h_0 = f_h(s0) while nothing has been attended.
        initial = cell.hidden_from_average(cell.initial_state)
        hidden = initial + attended * (hidden - initial)
    u, g, negated = _projection(cell, inputs, hidden)
    neg_log_a, neg_log_gamma = _negative_log_weights(cell, negated)
    features = u * ops.tanh(g)
    past = log_scale if neg_log_gamma is None else log_scale - neg_log_gamma
    delta = attended * (past + neg_log_a)  # past - log a_t, 0 when empty
    excess = ops.relu(delta)
    past_weight = ops.exp(delta - excess)
    new_weight = ops.exp(-excess)
    numerator = numerator * past_weight + features * new_weight
    denominator = denominator * past_weight + new_weight
    new_hidden = cell.hidden_from_average(numerator / denominator)
    new_states = [numerator, denominator, excess - neg_log_a]
    if cell.gates_read_hidden:
        new_states.insert(0, new_hidden)
    return cell.output_from_hidden(new_hidden), new_states


class InferenceStep(keras.layers.Layer):
    """Calls `inference_step` of a cell: the RWA/RDA step of a step model.

    Args:
        cell: a cell `has_inference_form` accepts (its weights are this
            layer's).
        **kwargs: `keras.layers.Layer` arguments.
    """

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell

    def call(self, inputs, states):
        return inference_step(self.cell, inputs, states)
