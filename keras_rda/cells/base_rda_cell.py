"""Base class of the RWA and RDA cells: the shared weights and step."""

import math

from keras import ops

from keras_rda.cells.base_attention_cell import BaseAttentionCell
from keras_rda.cells.base_attention_cell import cast_like
from keras_rda.cells.base_attention_cell import per_block_initializer
from keras_rda.ops import attention_average
from keras_rda.utils import keras_compat
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments
from keras_rda.utils.initializers import independent

# How the gate weight matrices are drawn (see `BaseRDACell`).
KERNEL_INIT_SCHEMES = ("paper", "per_block")


class BaseRDACell(BaseAttentionCell):
    """One step of a recurrent weighted average, with or without discount.

    Not used directly: `RWACell` (no discount) and `RDACell` (discounted)
    are the public units. This class holds their common weights, the step
    (split so that sequence layers can project every time step's input in
    one matmul before the recurrence), the initial state and the config.

    Weight layout, with `k = 4` blocks when `discount=True` (RDA), 3 otherwise
    (RWA):

    - `kernel`: `[input_dim, k * units]`, blocks `u, g, a, gamma`.
    - `recurrent_kernel`: `[units, (k - 1) * units]`, blocks `g, a, gamma`.
    - `bias`: `[k * units]`, blocks `u, g, a, gamma`.
    - `initial_state`: `[units]` (`s0`), only with `learn_initial_state`.

    Initialisation (`kernel_init_scheme`): `"paper"` (default) draws, as
    both papers do (RWA paper section 3.1, RDA paper section 6.1), each gate
    matrix `W_g`, `W_a`(, `W_gamma`) as one `[input_dim + units, units]`
    matrix over `[x_t, h_{t-1}]` from `kernel_initializer` (Glorot: fan-in
    `input_dim + units`) and `W_u` as `[input_dim, units]`, then splits the
    rows into `kernel` and `recurrent_kernel`; `recurrent_initializer` is
    unused. `"per_block"` (this package's earlier scheme) draws each
    `[input_dim, units]` input block from `kernel_initializer` and each
    `[units, units]` recurrent block from `recurrent_initializer`
    separately, which makes the input blocks about 1.4x wider at input dim
    2 and 250 units.

    State: `[h, n, d, m]`, each `[batch, units]`: the hidden state `h_t`, the
    numerator and denominator of the average scaled by `exp(-m_t)`, and the
    running maximum `m_t` of the log-weights (see
    `keras_rda.ops.attention_average`). The unscaled sums are
    `n_t = n * exp(m)`, `d_t = d * exp(m)`. An all-zero state is the initial
    state: where nothing has been attended (`d = 0`, also with ReLU
    attention after steps whose weights were all 0) the average is `s0` and
    `h = f_h(s0)` when `s0` is learned, else 0 (`read_hidden_state`).
    So `keras.layers.RNN(cell, stateful=True).reset_state()`, which zeroes
    the state, returns to `h_0`.

    Regularizers and constraints (`BaseCell`): one each for the weight
    groups `kernel`, `recurrent` (`recurrent_kernel`), `bias` and
    `initial_state`.
    """

    weight_groups = ("kernel", "recurrent", "bias", "initial_state")
    config_arguments = (
        "learn_initial_state",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "kernel_init_scheme",
        "bias_initializer",
        "initial_state_initializer",
    )

    def __init__(
        self,
        units,
        *,
        discount,
        attention_activation,
        hidden_activation,
        output_activation,
        learn_initial_state,
        use_bias=True,
        unit_discount_bias=False,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="glorot_uniform",
        kernel_init_scheme="paper",
        bias_initializer="zeros",
        initial_state_initializer="zeros",
        **kwargs,
    ):
        unit_discount_bias = bool(unit_discount_bias) and bool(discount)
        arguments = constructor_arguments(
            locals(), ["discount", "learn_initial_state", "kernel_init_scheme"]
        )
        super().__init__(**arguments, **kwargs)
        self.discount = bool(discount)
        self.learn_initial_state = bool(learn_initial_state)
        self.kernel_init_scheme = validation.one_of(
            "kernel_init_scheme", kernel_init_scheme, KERNEL_INIT_SCHEMES
        )
        self.state_size = [self.units] * 4

    # ----------------------------------------------------------------- weights

    @property
    def num_blocks(self):
        """`k`: 4 blocks (u, g, a, gamma) with a discount, 3 without."""
        return 4 if self.discount else 3

    def _paper_kernels(self, input_dim):
        """The papers' draw: `W_u` `[input_dim, units]`, and each gate's
        `W_g`, `W_a`(, `W_gamma`) as one `[input_dim + units, units]` matrix
        over `[x_t, h_{t-1}]` (fan-in `input_dim + units`), all from
        `kernel_initializer`, each matrix its own draw (`independent`),
        split by rows into `kernel` and `recurrent_kernel`.

        Returns:
            `(kernel_init, recurrent_init)`: initializers returning those
            parts of one draw.
        """
        units = self.units
        draw = {}

        def matrices(dtype):
            if dtype not in draw:
                joint = [
                    independent(self.kernel_initializer, f"gate_{block}")(
                        (input_dim + units, units), dtype=dtype
                    )
                    for block in range(1, self.num_blocks)
                ]
                features = independent(self.kernel_initializer, "features")(
                    (input_dim, units), dtype=dtype
                )
                kernel = ops.concatenate(
                    [features] + [w[:input_dim] for w in joint], axis=1
                )
                recurrent = ops.concatenate([w[input_dim:] for w in joint], axis=1)
                draw[dtype] = (kernel, recurrent)
            return draw[dtype]

        def kernel_init(shape, dtype=None):
            return matrices(dtype)[0]

        def recurrent_init(shape, dtype=None):
            return matrices(dtype)[1]

        return kernel_init, recurrent_init

    def build(self, input_shape):
        input_dim = validation.step_input_dim(self, input_shape)
        k = self.num_blocks
        if self.kernel_init_scheme == "paper":
            kernel_init, recurrent_init = self._paper_kernels(input_dim)
        else:
            kernel_init = per_block_initializer(
                self.kernel_initializer, input_dim, self.units, k, "kernel"
            )
            recurrent_init = per_block_initializer(
                self.recurrent_initializer, self.units, self.units, k - 1, "recurrent"
            )
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, k * self.units), kernel_init, "kernel"
        )
        self.recurrent_kernel = self.add_cell_weight(
            "recurrent_kernel",
            (self.units, (k - 1) * self.units),
            recurrent_init,
            "recurrent",
        )
        self.bias = self.build_bias()
        self.initial_state = None
        if self.learn_initial_state:
            self.initial_state = self.add_cell_weight(
                "initial_state",
                (self.units,),
                self.initial_state_initializer,
                "initial_state",
            )
        self.built = True

    # ---------------------------------------------------------------- the step

    def recurrent_step(self, projected, states, training=False):
        """The part of a step that depends on `h_{t-1}`.

        Args:
            projected: `[batch, k * units]`, `project_inputs(x_t)`.
            states: `[h, n, d, m]`, each `[batch, units]`.
            training: whether to apply recurrent dropout.

        Returns:
            `(o_t, [h_t, n_t, d_t, m_t])`, each in the dtype it came in.
        """
        h_prev, numerator, denominator, log_scale = states
        units = self.units
        h_prev = self.read_hidden_state(h_prev, denominator)
        h_in = self.drop_recurrent(h_prev, training)

        # RDA paper section 5 / RWA paper eq. 7:
        #   u_t = W_u x_t + b_u,  [g, a, gamma] = W [x_t, h_{t-1}] + b.
        u, gate_inputs = ops.split(projected, [units], axis=-1)
        gates = gate_inputs + ops.matmul(h_in, self.recurrent_kernel)
        acc = self.accumulation_dtype
        if self.discount and self.attention_activation == "sigmoid":
            # log sigmoid of [a, gamma] in one op (the default RDA).
            g, attention_gates = ops.split(gates, [units], axis=-1)
            log_a, log_gamma = ops.split(
                ops.log_sigmoid(ops.cast(attention_gates, acc)), 2, axis=-1
            )
            positive = None
        else:
            g, a_logits, *gamma_logits = ops.split(gates, self.num_blocks - 1, axis=-1)
            log_a, positive = attention_average.log_attention(
                ops.cast(a_logits, acc), self.attention_activation
            )
            # gamma_t = sigmoid(W_gamma [x_t, h_{t-1}] + b_gamma)
            log_gamma = (
                ops.log_sigmoid(ops.cast(gamma_logits[0], acc))
                if self.discount
                else None
            )
        z = ops.cast(u * keras_compat.tanh(g), acc)  # z_t = u_t * tanh(g_t)

        new_n, new_d, new_m = self.update_sums(
            [numerator, denominator, log_scale], z, log_a, log_gamma, positive
        )
        # Only ReLU attention leaves the average empty after a step.
        empty = None if positive is None else self.empty_average(acc)
        h = attention_average.apply_activation(
            attention_average.weighted_average(new_n, new_d, empty),
            self.hidden_activation,
        )
        output = attention_average.apply_activation(h, self.output_activation)
        new_states = cast_like([h, new_n, new_d, new_m], [h_prev, *states[1:]])
        return ops.cast(output, self.compute_dtype), new_states

    def call(self, inputs, states, training=False):
        inputs = self.drop_input(inputs, training)
        return self.recurrent_step(self.project_inputs(inputs), states, training)

    def empty_average(self, dtype):
        """The average before anything is attended: `s0` `[units]` when
        learned, else None (0)."""
        if self.initial_state is None:
            return None
        return ops.cast(self.initial_state, dtype)

    def read_hidden_state(self, hidden, denominator):
        """`h_{t-1}` as the step reads it from the state `[h, n, d, m]`.

        An all-zero state is the initial state, as `keras.layers.RNN`'s
        `reset_state()` and zero-filled `initial_state`s assume: where
        nothing has been attended (`d = 0`) the hidden state is
        `h_0 = f_h(s0)`. Without a learned `s0` that is 0, the stored value.

        Args:
            hidden: `[batch, units]`, the stored `h`.
            denominator: `[batch, units]`, the stored `d`.

        Returns:
            `[batch, units]`, in `hidden`'s dtype.
        """
        s0 = self.empty_average(hidden.dtype)
        if s0 is None:
            return hidden
        h0 = attention_average.apply_activation(s0, self.hidden_activation)
        return ops.where(attention_average.attended(denominator), hidden, h0)

    def initial_hidden_state(self, batch_size, dtype=None):
        """`h_0`: `f_h(s0)` when learned (RWA paper eq. 7), else zeros."""
        dtype = dtype or self.compute_dtype
        zeros = ops.zeros((batch_size, self.units), dtype=dtype)
        return self.read_hidden_state(zeros, zeros)

    def get_initial_state(self, batch_size=None):
        """`[h_0, n_0 = 0, d_0 = 0, m_0 = 0]`, each `[batch, units]`.

        One tensor per state: a stateful RNN makes a variable of each, and
        on PyTorch a variable shares its initial tensor's storage.
        """
        n, d, m = (
            ops.zeros((batch_size, self.units), dtype=self.compute_dtype)
            for _ in range(3)
        )
        return [self.initial_hidden_state(batch_size), n, d, m]


# The RWA paper's `s0 ~ N(0, sigma^2 = 3)` (section 3.1).
RWA_INITIAL_STATE_STDDEV = math.sqrt(3.0)
