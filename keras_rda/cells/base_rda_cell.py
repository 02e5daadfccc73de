"""The base of the RWA / RDA family: `RWACell`, `RDACell`, `ParallelRDACell`.

The three cells compute the same quantities from a projection of their input
(RDA paper, section 5; RWA paper, eq. 2-7):

    [u, g, a, gamma] = W x_t + b   (+ R h_{t-1} for g, a, gamma)
    z_t = u_t * tanh(g_t),   a_t = f_a(.),   gamma_t = sigmoid(.)
    n_t = n_{t-1} * gamma_t + z_t * a_t,   d_t = d_{t-1} * gamma_t + a_t
    h_t = f_h(n_t / d_t),    o_t = f_o(h_t)

and differ in two class attributes, which `BaseRDACell` reads:

- `discount`: the RDA's `gamma_t` (`RDACell`, `ParallelRDACell`); without
  it (`RWACell`) `gamma_t = 1` and there is no gamma block.
- `gates_read_hidden`: whether `g, a, gamma` read `[x_t, h_{t-1}]` (`RWACell`,
  `RDACell`: a `recurrent_kernel`, `h` in the state, an optional learned
  `s0`) or only `x_t` (`ParallelRDACell`, whose running average is then a
  linear recurrence that `keras_rda.ParallelRDA` computes by a scan).
"""

import math

from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import attention_average
from keras_rda.utils import keras_compat
from keras_rda.utils import validation
from keras_rda.utils.initializers import independent

# The unit computes in these dtypes; under any other compute dtype (float16,
# bfloat16 under mixed precision) it computes in float32 (see `BaseRDACell`,
# Numerics) and returns outputs in the compute dtype.
ACCUMULATION_DTYPES = ("float32", "float64")

# The RWA paper's `s0 ~ N(0, sigma^2 = 3)` (section 3.1).
RWA_INITIAL_STATE_STDDEV = math.sqrt(3.0)


def lstm_argument_counterparts(discount=True, variant=False):
    """What a unit of this family takes in place of `keras.layers.LSTM`'s
    arguments that it refuses (`BaseCell.lstm_counterparts`).

    Args:
        discount: whether the unit has the RDA's discount (not the RWA).
        variant: whether it takes `variant` (`RDA`, `RDACell`).

    Returns:
        `{lstm_argument: the sentence the error ends with}`.
    """
    kernel = (
        "Use `use_kernel` of the `RDA`, `RWA` and `ParallelRDA` layers (the fused "
        "GPU kernel, chosen as `use_cudnn` chooses cuDNN)."
    )
    recurrent_initializer = (
        "Use `kernel_initializer`: as in the papers it draws each gate's matrix "
        "over all that the gate reads (`[x_t, h_{t-1}]`, whose rows for "
        "`h_{t-1}` are the `recurrent_kernel`) as one matrix."
    )
    if not discount:
        return {
            "activation": "The RWA's activations are the paper's and fixed (exp "
            "attention, tanh on the average); `keras_rda.RDA` takes "
            "`hidden_activation`, `output_activation` and `variant`.",
            "recurrent_activation": "The RWA's attention is exp, fixed; "
            "`keras_rda.RDA` takes `attention_activation`.",
            "unit_forget_bias": "The RWA has no forget gate and no discount (it "
            "averages the whole past); the RDA's discount, which forgets, takes "
            "`unit_discount_bias`.",
            "use_cudnn": kernel,
            "recurrent_initializer": recurrent_initializer,
        }
    activation = "Use `hidden_activation` (f_h) and `output_activation` (f_o)"
    if variant:
        activation += ', or `variant` ("sigmoid-id", the default, or "exp-tanh")'
    return {
        "activation": activation + ".",
        "recurrent_activation": 'Use `attention_activation` (f_a: "sigmoid", the '
        'default, "exp", "softplus" or "relu"); the discount gate is a '
        "sigmoid.",
        "unit_forget_bias": "Use `unit_discount_bias` (True by default: the "
        "discount gate's bias starts at 1, as the forget gate's does), or "
        "`discount_bias_initializer`.",
        "use_cudnn": kernel,
        "recurrent_initializer": recurrent_initializer,
    }


def cast_like(values, like):
    """Each of `values` cast to the dtype of the tensor at its place in
    `like` (a step's new states in the dtypes its states came in)."""
    return [ops.cast(value, other.dtype) for value, other in zip(values, like)]


class BaseRDACell(BaseCell):
    """One step of a recurrent (discounted) weighted average (not public).

    `RWACell`, `RDACell` and `ParallelRDACell` are the public units; each
    sets `discount` / `gates_read_hidden` (see the module docstring) and
    lists its arguments. This class holds the rest: the three activations,
    the weights, the step (split so that sequence layers can project every
    time step's input in one matmul before the recurrence), the initial
    state and, through `BaseCell`, the config.

    Weight layout, with `k = 4` blocks with a discount (RDA), 3 without (RWA):

    - `kernel`: `[input_dim, k * units]`, blocks `u, g, a, gamma`.
    - `recurrent_kernel`: `[units, (k - 1) * units]`, blocks `g, a, gamma`,
      where the gates read `h_{t-1}`.
    - `bias`: `[k * units]`, blocks `u, g, a, gamma` (with `use_bias`); with
      `unit_discount_bias` the gamma block starts at 1 (RDA paper, section
      6.1, like the forget gate of Gers et al. 2000), the others from
      `bias_initializer`.
    - `initial_state`: `[units]` (`s0`), only with `learn_initial_state`.

    Initialisation, as both papers do (RWA paper section 3.1, RDA paper
    section 6.1): each gate matrix `W_g`, `W_a`(, `W_gamma`) is one matrix
    over what the gate reads, `[input_dim + units, units]` over
    `[x_t, h_{t-1}]` (`[input_dim, units]` where the gates read only
    `x_t`), drawn from `kernel_initializer` (Glorot: fan-in
    `input_dim + units`), and `W_u` is `[input_dim, units]`; the rows of
    each gate matrix are then split into `kernel` and `recurrent_kernel`.

    State: `[h, n, d, m]` (`[n, d, m]` where the gates read only `x_t`),
    each `[batch, units]`: the hidden state `h_t`, the numerator and
    denominator of the average scaled by `exp(-m_t)`, and the running
    maximum `m_t` of the log-weights (see `keras_rda.ops.attention_average`).
    The unscaled sums are `n_t = n * exp(m)`, `d_t = d * exp(m)`. An
    all-zero state is the initial state: where nothing has been attended
    (`d = 0`, also with ReLU attention after steps whose weights were all 0)
    the average is `s0` and `h = f_h(s0)` when `s0` is learned, else 0
    (`read_hidden_state`). So `keras.layers.RNN(cell, stateful=True)
    .reset_state()`, which zeroes the state, returns to `h_0`.

    Numerics: the unit computes in `accumulation_dtype`, the compute dtype
    or float32 under mixed precision, from the input projection
    (`project_inputs`) to `h_t`; only `o_t` is in the compute dtype. The
    weights are read in their own dtype (`autocast_weights = False`), not
    cast to float16: the gradients of the attention and discount logits sum
    over every later step and grow with the inputs' scale, and in float16
    they overflowed (inf or NaN gradients for inputs of 1e4 already at
    `T = 1`), which Keras's loss scaling can only skip.

    Args:
        units: positive int, the size of the average and the output.
        attention_activation: `f_a`, one of
            `attention_average.ATTENTION_ACTIVATIONS`.
        hidden_activation: `f_h`, `"linear"` or `"tanh"`.
        output_activation: `f_o`, `"linear"` or `"tanh"`.
        use_bias: whether there is a `bias`.
        unit_discount_bias: whether the gamma bias block starts at 1
            (ignored without a discount, and where a subclass passes a
            `discount_bias_initializer`, which sets that block instead).
        learn_initial_state: whether `s0` is a weight (only where the gates
            read `h_{t-1}`).
        **kwargs: `BaseCell` arguments (the `*_initializer`s the subclass
            lists in `config_arguments`, regularizers, constraints, dropout,
            seed) and those of `keras.layers.Layer`.
    """

    #: Whether the past is discounted by `gamma_t` (a fourth gate block).
    discount = True
    #: Whether the gates read `h_{t-1}`: a subclass without it has no
    #: `recurrent` and `initial_state` weight groups either.
    gates_read_hidden = True
    weight_groups = ("kernel", "recurrent", "bias", "initial_state")
    lstm_counterparts = lstm_argument_counterparts()
    # The unit computes in `accumulation_dtype`: its weights are read in
    # their own dtype (float32 under mixed precision), not autocast.
    autocast_weights = False
    #: The config of a cell whose gates read `h_{t-1}` (`RWACell`; `RDACell`
    #: adds its activations). The initializers are made in this order.
    config_arguments = (
        "learn_initial_state",
        "use_bias",
        "kernel_initializer",
        "bias_initializer",
        "initial_state_initializer",
    )

    def __init__(
        self,
        units,
        *,
        attention_activation,
        hidden_activation,
        output_activation,
        use_bias=True,
        unit_discount_bias=False,
        learn_initial_state=False,
        **kwargs,
    ):
        super().__init__(units, **kwargs)
        self.attention_activation = validation.one_of(
            "attention_activation",
            attention_activation,
            attention_average.ATTENTION_ACTIVATIONS,
        )
        self.hidden_activation = validation.one_of(
            "hidden_activation", hidden_activation, attention_average.HIDDEN_ACTIVATIONS
        )
        self.output_activation = validation.one_of(
            "output_activation", output_activation, attention_average.OUTPUT_ACTIVATIONS
        )
        self.use_bias = validation.boolean("use_bias", use_bias)
        self.unit_discount_bias = (
            validation.boolean("unit_discount_bias", unit_discount_bias)
            and self.discount
        )
        self.learn_initial_state = validation.boolean(
            "learn_initial_state", learn_initial_state
        )
        self.state_size = [self.units] * (4 if self.gates_read_hidden else 3)
        self.output_size = self.units

    @property
    def num_blocks(self):
        """`k`: 4 blocks (u, g, a, gamma) with a discount, 3 without."""
        return 4 if self.discount else 3

    @property
    def accumulation_dtype(self):
        """The dtype the unit computes in, from the input projection to
        `h_t`: the compute dtype, or float32 under mixed precision."""
        dtype = self.compute_dtype
        return dtype if dtype in ACCUMULATION_DTYPES else "float32"

    # ----------------------------------------------------------------- weights

    def _kernel_initializers(self, input_dim):
        """The papers' draw: `W_u` `[input_dim, units]`, and each gate's
        `W_g`, `W_a`(, `W_gamma`) as one matrix over what the gates read,
        `[input_dim + units, units]` over `[x_t, h_{t-1}]` (fan-in
        `input_dim + units`) or `[input_dim, units]` over `x_t` alone, all
        from `kernel_initializer`, each matrix its own draw (`independent`),
        split by rows into `kernel` and `recurrent_kernel`.

        Args:
            input_dim: the feature size of `x_t`.

        Returns:
            `(kernel_init, recurrent_init)`: initializers returning those
            parts of one draw (`recurrent_init` is None where the gates read
            only `x_t`).
        """
        units = self.units
        gate_rows = input_dim + (units if self.gates_read_hidden else 0)
        draw = {}

        def matrices(dtype):
            if dtype not in draw:
                gates = [
                    independent(self.kernel_initializer, f"gate_{block}")(
                        (gate_rows, units), dtype=dtype
                    )
                    for block in range(1, self.num_blocks)
                ]
                features = independent(self.kernel_initializer, "features")(
                    (input_dim, units), dtype=dtype
                )
                kernel = ops.concatenate(
                    [features] + [w[:input_dim] for w in gates], axis=1
                )
                recurrent = [w[input_dim:] for w in gates]
                draw[dtype] = (kernel, recurrent)
            return draw[dtype]

        def kernel_init(shape, dtype=None):
            return matrices(dtype)[0]

        def recurrent_init(shape, dtype=None):
            return ops.concatenate(matrices(dtype)[1], axis=1)

        return kernel_init, recurrent_init if self.gates_read_hidden else None

    def build_bias(self):
        """`bias` `[num_blocks * units]` (None without `use_bias`): every block
        from `bias_initializer`, except the discount gate's: from
        `discount_bias_initializer` where one is given, else 1 with
        `unit_discount_bias` (RDA paper, section 6.1)."""
        if not self.use_bias:
            return None
        base, units, num_blocks = self.bias_initializer, self.units, self.num_blocks
        discount_one = self.unit_discount_bias
        discount_init = getattr(self, "discount_bias_initializer", None)

        def initializer(shape, dtype=None):
            del shape
            blocks = [base((units,), dtype=dtype) for _ in range(num_blocks)]
            if discount_init is not None:
                blocks[-1] = discount_init((units,), dtype=dtype)
            elif discount_one:
                blocks[-1] = ops.ones((units,), dtype=dtype)
            return ops.concatenate(blocks, axis=0)

        return self.add_cell_weight("bias", (num_blocks * units,), initializer, "bias")

    def build(self, input_shape):
        input_dim = self.step_input_dim(input_shape)
        k, units = self.num_blocks, self.units
        kernel_init, recurrent_init = self._kernel_initializers(input_dim)
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, k * units), kernel_init, "kernel"
        )
        if self.gates_read_hidden:
            self.recurrent_kernel = self.add_cell_weight(
                "recurrent_kernel",
                (units, (k - 1) * units),
                recurrent_init,
                "recurrent",
            )
        self.bias = self.build_bias()
        self.initial_state = None
        if self.learn_initial_state:
            self.initial_state = self.add_cell_weight(
                "initial_state",
                (units,),
                self.initial_state_initializer,
                "initial_state",
            )
        self.built = True

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent dropout mask `[batch, units]`, in the accumulation
        dtype, where the step and the fused recurrence read `h_{t-1}`.

        `keras.layers.RNN` makes the mask before the loop from the state it
        holds, in the compute dtype (float16 under mixed precision).
        """
        mask = super().get_recurrent_dropout_mask(step_input)
        return None if mask is None else ops.cast(mask, self.accumulation_dtype)

    # ---------------------------------------------------------------- the step

    def project_inputs(self, inputs, add_bias=True):
        """`W [x_t] + b`, all blocks.

        Args:
            inputs: `[..., input_dim]`: one step or a whole sequence
                `[batch, time, input_dim]` (one matmul for all steps).
            add_bias: whether to add `b` (the fused recurrence adds it in
                its loop).

        Returns:
            `[..., num_blocks * units]`, in the accumulation dtype.
        """
        acc = self.accumulation_dtype
        projected = keras_compat.matmul(
            ops.cast(inputs, acc), ops.cast(self.kernel, acc)
        )
        if self.use_bias and add_bias:
            projected = projected + ops.cast(self.bias, acc)
        return projected

    def gate_terms_of(self, u, gates):
        """What the running average takes from the gates, for one step or all.

        Args:
            u: `[..., units]`, `W_u x_t + b_u`.
            gates: `[..., (num_blocks - 1) * units]`, the pre-activations of
                `g, a(, gamma)`.

        Returns:
            `(z, log_a, log_gamma, positive)`, each `[..., units]` in the
            accumulation dtype: the features `z_t = u_t * tanh(g_t)`,
            `log a_t`, `log gamma_t` (None without a discount), and None or
            (ReLU) where `a_t > 0`.
        """
        units, acc = self.units, self.accumulation_dtype
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
            # gamma_t = sigmoid(W_gamma [x_t(, h_{t-1})] + b_gamma)
            log_gamma = (
                ops.log_sigmoid(ops.cast(gamma_logits[0], acc))
                if self.discount
                else None
            )
        z = ops.cast(u * keras_compat.tanh(g), acc)  # z_t = u_t * tanh(g_t)
        return z, log_a, log_gamma, positive

    def update_sums(self, sums, z, log_a, log_gamma=None, positive=None):
        """One step of the scaled sums, in the accumulation dtype.

        Args:
            sums: the stored `[n, d, m]`, each `[batch, units]`, in any dtype.
            z, log_a, log_gamma, positive: `[batch, units]` in the
                accumulation dtype, from `gate_terms_of`.

        Returns:
            `(n_t, d_t, m_t)` in the accumulation dtype (see
            `attention_average.discounted_average_update`).
        """
        acc = self.accumulation_dtype
        numerator, denominator, log_scale = (ops.cast(s, acc) for s in sums)
        return attention_average.discounted_average_update(
            numerator,
            denominator,
            log_scale,
            z,
            log_a,
            log_gamma=log_gamma,
            positive=positive,
        )

    def hidden_from_average(self, average):
        """`h_t = f_h(n_t / d_t)`, in the dtype of `average`."""
        return attention_average.apply_activation(average, self.hidden_activation)

    def output_from_hidden(self, hidden):
        """`o_t = f_o(h_t)`, in the compute dtype."""
        output = attention_average.apply_activation(hidden, self.output_activation)
        return ops.cast(output, self.compute_dtype)

    def projected_step(self, projected, states, training=False):
        """A step from its input projection on: the part that depends on the
        state (the whole step of a sequence layer's loop).

        Args:
            projected: `[batch, k * units]`, `project_inputs(x_t)`.
            states: `[h, n, d, m]` (`[n, d, m]` where the gates read only
                `x_t`), each `[batch, units]`.
            training: whether to apply recurrent dropout.

        Returns:
            `(o_t, new_states)`, each in the dtype it came in.
        """
        u, gates = ops.split(projected, [self.units], axis=-1)
        if self.gates_read_hidden:
            # RDA paper section 5 / RWA paper eq. 7:
            #   u_t = W_u x_t + b_u,  [g, a, gamma] = W [x_t, h_{t-1}] + b.
            hidden, *sums = states
            hidden = self.read_hidden_state(ops.cast(hidden, gates.dtype), sums[1])
            gates = gates + keras_compat.matmul(
                self.drop_recurrent(hidden, training),
                ops.cast(self.recurrent_kernel, gates.dtype),
            )
        else:
            sums = states
        z, log_a, log_gamma, positive = self.gate_terms_of(u, gates)
        new_n, new_d, new_m = self.update_sums(sums, z, log_a, log_gamma, positive)
        # Only ReLU attention leaves the average empty after a step.
        acc = self.accumulation_dtype
        empty = None if positive is None else self.empty_average(acc)
        h = self.hidden_from_average(
            attention_average.weighted_average(new_n, new_d, empty)
        )
        new_states = [new_n, new_d, new_m]
        if self.gates_read_hidden:
            new_states.insert(0, h)
        return self.output_from_hidden(h), cast_like(new_states, states)

    def call(self, inputs, states, training=False):
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        inputs = self.drop_input(inputs, training)
        return self.projected_step(self.project_inputs(inputs), states, training)

    # ------------------------------------------------------- the initial state

    @property
    def empties_to_s0(self):
        """Whether a step can leave the average empty while the empty average
        is a learned `s0`: with ReLU attention every weight `a_t` of a step
        can be exactly 0, and then `h_t = f_h(s0)`.

        The fused recurrence and the kernels take an empty average as 0, so
        the sequence layers run the cell's own step here
        (`keras_rda.layers.base_rda_layer`). After such a step the state
        `[h, n, d, m]` has `d = 0` as the initial state has, but the output
        is `f_o(f_h(s0))`, not the zeros Keras repeats before the first
        real step, so the output is not a function of the states
        (`output_in_states`).
        """
        return self.learn_initial_state and self.attention_activation == "relu"

    @property
    def output_in_states(self):
        """Whether `output_from_states` gives a step's output: unless
        `empties_to_s0`."""
        return not self.empties_to_s0

    def output_from_states(self, states):
        """The output of the step that left `states` (see
        `BaseCell.output_from_states`).

        `o_t = f_o(h_t)`; where `s0` is learned, 0 until something has been
        attended (`d = 0`: the initial state), as Keras's recurrent layers
        give zeros before the first real step.

        Args:
            states: `[h, n, d, m]` (`[n, d, m]` where the gates read only
                `x_t`), each `[batch, units]`.

        Returns:
            `[batch, units]` in the compute dtype, or None where
            `empties_to_s0`.
        """
        if self.empties_to_s0:
            return None
        if self.gates_read_hidden:
            hidden, denominator = states[0], states[2]
        else:
            numerator, denominator = states[0], states[1]
            hidden = self.hidden_from_average(
                numerator / attention_average.safe_denominator(denominator)
            )
        output = self.output_from_hidden(hidden)
        if self.learn_initial_state:
            output = ops.sign(denominator) * output
        return output

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
        h0 = self.hidden_from_average(s0)
        return ops.where(attention_average.attended(denominator), hidden, h0)

    def initial_hidden_state(self, batch_size, dtype=None):
        """`h_0`: `f_h(s0)` when learned (RWA paper eq. 7), else zeros."""
        dtype = dtype or self.compute_dtype
        zeros = ops.zeros((batch_size, self.units), dtype=dtype)
        return self.read_hidden_state(zeros, zeros)

    def get_initial_state(self, batch_size=None):
        """`[h_0, n_0 = 0, d_0 = 0, m_0 = 0]` (without `h_0` where the gates
        read only `x_t`), each `[batch, units]`.

        One tensor per state: a stateful RNN makes a variable of each, and
        on PyTorch a variable shares its initial tensor's storage.
        """
        sums = [
            ops.zeros((batch_size, self.units), dtype=self.compute_dtype)
            for _ in range(3)
        ]
        if not self.gates_read_hidden:
            return sums
        return [self.initial_hidden_state(batch_size), *sums]
