"""The parallel RDA cell: discounted attention whose gates read only `x_t`."""

import keras
from keras import ops

from keras_rda.cells.base_attention_cell import BaseAttentionCell
from keras_rda.cells.base_attention_cell import cast_like
from keras_rda.cells.base_attention_cell import per_block_initializer
from keras_rda.ops import attention_average
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class ParallelRDACell(BaseAttentionCell):
    """Cell class of the parallel Recurrent Discounted Attention unit.

    The RDA unit (RDA paper, section 5) with every gate computed from the
    current input alone:

        u_t     = W_u x_t + b_u
        g_t     = W_g x_t + b_g
        z_t     = u_t * tanh(g_t)
        a_t     = f_a(W_a x_t + b_a)
        gamma_t = sigmoid(W_gamma x_t + b_gamma)
        n_t = n_{t-1} * gamma_t + z_t * a_t
        d_t = d_{t-1} * gamma_t + a_t
        h_t = f_h(n_t / d_t)
        o_t = f_o(h_t)

    The RDA's gates read `[x_t, h_{t-1}]`; here they do not, so `(n_t, d_t)`
    is a linear recurrence in the past and the whole sequence can be computed
    by an associative scan (`keras_rda.ParallelRDA`). This cell is the same
    unit one step at a time, for `keras.layers.RNN`, streaming inference and
    generation; `ParallelRDA` with the same weights gives the same outputs
    and states.

    The sums are kept scaled by the running maximum of the log-weights (see
    `keras_rda.ops.attention_average`): no overflow, underflow or `0 / 0`
    for any finite input or length, for every `f_a`. With ReLU attention,
    `h_t = f_h(0)` until some step gets a positive weight.

    Args:
        units: positive integer, dimensionality of the output space.
        attention_activation: `f_a`, one of `"exp"`, `"sigmoid"`,
            `"softplus"`, `"relu"` (section 5.1). Default `"sigmoid"`.
        hidden_activation: `f_h`, `"linear"` (the paper's choice) or `"tanh"`.
        output_activation: `f_o`, `"linear"` or `"tanh"`.
        use_bias: whether to use the biases.
        unit_discount_bias: if True (default), the discount-gate bias starts
            at 1, the other biases from `bias_initializer` (section 6.1).
        kernel_initializer: initializer of each gate block of `kernel`.
            Default `"glorot_uniform"` per block (section 6.1: Xavier).
        bias_initializer: initializer of the biases. Default `"zeros"`.
        kernel_regularizer, bias_regularizer: regularizers of the weights.
        kernel_constraint, bias_constraint: constraints of the weights.
        dropout: float in [0, 1), fraction of the inputs to drop (one mask per
            sequence).
        seed: random seed for dropout.
        **kwargs: base `Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `[batch, features]`, the input at one step.
        states: list `[n, d, m]`, each `[batch, units]` (see State).
        training: whether dropout is applied.

    State:
        `[n, d, m]`, each `[batch, units]`: the numerator and denominator of
        the average scaled by `exp(-m)`, and the running maximum `m` of the
        log-weights; the unscaled sums are `n * exp(m)`, `d * exp(m)`.
        `d = 0` means nothing attended yet. No `h_{t-1}`: nothing reads it.
        `state_size = [units] * 3`. Under mixed precision the sums are
        accumulated in float32.

    Weights (the RDA's layout without its `recurrent_kernel`, so that
    weights can be ported):
        `kernel` `[input_dim, 4 * units]` (blocks u, g, a, gamma) and
        `bias` `[4 * units]` (u, g, a, gamma).

    Example:

    ```python
    cell = keras_rda.ParallelRDACell(128)
    model = keras.Sequential([
        keras.Input((None, 2)),
        keras.layers.RNN(cell),
        keras.layers.Dense(1),
    ])
    # streaming: one step at a time
    x_t = np.random.rand(8, 2).astype("float32")
    state = cell.get_initial_state(batch_size=8)
    output, state = cell(x_t, state)
    ```

    Reference:
        "Efficiently applying attention to sequential data with the
        Recurrent Discounted Attention unit": section 5 (equations, here with
        gates that read only `x_t`), 5.1 (activation choices), 6.1
        (initialisation).
    """

    # No recurrent weights, so no `recurrent_*` arguments and no recurrent
    # dropout (`BaseCell`).
    weight_groups = ("kernel", "bias")
    config_arguments = (
        "attention_activation",
        "hidden_activation",
        "output_activation",
        "use_bias",
        "unit_discount_bias",
        "kernel_initializer",
        "bias_initializer",
    )

    def __init__(
        self,
        units,
        attention_activation="sigmoid",
        hidden_activation="linear",
        output_activation="linear",
        use_bias=True,
        unit_discount_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**constructor_arguments(locals()), **kwargs)
        self.state_size = [self.units] * 3

    def build(self, input_shape):
        input_dim = validation.step_input_dim(self, input_shape)
        self.kernel = self.add_cell_weight(
            "kernel",
            (input_dim, self.num_blocks * self.units),
            per_block_initializer(
                self.kernel_initializer,
                input_dim,
                self.units,
                self.num_blocks,
                "kernel",
            ),
            "kernel",
        )
        self.bias = self.build_bias()
        self.built = True

    # ------------------------------------------------------------------- gates

    def gate_terms(self, inputs):
        """Everything a step needs from its input, for one step or all steps.

        Args:
            inputs: `[..., input_dim]`, `x_t` (e.g. `[batch, input_dim]` or
                `[batch, time, input_dim]`: one matmul for every step).

        Returns:
            `(z, log_a, log_gamma, positive)`, each `[..., units]` in the
            accumulation dtype: the features `z_t = u_t * tanh(g_t)`,
            `log a_t`, `log gamma_t`, and None or (ReLU) where `a_t > 0`.
        """
        projected = self.project_inputs(inputs)
        acc = self.accumulation_dtype
        u, g, a_logits, gamma_logits = ops.split(projected, self.num_blocks, axis=-1)
        z = ops.cast(u * ops.tanh(g), acc)
        log_a, positive = attention_average.log_attention(
            ops.cast(a_logits, acc), self.attention_activation
        )
        log_gamma = ops.log_sigmoid(ops.cast(gamma_logits, acc))
        return z, log_a, log_gamma, positive

    def output_from_average(self, average):
        """`o_t = f_o(f_h(n_t / d_t))` in the compute dtype."""
        h = attention_average.apply_activation(average, self.hidden_activation)
        output = attention_average.apply_activation(h, self.output_activation)
        return ops.cast(output, self.compute_dtype)

    # ---------------------------------------------------------------- the step

    def call(self, inputs, states, training=False):
        inputs = self.drop_input(inputs, training)
        z, log_a, log_gamma, positive = self.gate_terms(inputs)
        new_n, new_d, new_m = self.update_sums(states, z, log_a, log_gamma, positive)
        output = self.output_from_average(
            attention_average.weighted_average(new_n, new_d)
        )
        return output, cast_like([new_n, new_d, new_m], states)
