"""Every Keras-internal (`keras.src`) name the package uses, in one place.

Keras 3 does not export these publicly. Keeping them here means a Keras
release that moves one breaks one import line, and `setup.py` pins the
Keras versions this module is tested with (`keras>=3.5,<3.16`).

- `DropoutRNNCell`: the mixin that gives a cell `get_dropout_mask` /
  `get_recurrent_dropout_mask` (one mask per sequence, reset by
  `keras.layers.RNN` after each call), as Keras's own LSTM/GRU cells use.
- `rnn`: the backend's time loop behind `keras.layers.RNN` (masking,
  `go_backwards`, `unroll`, `zero_output_for_mask`).

It also holds two work-arounds of dtypes: on JAX, Keras 3.15's `ops.tanh`
computes float64 inputs in float32 (`tanh`); on PyTorch, its `ops.matmul`,
`ops.maximum` and `ops.minimum` return float32 for float64 tensors
(`matmul`, `maximum`, `minimum`).
"""

import keras
from keras import ops
from keras.src.backend import rnn
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

__all__ = ["DropoutRNNCell", "matmul", "maximum", "minimum", "rnn", "tanh"]


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


def matmul(x1, x2):
    """`x1 @ x2` in the dtype of the operands (both of one dtype).

    On PyTorch, Keras 3.15's `ops.matmul` takes the result dtype of two
    `torch.float64` tensors for float32 and computes in it, which would
    make the float64 reference runs float32-accurate; there this is
    `torch.matmul` itself.
    """
    if keras.backend.backend() == "torch":
        import torch

        return torch.matmul(ops.convert_to_tensor(x1), ops.convert_to_tensor(x2))
    return ops.matmul(x1, x2)


def _torch_operands(x1, x2):
    """Both operands as torch tensors of `x1`'s dtype (`x2` may be a number)."""
    x1 = ops.convert_to_tensor(x1)
    return x1, ops.convert_to_tensor(x2, dtype=x1.dtype)


def maximum(x1, x2):
    """`ops.maximum`, in the dtype of `x1` on PyTorch too (see the module)."""
    if keras.backend.backend() == "torch":
        import torch

        return torch.maximum(*_torch_operands(x1, x2))
    return ops.maximum(x1, x2)


def minimum(x1, x2):
    """`ops.minimum`, in the dtype of `x1` on PyTorch too (see the module)."""
    if keras.backend.backend() == "torch":
        import torch

        return torch.minimum(*_torch_operands(x1, x2))
    return ops.minimum(x1, x2)
