"""`keras.ops.custom_gradient` for a function of several outputs, on every backend.

On TensorFlow and JAX this is `keras.ops.custom_gradient`. On PyTorch
(Keras 3.15) that one hands the gradient function a single upstream
gradient, so it cannot serve a function of several outputs, and it turns
an error in the forward pass into NaN gradients. Here PyTorch gets one
`torch.autograd.Function` that runs the forward function (whose loop then
runs without building an autograd graph) and, in the backward pass, the
gradient function it returned.

The contract is `keras.ops.custom_gradient`'s: `f(*tensors)` returns
`(outputs, grad)`, and `grad(*upstream)` returns one gradient per input
tensor (None for one that takes none). On PyTorch and TensorFlow
`upstream` is one gradient per output; on JAX, the outputs' structure
as one argument.
"""

import functools

import keras
from keras import ops


def custom_gradient(f):
    """`f` with the gradient it defines (see the module docstring).

    Args:
        f: `(*tensors) -> (outputs, grad)`, `outputs` a tuple of tensors.

    Returns:
        A function of the same tensors, returning `outputs`.
    """
    if keras.backend.backend() != "torch":
        return ops.custom_gradient(f)

    def call(*tensors):
        return _torch_function().apply(f, *tensors)

    return call


@functools.cache
def _torch_function():
    """The `torch.autograd.Function`, made on first use (PyTorch is optional)."""
    import torch

    class TorchFunction(torch.autograd.Function):
        """The forward function and its gradient as one autograd node."""

        @staticmethod
        def forward(ctx, f, *tensors):
            outputs, ctx.grad = f(*tensors)
            # New tensor objects on the same storage: autograd attaches this
            # node to the tensors returned, and `grad` usually keeps the
            # outputs it computed. Returned as they are, they would hold the
            # node that holds `grad` that holds them, a cycle through C++
            # that Python's collector cannot free: every step's saved
            # tensors would stay in memory.
            return tuple(output.detach() for output in outputs)

        @staticmethod
        def backward(ctx, *upstream):
            grads = ctx.grad(*upstream)
            return (None, *grads)

    return TorchFunction
