"""WeiNet cell: learned auto-associative memory updates (Zhang & Zhou)."""

import math

import keras
from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import associative as aops
from keras_rda.utils import validation

UPDATES = ("elementwise", "row_col", "gated")

# Means and standard deviations of the appendix's initialisation of eq. 5:
# W_A ~ N(0.9, 0.1), W_h ~ N(0.5, 0.1), W_AH ~ N(0, 0.1).
_DECAY_INIT = (0.9, 0.1)
_WRITE_INIT = (0.5, 0.1)
_CROSS_INIT = (0.0, 0.1)


def _matrix_initializer(mean, stddev):
    return keras.initializers.RandomNormal(mean=mean, stddev=stddev)


def _factor_initializer(mean, stddev):
    """Initialiser of the vectors `c`, `r` of a row x column weight `c r^T`.

    Chosen so that the product `c_i r_j` has (to first order) the mean and
    standard deviation of the full-matrix initialisation: for `mean > 0`,
    `c, r ~ N(sqrt(mean), stddev / sqrt(2 mean))`; for `mean == 0`,
    `c, r ~ N(0, sqrt(stddev))` (a product of two independent N(0, s)
    variables has standard deviation s^2).
    """
    if mean > 0:
        return keras.initializers.RandomNormal(
            mean=math.sqrt(mean), stddev=stddev / math.sqrt(2.0 * mean)
        )
    return keras.initializers.RandomNormal(mean=0.0, stddev=math.sqrt(stddev))


@keras.saving.register_keras_serializable(package="keras_rda")
class WeiNetCell(BaseCell):
    """Cell of WeiNet, an RNN with learned auto-associative memory updates.

    One step, with `K = num_memories` memories `A^k` (`[units, units]` each):

    ```
    h_t   = tanh(W_C [s_t; e_{t-1}; h_{t-1}] + b_C)                   (eq. 2)
    A^k_t = f_U(W_A^k * A^k_{t-1} + W_h^k * (h_t h_t^T)
                + W_AH^k * A^k_{t-1} * (h_t h_t^T))                    (eq. 5)
    a_t   = softmax(g(A_t, h_t) + w * a_{t-1}),
            g_k = h_t^T A^k_t h_t                                      (eq. 3-4)
    Abar  = sum_k a^k_t A^k_t
    m_t   = h_t^T Abar                                                 (eq. 6)
    e_t   = tanh(LN(W_D [e_{t-1}; Abar^c; Abar^r; m_t; h_t] + b_D))    (eq. 7)
    ```

    `*` is the element-wise product, `Abar^c` / `Abar^r` the column-wise /
    row-wise means of `Abar`, `LN` layer normalisation with a learned gain
    and bias. The cell's output is the reader's `e_t`.

    Memory update variants (`update`, the paper's Figure 3):
    - `"elementwise"`: eq. 5 with full `[units, units]` weights `W_A`,
      `W_h`, `W_AH` ("full matrix", O(H^2) parameters per memory).
    - `"row_col"`: each of `W_A`, `W_h`, `W_AH` is an outer product
      `c r^T` of two learned vectors ("row and col", O(H) parameters); the
      paper found it the fastest to train on length-50 recall.
    - `"gated"`: the highway / coupled-gate form
      `g = sigmoid(W_A * A_{t-1} + W_h * h_t h_t^T)`,
      `A_t = g * A_{t-1} + (1 - g) * h_t h_t^T` (no `W_AH`).

    Initialisation (the paper's appendix): `A_0 = 0`; `W_A ~ N(0.9, 0.1)`,
    `W_h ~ N(0.5, 0.1)`, `W_AH ~ N(0, 0.1)`; "the rest of the network
    parameters" `N(0, 0.1)`: `W_C`, `W_D`, the router's `w` and the biases
    `b_C`, `b_D`; layer-norm gain 1, bias 0. `decay_initializer` replaces
    the draw of `W_A`.

    Decisions where the paper is ambiguous (and why):
    - Layer normalisation "right after generating e" is applied to the
      reader's pre-activation, inside its tanh, so `e_t` stays in (-1, 1)
      and is both the output and what eq. 2 and eq. 7 see at the next step
      (`layer_norm=False` removes it). Normalising after the tanh (the
      other reading) rescales a bounded vector to unit variance at every
      step; at the appendix's initialisation that made the recurrence's
      gradients explode (docs/guides/associative-memory.md, "Design
      notes").
    - Eq. 2 and eq. 7 are written without biases; the cell has biases `b_C`,
      `b_D`, drawn like the other parameters from `N(0, 0.1)`. Zero biases
      would make the all-zero state a fixed point for zero input (pre-padding
      without a mask, blank steps). Layer normalisation of the all-zero
      pre-activation has a gain of `1 / sqrt(epsilon)`, about 300, so the
      gradient through a run of such steps grows by that factor per step
      until it overflows. Random biases move the state off that point at
      the first step (`tests/cells/test_wei_net_cell.py` checks finite
      gradients after a long run of zero inputs).
    - Each memory `k` has its own update weights `W_A^k, W_h^k, W_AH^k`:
      with shared weights and `A_0 = 0` all K memories would stay identical.
      Eq. 5 does not involve the router, so every memory is updated every
      step; the router weights the read (eq. 6 and the means of eq. 7).
    - `h_t` multiplies the memory from the left (`m_j = sum_i h_i A_ij`) as
      eq. 6 is written; eq. 3 uses the memories after this step's update.
    - The "row- and column-wise mean of the weighted average of {A}" of
      eq. 7 is taken of the router-weighted memory `Abar` of eq. 6.
    - The router's previous weights start uniform, `a_0 = 1/K`. The state
      holds `a_{t-1} - 1/K`, so that the all-zero state is the initial one
      (`keras.layers.RNN.reset_state` sets every state to zero). With
      `router=False` the memories are averaged with fixed weights 1/K (for
      `K = 1`, the paper's single-memory WeiNet of Table 1).
    - For `"row_col"`, `c` and `r` are initialised so that `c_i r_j` has
      the mean and spread of the full-matrix initialisation (see
      `_factor_initializer`).
    - `"gated"` has no bias (the paper writes none) and uses the
      `W_A`, `W_h` initialisation above.
    - Numerical safeguard (not in the paper): eq. 5 with `f_U` = identity
      can grow geometrically wherever `|W_A + W_AH h_i h_j| > 1`, so the
      memory is clipped to `[-memory_clip, memory_clip]` after each update.
      The bound is far above the memory's working range (about
      `W_h / (1 - W_A) = 5` at initialisation), so it only acts where the
      plain formula would overflow on long sequences; `memory_clip=None`
      gives the plain formula.

    Args:
        units: positive int, `H`, size of `h`, `e` and of each memory side.
        num_memories: positive int, `K`, the number of memories.
        update: memory update rule, one of "elementwise", "row_col", "gated".
        router: whether to use the router of eq. 3-4 (learned attention over
            the K memories); False weights them equally.
        layer_norm: whether to layer-normalise the reader's pre-activation.
        update_activation: `f_U` of eq. 5, "linear" (the paper's choice) or
            "tanh".
        memory_clip: positive float or None, the safeguard bound on `|A|`.
        decay_initializer: initialiser of the decay weights `W_A` of eq. 5
            (any `keras.initializers.get` value). None (the default) is the
            appendix's `W_A ~ N(0.9, 0.1)` (for `"row_col"`, its factor form,
            see `_factor_initializer`). With `"elementwise"` and `"gated"`
            it draws `decay_weight` (`[K, units, units]`); with `"row_col"`
            each of the factors `decay_col`, `decay_row` (`[K, units]`, one
            independent draw each), so `W_A = c r^T` has, to first order,
            mean `m` and spread `s` with `RandomNormal(mean=sqrt(m),
            stddev=s / sqrt(2 m))`. A narrower start than the appendix's
            keeps the memory's scale down on long sequences
            (docs/papers/weinet.md, "Why length 50 fails").
        kernel_initializer: initialiser of `W_C`'s input block (`kernel`,
            `[input_dim, units]`), of its recurrent blocks
            (`recurrent_kernel`, `[2 * units, units]`, rows for `e_{t-1}`
            then `h_{t-1}`) and of the reader (`reader_kernel`,
            `[5 * units, units]`, rows for `e_{t-1}, Abar^c, Abar^r, m_t,
            h_t`). Default `N(0, 0.1)` (appendix).
        router_initializer: initialiser of the router's `w` (`[K]`).
        bias_initializer: initialiser of `b_C` and `b_D`, default
            `N(0, 0.1)` (appendix; see above).
        kernel_regularizer: regularizer of the `kernel` group (see below).
        recurrent_regularizer: regularizer of the `recurrent` group.
        bias_regularizer: regularizer of the `bias` group.
        kernel_constraint: constraint of the `kernel` group.
        recurrent_constraint: constraint of the `recurrent` group.
        bias_constraint: constraint of the `bias` group.
        dropout: float in [0, 1), fraction of the inputs to drop (one mask
            per sequence, as in `keras.layers.LSTMCell`).
        recurrent_dropout: float in [0, 1), fraction of the recurrent
            vector to drop (one mask per sequence; see below).
        seed: random seed for dropout.
        **kwargs: base `Layer` arguments (`name`, `dtype`, ...).

    Dropout and regularization: as in `keras.layers.LSTMCell` (see `BaseCell`).
    Groups: kernel = `W_C`'s input block and the reader `W_D`; recurrent =
    `W_C`'s recurrent blocks, `W_A`, `W_h`, `W_AH` and the router's `w`; bias =
    `b_C`, `b_D`; the layer norm takes none. Recurrent dropout drops `e_{t-1}`
    and `h_{t-1}` in eq. 2 (the one `[batch, units]` mask `keras.layers.RNN`
    draws, for both).

    Call arguments:
        inputs: `[batch, input_dim]`, one time step `s_t`.
        states: `[h, e, A]` (plus `a` with `router=True`): `h`, `e`
            `[batch, units]`; the memories `A` flattened to
            `[batch, K * units * units]` (row-major `A[k, i, j]`); `a`
            `[batch, K]`, the router's previous weights minus `1/K`.
        training: whether dropout is applied.

    State:
        `state_size = [units, units, K * units * units]` (`+ [K]` with the
        router); `output_size = units` (the output is `e_t`).

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its
        outputs from that step on may become non-finite (a saturated gate
        can absorb an inf), its earlier outputs and the other samples' do
        not change.

    Example:

    ```python
    model = keras.Sequential([
        keras.Input((None, 37)),
        keras.layers.RNN(keras_rda.WeiNetCell(50)),
        keras.layers.Dense(10),
    ])
    ```

    Reference:
        Zhang & Zhou, "Learning to update Auto-associative Memory in
        Recurrent Neural Networks for Improving Sequence Memorization":
        eq. 1-7, Figure 3 (update variants), appendix (initialisation).
    """

    config_arguments = (
        "num_memories",
        "update",
        "router",
        "layer_norm",
        ("update_activation", "update_activation_name"),
        "memory_clip",
        "decay_initializer",
        "kernel_initializer",
        "router_initializer",
        "bias_initializer",
    )

    def __init__(
        self,
        units,
        num_memories=1,
        update="elementwise",
        router=False,
        layer_norm=True,
        update_activation="linear",
        memory_clip=100.0,
        decay_initializer=None,
        kernel_initializer=None,
        router_initializer=None,
        bias_initializer=None,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(units, **self.base_cell_arguments(locals()), **kwargs)
        self.num_memories = validation.positive_int("num_memories", num_memories)
        self.update = validation.one_of("update", update, UPDATES)
        self.router = validation.boolean("router", router)
        self.layer_norm = validation.boolean("layer_norm", layer_norm)
        self.update_activation_name = update_activation
        self.update_activation = aops.get_activation(
            update_activation, "update_activation", ("linear", "tanh")
        )
        if memory_clip is not None:
            memory_clip = validation.in_range(
                "memory_clip", memory_clip, 0.0, float("inf"), low_inclusive=False
            )
        self.memory_clip = memory_clip
        default = _matrix_initializer(0.0, 0.1)
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer or default
        )
        self.router_initializer = validation.initializer(
            "router_initializer", router_initializer or default
        )
        self.bias_initializer = validation.initializer(
            "bias_initializer", bias_initializer or default
        )
        # None keeps the appendix's draw, made in `build` as before the
        # argument existed (the same weights under `set_random_seed`).
        self.decay_initializer = None
        if decay_initializer is not None:
            self.decay_initializer = validation.initializer(
                "decay_initializer", decay_initializer
            )
        k, h = self.num_memories, self.units
        self.state_size = [h, h, k * h * h] + ([k] if router else [])
        self.output_size = h

    # ----------------------------------------------------------------- build
    def build(self, input_shape):
        input_dim = self.step_input_dim(input_shape)
        h, k = self.units, self.num_memories
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, h), self.kernel_initializer, "kernel"
        )
        self.recurrent_kernel = self.add_cell_weight(
            "recurrent_kernel", (2 * h, h), self.kernel_initializer, "recurrent"
        )
        self.bias = self.add_cell_weight("bias", (h,), self.bias_initializer, "bias")
        self.reader_kernel = self.add_cell_weight(
            "reader_kernel", (5 * h, h), self.kernel_initializer, "kernel"
        )
        self.reader_bias = self.add_cell_weight(
            "reader_bias", (h,), self.bias_initializer, "bias"
        )
        if self.layer_norm:
            self.ln_gamma, self.ln_beta = aops.add_layer_norm_weights(
                self, "reader_layer_norm", h
            )
        terms = [("decay", _DECAY_INIT), ("write", _WRITE_INIT)]
        if self.update != "gated":
            terms.append(("cross", _CROSS_INIT))
        self.memory_weights = {}
        for term, (mean, stddev) in terms:
            given = self.decay_initializer if term == "decay" else None
            if self.update == "row_col":
                init = _factor_initializer(mean, stddev)
                self.memory_weights[term] = tuple(
                    self.add_cell_weight(
                        f"{term}_{side}",
                        (k, h),
                        init if given is None else given,
                        "recurrent",
                    )
                    for side in ("col", "row")
                )
            else:
                init = _matrix_initializer(mean, stddev) if given is None else given
                self.memory_weights[term] = self.add_cell_weight(
                    f"{term}_weight", (k, h, h), init, "recurrent"
                )
        if self.router:
            self.router_weight = self.add_cell_weight(
                "router_weight", (k,), self.router_initializer, "recurrent"
            )
        self.built = True

    # ------------------------------------------------------------ equations
    def _memory_weight(self, term):
        """`W_term` as `[K, units, units]` (outer product for "row_col")."""
        weight = self.memory_weights[term]
        if self.update == "row_col":
            col, row = weight
            return ops.expand_dims(col, -1) * ops.expand_dims(row, -2)
        return weight

    def _controller(self, inputs, e_prev, h_prev, training=False):
        """Eq. 2: `h_t = tanh(W_C [s_t; e_{t-1}; h_{t-1}] + b_C)`."""
        recurrent = ops.concatenate(
            [
                self.drop_recurrent(e_prev, training),
                self.drop_recurrent(h_prev, training),
            ],
            axis=-1,
        )
        return ops.tanh(
            ops.matmul(self.drop_input(inputs, training), self.kernel)
            + ops.matmul(recurrent, self.recurrent_kernel)
            + self.bias
        )

    def _update_memories(self, memories, h):
        """Eq. 5 (or a Figure 3 variant): `[batch, K, H, H]` -> same."""
        hh = ops.expand_dims(aops.outer(h), 1)
        w_a = self._memory_weight("decay")
        w_h = self._memory_weight("write")
        if self.update == "gated":
            gate = ops.sigmoid(w_a * memories + w_h * hh)
            new = gate * memories + (1.0 - gate) * hh
        else:
            w_ah = self._memory_weight("cross")
            new = w_a * memories + w_h * hh + w_ah * memories * hh
        new = self.update_activation(new)
        if self.memory_clip is not None:
            new = ops.clip(new, -self.memory_clip, self.memory_clip)
        return new

    def _route(self, memories, h, a_prev):
        """Eq. 3-4: attention over the K memories, `[batch, K]`."""
        if not self.router:
            return None
        scores = aops.quadratic_form(h, memories) + self.router_weight * a_prev
        return ops.softmax(scores, axis=-1)

    def _combine(self, memories, attention):
        """`Abar = sum_k a^k A^k` (uniform 1/K without the router)."""
        if attention is None:
            return ops.mean(memories, axis=1)
        return ops.einsum("bk,bkij->bij", attention, memories)

    def _reader(self, e_prev, memory, h):
        """Eq. 6-7: retrieval `m_t` and the reader's output `e_t`."""
        m = aops.vector_times_memory(h, memory)
        col_means, row_means = aops.row_and_column_means(memory)
        read = ops.concatenate([e_prev, col_means, row_means, m, h], axis=-1)
        pre = ops.matmul(read, self.reader_kernel) + self.reader_bias
        if self.layer_norm:
            pre = aops.layer_norm(pre, self.ln_gamma, self.ln_beta)
        return ops.tanh(pre)

    # ------------------------------------------------------------------ call
    def call(self, inputs, states, training=False):
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        h_prev, e_prev = states[0], states[1]
        memories = aops.flat_to_matrices(states[2], self.num_memories, self.units)
        h = self._controller(inputs, e_prev, h_prev, training)
        memories = self._update_memories(memories, h)
        uniform = 1.0 / self.num_memories
        a_prev = states[3] + uniform if self.router else None
        attention = self._route(memories, h, a_prev)
        e = self._reader(e_prev, self._combine(memories, attention), h)
        new_states = [h, e, aops.matrices_to_flat(memories)]
        if self.router:
            new_states.append(attention - uniform)
        return e, new_states
