"""Recurrent highway network cell (Zilly et al. 2016), the "RHN" baseline."""

import keras
from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import associative as aops
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class RecurrentHighwayCell(BaseCell):
    """Recurrent highway network cell with coupled gates (Zilly et al. 2016).

    `depth` highway layers per time step; the input enters the first one:

    ```
    s^0 = s_{t-1}
    for l = 1 .. L:
        u^l = [x_t W_H, x_t W_T] * 1{l = 1} + s^{l-1} R^l
        (with layer_norm: each half of u^l layer-normalised, gain only)
        h^l = tanh(u^l_H + b^l_H)
        t^l = sigmoid(u^l_T + b^l_T)
        s^l = h^l * t^l + s^{l-1} * (1 - t^l)          (coupled carry gate)
    s_t = s^L
    ```

    The transform-gate biases start negative (`transform_bias`, default -2)
    so that every layer begins close to carrying its state, as Zilly et al.
    recommend; other biases start at 0. The WeiNet paper compares against
    RHN with coupled gates and layer normalisation ("RHN-LN", Figure 2).

    Args:
        units: positive int, size of the state `s`.
        depth: positive int, `L`, the recurrence depth (highway layers per
            step).
        layer_norm: whether to layer-normalise the pre-activations.
        transform_bias: initial value of the transform-gate biases.
        kernel_initializer: initialiser of `kernel` (`[input_dim, 2 * units]`,
            blocks H, T).
        recurrent_initializer: initialiser of `recurrent_kernel`
            (`[depth, units, 2 * units]`).
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
    the layer-norm gains take none. Recurrent dropout drops `s^{l-1}` in every
    layer's `s^{l-1} R^l` (one mask for all layers), not in the carry.

    Call arguments:
        inputs: `[batch, input_dim]`.
        states: `[s]`, `[batch, units]`.
        training: whether dropout is applied.

    State:
        `state_size = [units]`, `output_size = units`.

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its
        outputs from that step on may become non-finite (a saturated gate
        can absorb an inf), its earlier outputs and the other samples' do
        not change.

    Example:

    ```python
    layer = keras.layers.RNN(keras_rda.RecurrentHighwayCell(50, depth=2))
    ```

    Reference:
        Zilly, Srivastava, Koutnik & Schmidhuber (2016), "Recurrent Highway
        Networks", the RHN layer with coupled gates c = 1 - t; WeiNet
        paper, Experiments ("RHN use coupled gates") and Figure 2 (RHN-LN).
    """

    #: The output is `h`, the first state (`output_from_states`).
    output_in_states = True
    config_arguments = (
        "depth",
        "layer_norm",
        "transform_bias",
        "kernel_initializer",
        "recurrent_initializer",
    )

    def __init__(
        self,
        units,
        depth=2,
        layer_norm=False,
        transform_bias=-2.0,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="glorot_uniform",
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
        self.depth = validation.positive_int("depth", depth)
        self.layer_norm = validation.boolean("layer_norm", layer_norm)
        self.transform_bias = validation.in_range(
            "transform_bias",
            transform_bias,
            float("-inf"),
            float("inf"),
            low_inclusive=False,
            high_inclusive=False,
        )
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer
        )
        self.recurrent_initializer = validation.initializer(
            "recurrent_initializer", recurrent_initializer
        )
        self.state_size = [self.units]
        self.output_size = self.units

    def build(self, input_shape):
        input_dim = self.step_input_dim(input_shape)
        n, depth = self.units, self.depth
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, 2 * n), self.kernel_initializer, "kernel"
        )
        self.recurrent_kernel = self.add_cell_weight(
            "recurrent_kernel",
            (depth, n, 2 * n),
            self.recurrent_initializer,
            "recurrent",
        )

        def bias_init(shape, dtype=None):
            half = ops.zeros((depth, n), dtype)
            gate = ops.full((depth, n), self.transform_bias, dtype)
            return ops.concatenate([half, gate], axis=-1)

        self.bias = self.add_cell_weight("bias", (depth, 2 * n), bias_init, "bias")
        if self.layer_norm:
            self.ln_gain = self.add_weight(
                shape=(depth, 2, n), name="layer_norm_gamma", initializer="ones"
            )
        self.built = True

    def _highway_layer(self, s, layer, projected_input, training):
        """One highway layer `l` of the recurrence (coupled gates)."""
        u = ops.matmul(self.drop_recurrent(s, training), self.recurrent_kernel[layer])
        if projected_input is not None:
            u = u + projected_input
        u_h, u_t = ops.split(u, 2, axis=-1)
        if self.layer_norm:
            u_h = aops.layer_norm(u_h, self.ln_gain[layer, 0])
            u_t = aops.layer_norm(u_t, self.ln_gain[layer, 1])
        b_h, b_t = ops.split(self.bias[layer], 2, axis=-1)
        h = ops.tanh(u_h + b_h)
        t = ops.sigmoid(u_t + b_t)
        return h * t + s * (1.0 - t)

    def output_from_states(self, states):
        """`h`, the first state: the output of the step that left it."""
        return states[0]

    def call(self, inputs, states, training=False):
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        s = states[0]
        projected = ops.matmul(self.drop_input(inputs, training), self.kernel)
        for layer in range(self.depth):
            first = projected if layer == 0 else None
            s = self._highway_layer(s, layer, first, training)
        return s, [s]
