"""Layer-normalised LSTM cell (Ba, Kiros & Hinton 2016), the "LSTM-LN" baseline."""

import keras
from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import associative as aops
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class LayerNormLSTMCell(BaseCell):
    """LSTM cell with layer normalisation (Ba, Kiros & Hinton 2016).

    ```
    [i; f; g; o] = LN(W_x x_t; alpha_x) + LN(W_h h_{t-1}; alpha_h) + b
    c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
    h_t = sigmoid(o) * tanh(LN(c_t; alpha_c, beta_c))
    ```

    The input and recurrent pre-activations are each layer-normalised over
    all `4 * units` gate pre-activations together (one normalisation per
    vector, as the paper writes it); these normalisations have gains only,
    the shared bias `b` playing the role of their offsets. Keras has no
    layer-normalised LSTM; this is the WeiNet paper's "LSTM-LN" (Figure 2).

    Gate order i, f, g, o as in `keras.layers.LSTMCell`. The forget-gate
    bias starts at 1 (`unit_forget_bias`); the other biases are drawn from
    `N(0, 0.1)`.
    - Why not zero: with zero biases the all-zero state would be a fixed
      point for zero input (pre-padding without a mask).
    - At that point the normalisations see all-zero vectors. Their gain is
      `1 / sqrt(epsilon)`, about 300, and the gradient through a run of such
      steps grows by that factor per step until it overflows.
    - A random candidate bias makes `c` non-zero from the first step
      (`tests/cells/test_layer_norm_lstm_cell.py` checks finite gradients
      after a long run of zero inputs).

    Args:
        units: positive int, size of `h` and `c`.
        unit_forget_bias: whether the forget-gate bias starts at 1.
        kernel_initializer: initialiser of `kernel` (`[input_dim, 4 * units]`).
        recurrent_initializer: initialiser of `recurrent_kernel`
            (`[units, 4 * units]`).
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
    Groups: `kernel` (kernel), `recurrent_kernel` (recurrent), `bias` (bias);
    the layer-norm gains take none. Recurrent dropout drops `h_{t-1}` in `W_h
    h_{t-1}`.

    Call arguments:
        inputs: `[batch, input_dim]`.
        states: `[h, c]`, each `[batch, units]`.
        training: whether dropout is applied.

    State:
        `state_size = [units, units]`, `output_size = units`.

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its
        outputs from that step on may become non-finite (a saturated gate
        can absorb an inf), its earlier outputs and the other samples' do
        not change.

    Example:

    ```python
    layer = keras.layers.RNN(keras_rda.LayerNormLSTMCell(50))
    ```

    Reference:
        Ba, Kiros & Hinton (2016), "Layer Normalization",
        the layer-normalised LSTM; WeiNet paper, Figure 2 (LSTM-LN).
    """

    #: The output is `h`, the first state (`output_from_states`).
    output_in_states = True
    config_arguments = (
        "unit_forget_bias",
        "kernel_initializer",
        "recurrent_initializer",
    )

    def __init__(
        self,
        units,
        unit_forget_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
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
        self.unit_forget_bias = validation.boolean("unit_forget_bias", unit_forget_bias)
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer
        )
        self.recurrent_initializer = validation.initializer(
            "recurrent_initializer", recurrent_initializer
        )
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        input_dim = self.step_input_dim(input_shape)
        n = self.units
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, 4 * n), self.kernel_initializer, "kernel"
        )
        self.recurrent_kernel = self.add_cell_weight(
            "recurrent_kernel", (n, 4 * n), self.recurrent_initializer, "recurrent"
        )

        def bias_init(shape, dtype=None):
            forget = 1.0 if self.unit_forget_bias else 0.0
            # Small random i, g, o biases: see the class docstring. One
            # draw for all three (two calls of one initializer would return
            # the same values twice).
            others = keras.initializers.RandomNormal(stddev=0.1)((3 * n,), dtype)
            return ops.concatenate(
                [others[:n], ops.full((n,), forget, dtype), others[n:]]
            )

        self.bias = self.add_cell_weight("bias", (4 * n,), bias_init, "bias")
        self.input_gain = self.add_weight(
            shape=(4 * n,), name="input_layer_norm_gamma", initializer="ones"
        )
        self.recurrent_gain = self.add_weight(
            shape=(4 * n,), name="recurrent_layer_norm_gamma", initializer="ones"
        )
        self.cell_gamma, self.cell_beta = aops.add_layer_norm_weights(
            self, "cell_layer_norm", n
        )
        self.built = True

    def output_from_states(self, states):
        """`h`, the first state: the output of the step that left it."""
        return states[0]

    def call(self, inputs, states, training=False):
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        h_prev, c_prev = states[0], states[1]
        x = self.drop_input(inputs, training)
        h_read = self.drop_recurrent(h_prev, training)
        z = (
            aops.layer_norm(ops.matmul(x, self.kernel), self.input_gain)
            + aops.layer_norm(
                ops.matmul(h_read, self.recurrent_kernel), self.recurrent_gain
            )
            + self.bias
        )
        i, f, g, o = ops.split(z, 4, axis=-1)
        c = ops.sigmoid(f) * c_prev + ops.sigmoid(i) * ops.tanh(g)
        h = ops.sigmoid(o) * ops.tanh(
            aops.layer_norm(c, self.cell_gamma, self.cell_beta)
        )
        return h, [h, c]
