"""The Recurrent Weighted Average (RWA) cell."""

import keras

from keras_rda.cells.base_rda_cell import RWA_INITIAL_STATE_STDDEV
from keras_rda.cells.base_rda_cell import BaseRDACell
from keras_rda.cells.base_rda_cell import lstm_argument_counterparts
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class RWACell(BaseRDACell):
    """Cell class of the Recurrent Weighted Average unit.

    At each step the unit averages features `z_t` of all steps so far,
    weighted by an exponential attention (RWA paper, eq. 2-7):

        u_t = W_u x_t + b_u
        g_t = W_g [x_t, h_{t-1}] + b_g
        a_t = exp(W_a [x_t, h_{t-1}] + b_a)
        z_t = u_t * tanh(g_t)
        n_t = n_{t-1} + z_t * a_t,   d_t = d_{t-1} + a_t
        h_t = tanh(n_t / d_t),       h_0 = tanh(s0)

    The sums are kept rescaled by the running maximum of the attention
    logits (Appendix D, eq. 9, in the form described in
    `keras_rda.ops.attention_average`), so nothing overflows for any finite
    input or sequence length; outputs equal eq. 7 wherever it is finite.

    Args:
        units: positive integer, dimensionality of the output space.
        learn_initial_state: whether `s0` is a trained weight
            (`h_0 = tanh(s0)`, as in the paper). If False, `h_0 = 0`.
        use_bias: whether the unit uses the biases `b_u, b_g, b_a`.
        kernel_initializer: initializer of the weight matrices. Default
            `"glorot_uniform"` (section 3.1: the Glorot uniform range of every
            `W`). It draws each gate's matrix over `[x_t, h_{t-1}]` whole
            (fan-in `input_dim + units`), whose rows are then split into
            `kernel` and `recurrent_kernel` (see
            `keras_rda.cells.base_rda_cell.BaseRDACell`).
        bias_initializer: initializer of the biases. Default `"zeros"`.
        initial_state_initializer: initializer of `s0`. Default (None)
            `RandomNormal(stddev=sqrt(3))`, the paper's `N(0, 3)`.
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
        denominator of the average scaled by `exp(-m)`, and `m`, the running
        maximum of the log-weights. `state_size = [units] * 4`.

    Weights (documented so that weights can be ported):
        `kernel` `[input_dim, 3 * units]` (blocks u, g, a),
        `recurrent_kernel` `[units, 2 * units]` (blocks g, a),
        `bias` `[3 * units]` (u, g, a), `initial_state` `[units]` (`s0`).

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
        `dtype="float32"` there for the same (the `keras_rda.RWA` layer needs
        nothing).

    Example:

    ```python
    inputs = keras.Input((None, 2))
    outputs = keras.layers.RNN(keras_rda.RWACell(250))(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(outputs))
    ```

    `keras_rda.RWA(250)` is the same unit as a sequence layer that projects
    the inputs of all steps in one matmul before the recurrence
    (`benchmarks/rnn_speed.py` times it against `keras.layers.LSTM`).

    Reference:
        Ostmeyer & Cowell, "Machine Learning on Sequential Data Using a
        Recurrent Weighted Average", 2017: section 2 (eq. 2-7), section 3.1
        (initialisation), Appendix D (rescaling).
    """

    # No discount (gamma_t = 1): blocks u, g, a.
    discount = False
    lstm_counterparts = lstm_argument_counterparts(discount=False)

    def __init__(
        self,
        units,
        learn_initial_state=True,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        initial_state_initializer=None,
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
        if initial_state_initializer is None:
            initial_state_initializer = keras.initializers.RandomNormal(
                stddev=RWA_INITIAL_STATE_STDDEV
            )
        super().__init__(
            attention_activation="exp",
            hidden_activation="tanh",
            output_activation="linear",
            **constructor_arguments(locals()),
            **kwargs,
        )
