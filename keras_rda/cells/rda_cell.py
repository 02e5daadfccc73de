"""The Recurrent Discounted Attention (RDA) cell."""

import keras

from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.cells.base_rda_cell import lstm_argument_counterparts
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments

# The two variants named in the RDA paper, section 6.2:
# (attention_activation, hidden_activation, output_activation).
VARIANTS = {
    "sigmoid-id": ("sigmoid", "linear", "linear"),
    "exp-tanh": ("exp", "linear", "tanh"),
}
_DEFAULTS = VARIANTS["sigmoid-id"]
_ACTIVATIONS = ("attention_activation", "hidden_activation", "output_activation")


def variant_activations(variant, *activations):
    """The three activations `(f_a, f_h, f_o)` that `variant` names.

    Args:
        variant: None (the given activations stand) or a key of `VARIANTS`.
        *activations: the given `attention_activation`, `hidden_activation`
            and `output_activation`; each must be its default or the
            variant's.

    Returns:
        `(attention_activation, hidden_activation, output_activation)`.
    """
    validation.one_of("variant", variant, (None, *VARIANTS))
    if variant is None:
        return activations
    for name, value, default, wanted in zip(
        _ACTIVATIONS, activations, _DEFAULTS, VARIANTS[variant]
    ):
        if value != default and value != wanted:
            raise ValueError(
                f"Received conflicting arguments `variant={variant!r}` "
                f"and `{name}={value!r}`: variant {variant!r} uses "
                f"{name}={wanted!r}. Pass one or the other."
            )
    return VARIANTS[variant]


@keras.saving.register_keras_serializable(package="keras_rda")
class RDACell(BaseRDACell):
    """Cell class of the Recurrent Discounted Attention unit.

    A weighted average of features like the RWA's, whose past can be
    discounted at every step (RDA paper, section 5):

        u_t     = W_u x_t + b_u
        g_t     = W_g [x_t, h_{t-1}] + b_g
        z_t     = u_t * tanh(g_t)
        a_t     = f_a(W_a [x_t, h_{t-1}] + b_a)
        gamma_t = sigmoid(W_gamma [x_t, h_{t-1}] + b_gamma)
        n_t = n_{t-1} * gamma_t + z_t * a_t
        d_t = d_{t-1} * gamma_t + a_t
        h_t = f_h(n_t / d_t)
        o_t = f_o(h_t)

    The recurrence feeds back `h_t`; the cell outputs `o_t`. Numerator and
    denominator are kept rescaled by the running maximum of the log-weights
    (see `keras_rda.ops.attention_average`): no overflow, underflow or
    `0 / 0` for any finite input or length, for every `f_a`; outputs equal
    the equations above wherever those are finite. With ReLU attention,
    `h_t = f_h(0)` until some step gets a positive weight (the equations
    give `0 / 0` there).

    Args:
        units: positive integer, dimensionality of the output space.
        attention_activation: `f_a`, one of `"exp"`, `"sigmoid"`,
            `"softplus"`, `"relu"` (section 5.1). Default `"sigmoid"`.
        hidden_activation: `f_h`, `"linear"` (identity, the paper's choice)
            or `"tanh"`.
        output_activation: `f_o`, `"linear"` or `"tanh"`.
        variant: None, or one of the paper's named variants, which sets the
            three activations: `"sigmoid-id"` (sigmoid, linear, linear: the
            defaults) or `"exp-tanh"` (exp, linear, tanh) (section 6.2).
        learn_initial_state: whether `s0` is trained, with `h_0 = f_h(s0)`.
            Default False (`h_0 = 0`); the paper learns it on
            classify-length (section 6.3).
        use_bias: whether to use the biases.
        unit_discount_bias: if True (default), the discount-gate bias
            starts at 1, the other biases from `bias_initializer`
            (section 6.1); if False, it starts from `bias_initializer` too.
            The paper's switch, kept beside `discount_bias_initializer` as
            `keras.layers.LSTM` keeps `unit_forget_bias` beside
            `bias_initializer`; it has no effect where a
            `discount_bias_initializer` is given.
        discount_bias_initializer: initializer of the discount gate's bias
            block alone; where given, it sets that block whatever
            `unit_discount_bias` says. Default None. The discount multiplies
            the past by `sigmoid(b)` per step at the start, so an average
            holds a step for about `1 / (1 - sigmoid(b))` steps:
            `keras.initializers.Constant(4.0)`
            (`gamma_0 = 0.98`) keeps what a sequence ends on more than about
            ten steps from being forgotten before training begins (see
            docs/guides/choosing-a-unit.md).
        kernel_initializer: initializer of the weight matrices. Default
            `"glorot_uniform"` (section 6.1: Xavier). It draws each gate's
            matrix over `[x_t, h_{t-1}]` whole (fan-in `input_dim + units`),
            whose rows are then split into `kernel` and `recurrent_kernel`
            (see `keras_rda.cells.base_rda_cell.BaseRDACell`).
        bias_initializer: initializer of the biases. Default `"zeros"`.
        initial_state_initializer: initializer of `s0`. Default `"zeros"`.
        kernel_regularizer: regularizer of `kernel`.
        recurrent_regularizer: regularizer of `recurrent_kernel`.
        bias_regularizer: regularizer of `bias`.
        initial_state_regularizer: regularizer of `initial_state`.
        kernel_constraint: constraint of `kernel`.
        recurrent_constraint: constraint of `recurrent_kernel`.
        bias_constraint: constraint of `bias`.
        initial_state_constraint: constraint of `initial_state`.
        dropout: float in [0, 1), fraction of the inputs to drop (one mask
            per sequence).
        recurrent_dropout: float in [0, 1), fraction of `h_{t-1}` to drop in
            the recurrent projections (one mask per sequence).
        seed: random seed for dropout.
        **kwargs: base `Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: `[batch, features]`, the input at one step.
        states: list `[h, n, d, m]`, each `[batch, units]` (see State).
        training: whether dropout is applied.

    State:
        `[h, n, d, m]`, each `[batch, units]`: `h_{t-1}`, the numerator and
        denominator scaled by `exp(-m)`, and the running maximum `m` of the
        log-weights. `state_size = [units] * 4`. Under mixed precision the
        step computes in float32 (see Numerics).

    Weights (documented so that weights can be ported):
        `kernel` `[input_dim, 4 * units]` (blocks u, g, a, gamma),
        `recurrent_kernel` `[units, 3 * units]` (blocks g, a, gamma),
        `bias` `[4 * units]` (u, g, a, gamma), and `initial_state` `[units]`
        when learned.

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
        `dtype="float32"` there for the same (the `keras_rda.RDA` layer needs
        nothing).

    Example:

    ```python
    model = keras.Sequential([
        keras.Input((None, 2)),
        keras.layers.RNN(keras_rda.RDACell(250)),
        keras.layers.Dense(1),
    ])
    cell = keras_rda.RDACell(250, variant="exp-tanh")
    ```

    `keras_rda.RDA(250)` is the same unit as a sequence layer that projects
    the inputs of all steps in one matmul before the recurrence
    (`benchmarks/rnn_speed.py` times both against `keras.layers.LSTM`).

    Reference:
        "Efficiently applying attention to sequential data with the
        Recurrent Discounted Attention unit": section 5 (equations),
        5.1 (activation choices), 6.1 (initialisation), 6.2 (variants).
    """

    # The past is discounted by gamma_t: blocks u, g, a, gamma.
    discount = True
    lstm_counterparts = lstm_argument_counterparts(variant=True)
    config_arguments = BaseRDACell.config_arguments + (
        "attention_activation",
        "hidden_activation",
        "output_activation",
        "unit_discount_bias",
        "discount_bias_initializer",
    )

    def __init__(
        self,
        units,
        attention_activation="sigmoid",
        hidden_activation="linear",
        output_activation="linear",
        variant=None,
        learn_initial_state=False,
        use_bias=True,
        unit_discount_bias=True,
        discount_bias_initializer=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        initial_state_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        initial_state_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        initial_state_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        attention_activation, hidden_activation, output_activation = (
            variant_activations(
                variant, attention_activation, hidden_activation, output_activation
            )
        )
        super().__init__(**constructor_arguments(locals(), ["variant"]), **kwargs)
