"""Every Keras-internal (`keras.src`) name the package uses, in one place.

Keras 3 does not export these publicly. Keeping them here means a Keras
release that moves one breaks one import line, and `setup.py` pins the
Keras versions this module is tested with (`keras>=3.5,<3.16`).

- `DropoutRNNCell`: the mixin that gives a cell `get_dropout_mask` /
  `get_recurrent_dropout_mask` (one mask per sequence, reset by
  `keras.layers.RNN` after each call), as Keras's own LSTM/GRU cells use.
- `rnn`: the backend's time loop behind `keras.layers.RNN` (masking,
  `go_backwards`, `unroll`, `zero_output_for_mask`).

It also holds `tanh`, a work-around: on JAX, Keras 3.15's `ops.tanh`
computes float64 inputs in float32.
"""

import keras
from keras import ops
from keras.src.backend import rnn
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

__all__ = ["DropoutRNNCell", "rnn", "tanh"]


def tanh(x):
    """`tanh(x)` in the dtype of `x`.

    `keras.ops.tanh` on JAX (Keras 3.15) casts float64 to float32, which
    would make the float64 reference runs float32-accurate. There, float64
    uses `tanh(x) = -sign(x) e / (2 + e)`, `e = expm1(-2 |x|)`, exact to
    rounding for every x.
    """
    if (
        keras.backend.backend() != "jax"
        or keras.backend.standardize_dtype(x.dtype) != "float64"
    ):
        return ops.tanh(x)
    e = ops.expm1(-2.0 * ops.abs(x))
    return -ops.sign(x) * e / (2.0 + e)
