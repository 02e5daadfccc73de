"""The Recurrent Weighted Average sequence layer."""

import keras

from keras_rda.cells.rwa_cell import RWACell
from keras_rda.layers.base_rda_layer import BaseRDALayer


@keras.saving.register_keras_serializable(package="keras_rda")
class RWA(BaseRDALayer):
    """Recurrent Weighted Average layer, used like `keras.layers.LSTM`.

    Runs `RWACell` over a sequence. Outputs, states and gradients equal
    `keras.layers.RNN(RWACell(...))` with the same weights; it is faster
    because the input projections of all time steps are one matmul before
    the recurrence. Works under `jit_compile=True`.

    The arguments `learn_initial_state`, `use_bias`, `kernel_initializer`,
    `recurrent_initializer`, `kernel_init_scheme`, `bias_initializer`,
    `initial_state_initializer`,
    `kernel_regularizer`, `recurrent_regularizer`, `bias_regularizer`,
    `initial_state_regularizer`, `kernel_constraint`, `recurrent_constraint`,
    `bias_constraint`, `initial_state_constraint`, `dropout`,
    `recurrent_dropout` and `seed` are the `RWACell` arguments (see there).

    Args:
        units: positive integer, dimensionality of the output space.
        activity_regularizer: regularizer on the layer's output.
        return_sequences: whether to return the output at every step.
        return_state: whether to also return the final state `h, n, d, m`.
        go_backwards: if True, process the sequence backwards.
        stateful: if True, carry the final state to the next batch;
            `reset_state()` zeroes the state, which the cell reads as
            `h_0 = tanh(s0)` (an all-zero state is the initial state).
        unroll: if True, unroll the loop.
        **kwargs: base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `[batch, time, features]`.
        initial_state: optional list `[h, n, d, m]` of `[batch, units]`.
        mask: optional boolean `[batch, time]`; masked steps leave the
            state unchanged and repeat the previous output.
        training: whether dropout is applied.

    Example:

    ```python
    model = keras.Sequential([
        keras.Input((None, 1)),
        keras_rda.RWA(250),
        keras.layers.Dense(10),
    ])
    ```

    Reference:
        Ostmeyer & Cowell, "Machine Learning on Sequential Data Using a
        Recurrent Weighted Average", 2017, eq. 7 and Appendix D.
    """

    def __init__(
        self,
        units,
        learn_initial_state=True,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="glorot_uniform",
        kernel_init_scheme="paper",
        bias_initializer="zeros",
        initial_state_initializer=None,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        initial_state_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        initial_state_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        **kwargs,
    ):
        cell = RWACell(
            units,
            learn_initial_state=learn_initial_state,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            kernel_init_scheme=kernel_init_scheme,
            bias_initializer=bias_initializer,
            initial_state_initializer=initial_state_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            initial_state_regularizer=initial_state_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            initial_state_constraint=initial_state_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
            name="rwa_cell",
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
