"""The Recurrent Discounted Attention sequence layer."""

import keras

from keras_rda.cells.rda_cell import RDACell
from keras_rda.layers.base_rda_layer import BaseRDALayer
from keras_rda.layers.base_rnn import make_cell
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class RDA(BaseRDALayer):
    """Recurrent Discounted Attention layer, used like `keras.layers.LSTM`.

    Runs `RDACell` over a sequence. Outputs, states and gradients equal
    `keras.layers.RNN(RDACell(...))` with the same weights; it is faster
    because the input projections of all time steps are one matmul before
    the recurrence, leaving only `h_{t-1} W_h` and element-wise work in the
    loop. Works under `jit_compile=True`.

    The arguments `attention_activation`, `hidden_activation`,
    `output_activation`, `variant`, `learn_initial_state`, `use_bias`,
    `unit_discount_bias`, `kernel_initializer`, `recurrent_initializer`,
    `kernel_init_scheme`,
    `bias_initializer`, `initial_state_initializer`, `kernel_regularizer`,
    `recurrent_regularizer`, `bias_regularizer`, `initial_state_regularizer`,
    `kernel_constraint`, `recurrent_constraint`, `bias_constraint`,
    `initial_state_constraint`, `dropout`, `recurrent_dropout` and `seed`
    are the `RDACell` arguments (see there).

    Args:
        units: positive integer, dimensionality of the output space.
        activity_regularizer: regularizer on the layer's output.
        return_sequences: whether to return the output at every step
            (`[batch, time, units]`) or the last (`[batch, units]`).
        return_state: whether to also return the final state
            `h, n, d, m` (four `[batch, units]` tensors).
        go_backwards: if True, process the sequence backwards and return
            the reversed sequence.
        stateful: if True, the final state of batch i is the initial state
            of batch i in the next call; `reset_state()` zeroes the state,
            which is the cell's initial state (`h_0 = f_h(s0)` when learned).
        unroll: if True, unroll the loop (short sequences only).
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
        keras.Input((None, 2)),
        keras_rda.RDA(250),
        keras.layers.Dense(1),
    ])
    ```

    Reference:
        "Efficiently applying attention to sequential data with the
        Recurrent Discounted Attention unit", section 5.
    """

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
        kernel_initializer="glorot_uniform",
        recurrent_initializer="glorot_uniform",
        kernel_init_scheme="paper",
        bias_initializer="zeros",
        initial_state_initializer="zeros",
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
        cell, rnn_arguments = make_cell(
            RDACell, "rda_cell", constructor_arguments(locals()), kwargs
        )
        super().__init__(cell, **rnn_arguments, **kwargs)
