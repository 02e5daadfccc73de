"""The package's one door to Keras internals (`keras.src`).

Keras 3 does not export these names publicly; every module of the package
imports them from here, so a Keras release that moves them is fixed in one
place.

- `DropoutRNNCell`: the mixin whose dropout masks `keras.layers.RNN`
  resets between calls (it checks `isinstance(cell, DropoutRNNCell)`).
"""

from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

__all__ = ["DropoutRNNCell"]
