"""Fast weights RNN cell (Ba et al. 2016), the WeiNet paper's FW-LN baseline."""

import keras
from keras import ops

from keras_rda.cells.base_cell import BaseCell
from keras_rda.ops import associative as aops
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class FastWeightsCell(BaseCell):
    """Cell of a recurrent network with fast weights (Ba et al. 2016).

    A fast-weight matrix `A` accumulates the outer products of past hidden
    states with a fixed decay `lambda` and fast learning rate `eta`, and an
    inner loop of `S` steps lets the new hidden state attend to the past
    through `A`:

    ```
    A_t       = lambda * A_{t-1} + eta * h_{t-1} h_{t-1}^T
    h^0       = f(W h_{t-1} + C x_t + b)
    h^{s+1}   = f(LN[W h_{t-1} + C x_t + b + A_t h^s]),  s = 0 .. S-1
    h_t       = h^S
    ```

    With `layer_norm=True` this is the "FW-LN" model of the WeiNet paper's
    Table 1 (layer normalisation, Ba, Kiros & Hinton 2016, with a learned
    gain and bias, applied to the inner loop's pre-activation as Ba et al.
    do). `A_0 = 0`.

    Decisions where the sources leave room:
    - `f` defaults to ReLU, the non-linearity of Ba et al.'s associative
      retrieval experiments; the WeiNet paper writes Ba's update with tanh,
      reachable with `activation="tanh"`.
    - The bias `b` (zeros) is part of the slow input projection.
    - `A_t` is updated with the previous hidden state before the inner loop,
      as in Ba et al.'s equation (the current state's association is not yet
      known when the inner loop runs).
    - With `layer_norm=True` every hidden state is bounded
      (`|h| <= sqrt(units) * |gain| + |bias|`), so with `0 <= decay < 1`
      `A` stays bounded on sequences of any length. With `layer_norm=False`
      and `activation="relu"` the recurrence can grow without bound (as the
      plain formula does); use tanh there.

    Args:
        units: positive int, size of the hidden state `h`.
        decay: `lambda` in [0, 1], the decay of the fast weights (Ba et al.
            use 0.95).
        fast_learning_rate: `eta` >= 0, the fast weights' learning rate (Ba
            et al. use 0.5).
        inner_steps: positive int, `S`, the number of inner-loop steps.
        layer_norm: whether to layer-normalise the inner loop (FW-LN).
        activation: `f`, one of "relu", "tanh", "linear".
        kernel_initializer: initialiser of `C` (`kernel`, `[input_dim, units]`).
        recurrent_initializer: initialiser of `W` (`recurrent_kernel`,
            `[units, units]`). Default (None): the identity scaled by 0.05, as
            Ba et al.
        bias_initializer: initialiser of `b`.
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
    Groups: `C` (kernel), `W` (recurrent), `b` (bias). Recurrent dropout drops
    `h_{t-1}` in `W h_{t-1}` only.

    Call arguments:
        inputs: `[batch, input_dim]`, one time step.
        states: `[h, A]` with `h` `[batch, units]` and `A` flattened to
            `[batch, units * units]` (row-major `A[i, j]`).
        training: whether dropout is applied. Dropout acts on the slow
            projection `W h_{t-1} + C x_t` only; the fast weights see the
            undropped `h_{t-1}`.

    State:
        `state_size = [units, units * units]`; the fast-weight matrix is
        declared flat and reshaped to `[batch, units, units]` inside `call`.
        `output_size = units`, the output is `h_t`.

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its
        outputs from that step on may become non-finite (a saturated gate
        can absorb an inf), its earlier outputs and the other samples' do
        not change.

    Example:

    ```python
    layer = keras.layers.RNN(keras_rda.FastWeightsCell(50))
    y = layer(keras.ops.ones((2, 11, 37)))   # [2, 50]
    ```

    Reference:
        Ba, Hinton, Mnih, Leibo & Ionescu (2016), "Using Fast Weights to
        Attend to the Recent Past", section 3 (eq. for A(t) and the inner
        loop) and 3.1 (layer-normalised fast weights); Zhang & Zhou, "Learning
        to update Auto-associative Memory in Recurrent Neural Networks",
        section "Learning Autoassociative Memory Updates" and Table 1 (FW-LN).
    """

    config_arguments = (
        "decay",
        "fast_learning_rate",
        "inner_steps",
        "layer_norm",
        ("activation", "activation_name"),
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
    )

    def __init__(
        self,
        units,
        decay=0.95,
        fast_learning_rate=0.5,
        inner_steps=1,
        layer_norm=True,
        activation="relu",
        kernel_initializer="glorot_uniform",
        recurrent_initializer=None,
        bias_initializer="zeros",
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
        self.decay = validation.in_range("decay", decay, 0.0, 1.0)
        self.fast_learning_rate = validation.in_range(
            "fast_learning_rate", fast_learning_rate, 0.0, float("inf")
        )
        self.inner_steps = validation.positive_int("inner_steps", inner_steps)
        self.layer_norm = validation.boolean("layer_norm", layer_norm)
        self.activation_name = activation
        self.activation = aops.get_activation(activation)
        self.kernel_initializer = validation.initializer(
            "kernel_initializer", kernel_initializer
        )
        self.recurrent_initializer = validation.initializer(
            "recurrent_initializer",
            recurrent_initializer or keras.initializers.Identity(gain=0.05),
        )
        self.bias_initializer = validation.initializer(
            "bias_initializer", bias_initializer
        )
        self.state_size = [self.units, self.units * self.units]
        self.output_size = self.units

    def build(self, input_shape):
        input_dim = self.step_input_dim(input_shape)
        n = self.units
        self.kernel = self.add_cell_weight(
            "kernel", (input_dim, n), self.kernel_initializer, "kernel"
        )
        self.recurrent_kernel = self.add_cell_weight(
            "recurrent_kernel", (n, n), self.recurrent_initializer, "recurrent"
        )
        self.bias = self.add_cell_weight("bias", (n,), self.bias_initializer, "bias")
        if self.layer_norm:
            self.ln_gamma, self.ln_beta = aops.add_layer_norm_weights(
                self, "layer_norm", self.units
            )
        self.built = True

    def call(self, inputs, states, training=False):
        validation.cell_states(self, self.state_size, states, inputs.shape[0], "states")
        h_prev = states[0]
        fast = aops.flat_to_matrices(states[1], None, self.units)
        fast = self.decay * fast + self.fast_learning_rate * aops.outer(h_prev)
        slow = (
            ops.matmul(self.drop_input(inputs, training), self.kernel)
            + ops.matmul(self.drop_recurrent(h_prev, training), self.recurrent_kernel)
            + self.bias
        )
        h = self.activation(slow)
        for _ in range(self.inner_steps):
            pre = slow + aops.memory_times_vector(fast, h)
            if self.layer_norm:
                pre = aops.layer_norm(pre, self.ln_gamma, self.ln_beta)
            h = self.activation(pre)
        return h, [h, aops.matrices_to_flat(fast)]
