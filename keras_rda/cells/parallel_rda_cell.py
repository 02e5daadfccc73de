"""The parallel RDA cell: discounted attention whose gates read only `x_t`."""

import keras
from keras import ops

from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class ParallelRDACell(BaseRDACell):
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
            at 1, the other biases from `bias_initializer` (section 6.1); if
            False, it starts from `bias_initializer` too. No effect where a
            `discount_bias_initializer` is given (see `RDACell`).
        discount_bias_initializer: initializer of the discount gate's bias
            block alone; where given, it sets that block whatever
            `unit_discount_bias` says. Default None. The discount multiplies
            the past by `sigmoid(b)` per step at the start, so an average
            holds a step for about
            `1 / (1 - sigmoid(b))` steps: `keras.initializers.Constant(4.0)`
            (`gamma_0 = 0.98`) keeps what a sequence ends on more than about
            ten steps from being forgotten before training begins (see
            `RDACell`).
        kernel_initializer: initializer of each gate block of `kernel`.
            Default `"glorot_uniform"` per block (section 6.1: Xavier).
        bias_initializer: initializer of the biases. Default `"zeros"`.
        kernel_regularizer: regularizer of `kernel`.
        bias_regularizer: regularizer of `bias`.
        kernel_constraint: constraint of `kernel`.
        bias_constraint: constraint of `bias`.
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
        `state_size = [units] * 3`. Under mixed precision the step computes
        in float32 (see Numerics).

    Weights (the RDA's layout without its `recurrent_kernel`, so that
    weights can be ported):
        `kernel` `[input_dim, 4 * units]` (blocks u, g, a, gamma) and
        `bias` `[4 * units]` (u, g, a, gamma).

    Numerics:
        Finite inputs give finite outputs for any sequence length (the
        rescaling above). A NaN or inf in one sample's input stays in that
        sample: its outputs from that step on become non-finite, its
        earlier outputs and the other samples' do not change. Under mixed
        precision the unit computes in float32, from the input projection
        to `h_t` (its weights are not autocast), and returns `o_t` in the
        compute dtype, so its gradients stay finite where float16 would
        overflow (large inputs, long sequences). `keras.layers.RNN` keeps
        the state in the cell's compute dtype between steps: give the cell
        `dtype="float32"` there for the same (the `keras_rda.ParallelRDA` layer needs
        nothing).

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

    # The gates read only x_t: no recurrent kernel, no h in the state and no
    # learned s0, so no `recurrent` / `initial_state` weight groups (and no
    # recurrent dropout, `BaseCell`).
    gates_read_hidden = False
    weight_groups = ("kernel", "bias")
    config_arguments = (
        "attention_activation",
        "hidden_activation",
        "output_activation",
        "use_bias",
        "unit_discount_bias",
        "kernel_initializer",
        "bias_initializer",
        "discount_bias_initializer",
    )

    def __init__(
        self,
        units,
        attention_activation="sigmoid",
        hidden_activation="linear",
        output_activation="linear",
        use_bias=True,
        unit_discount_bias=True,
        discount_bias_initializer=None,
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

    def gate_terms(self, inputs):
        """What the running average takes from the inputs of every step at
        once (the gates read only `x_t`): one matmul for all steps.

        Args:
            inputs: `[..., input_dim]`, `x_t` (e.g. `[batch, input_dim]` or
                `[batch, time, input_dim]`).

        Returns:
            `(z, log_a, log_gamma, positive)`, each `[..., units]` in the
            accumulation dtype (see `BaseRDACell.gate_terms_of`).
        """
        u, gates = ops.split(self.project_inputs(inputs), [self.units], axis=-1)
        return self.gate_terms_of(u, gates)
