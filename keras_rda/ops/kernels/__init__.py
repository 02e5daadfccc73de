"""Fused GPU kernels of the RWA/RDA recurrence and of the parallel RDA's scan.

The same math as `keras_rda.ops.rda_recurrence` (the RWA/RDA time loop)
and `keras_rda.ops.parallel_scan` (the parallel RDA's running average),
written as one kernel per pass for the backends that can compile one:

- JAX: Pallas (`pallas_recurrence`, `pallas_scan`), differentiated with
  `jax.custom_vjp`;
- PyTorch: Triton (`triton_recurrence`, `triton_scan`), each registered as
  one `torch.library` op with its autograd and fake (meta) implementations,
  so that Keras's torch trainer and `torch.compile` see one op.

TensorFlow keeps the portable path. The layers choose as Keras chooses
cuDNN for its LSTM (`use_cudnn`): their `use_kernel` argument is `"auto"`
(the kernel where it can run, the portable path otherwise, the same
results), `True` (the kernel, or one `ValueError` saying why it cannot run)
or `False` (never). `choose` is that rule.

A kernel can run when the backend has one, a GPU is there (or interpret
mode is asked for, below), and the layer's configuration is one the kernel
computes (each layer names what it does not: `unroll=True`, a dtype other
than float32 or mixed float16/bfloat16, ...).

Interpret mode. `KERAS_RDA_KERNEL_INTERPRET=1` runs the kernels on a CPU
through their interpreters (`interpret=True` for Pallas, `TRITON_INTERPRET=1`
for Triton): slow, exact, and how CI tests them without a GPU.

Nothing here imports JAX, PyTorch or Triton at import time, and Triton is
imported only when the PyTorch backend asks for a kernel: importing it in a
process that has loaded TensorFlow aborts that process (LLVM's
"inconsistency in registered CommandLine options").
"""

import os

import keras

#: The backends with a kernel, and the language it is written in.
KERNEL_BACKENDS = {"jax": "Pallas", "torch": "Triton"}
#: Values of the layers' `use_kernel` argument.
USE_KERNEL_VALUES = ("auto", True, False)
#: The environment variable that runs the kernels on a CPU in interpret mode.
INTERPRET_VARIABLE = "KERAS_RDA_KERNEL_INTERPRET"
#: The widest RDA/RWA layer the recurrence kernel takes: one program keeps
#: its batch rows' whole state (`h, n, d, m`, about a dozen
#: `[16, units]` float32 tiles) on chip through the loop, which already
#: spills registers at 256 units (ptxas for sm_90). Wider layers, such as
#: the enwik8 preset's 1,800 units, take the portable path under "auto".
MAX_RECURRENCE_UNITS = 512


def validate_use_kernel(value):
    """Returns `value` if it is one of `USE_KERNEL_VALUES`, else raises."""
    if value is not True and value is not False and value != "auto":
        raise ValueError(
            "Received an invalid value for argument `use_kernel`, expected "
            f'"auto", True or False, got {value!r}'
        )
    return value


def interpret_mode():
    """Whether the kernels are asked to run in interpret mode (on a CPU)."""
    return os.environ.get(INTERPRET_VARIABLE, "") == "1"


def _on_gpu(backend):
    if backend == "jax":
        import jax

        return jax.default_backend() == "gpu"
    import torch

    return torch.cuda.is_available()


def _has_triton():
    import importlib.util

    return importlib.util.find_spec("triton") is not None


def unavailable_reason():
    """Why no kernel can run in this process, or None if one can.

    Returns:
        None, or a sentence: the backend has no kernel, there is no GPU
        (and interpret mode is not asked for), or Triton is not installed.
    """
    backend = keras.backend.backend()
    if backend not in KERNEL_BACKENDS:
        return (
            f"the fused kernels exist on JAX (Pallas) and PyTorch (Triton); "
            f"the backend is {backend}"
        )
    if backend == "torch" and not _has_triton():
        return (
            "Triton is not installed (it comes with PyTorch's CUDA builds on "
            "Linux, or `pip install triton`)"
        )
    if not interpret_mode() and not _on_gpu(backend):
        return (
            f"no GPU is visible to {backend} (set {INTERPRET_VARIABLE}=1 to "
            "run the kernels in interpret mode on a CPU, for tests)"
        )
    return None


def choose(use_kernel, unsupported=None, layer_name="layer"):
    """Whether to run the kernel, by Keras's `use_cudnn` rule.

    Args:
        use_kernel: the layer's `use_kernel`: `"auto"`, True or False.
        unsupported: None, or a sentence naming what in the layer's
            configuration the kernel does not compute.
        layer_name: the layer's name, for the error.

    Returns:
        True to run the kernel, False for the portable path.

    Raises:
        ValueError: `use_kernel=True` where the kernel cannot run.
    """
    if use_kernel is False:
        return False
    reason = unsupported or unavailable_reason()
    if reason is None:
        return True
    if use_kernel is True:
        raise ValueError(
            f"Layer {layer_name!r} was given use_kernel=True, but its fused "
            f"kernel cannot run: {reason}. Pass use_kernel='auto' to fall "
            "back to the portable path."
        )
    return False


def recurrence(
    projected, recurrent_kernel, initial_state, spec, mask=None, recurrent_mask=None
):
    """`keras_rda.ops.rda_recurrence.fused_recurrence`, as one kernel per pass.

    The same arguments and results (time-major); see there. Call it only
    where `choose` said yes.
    """
    if keras.backend.backend() == "jax":
        from keras_rda.ops.kernels import pallas_recurrence as kernel
    else:
        from keras_rda.ops.kernels import triton_recurrence as kernel
    return kernel.recurrence(
        projected,
        recurrent_kernel,
        initial_state,
        spec,
        mask=mask,
        recurrent_mask=recurrent_mask,
        interpret=interpret_mode(),
    )


def discounted_average_scan(features, log_a, log_gamma, positive, initial_state):
    """`keras_rda.ops.parallel_scan.discounted_average_scan`, as one kernel
    per pass (chunked, two passes).

    The same arguments (without the method) and results; see there. Call it
    only where `choose` said yes.
    """
    if keras.backend.backend() == "jax":
        from keras_rda.ops.kernels import pallas_scan as kernel
    else:
        from keras_rda.ops.kernels import triton_scan as kernel
    return kernel.discounted_average_scan(
        features,
        log_a,
        log_gamma,
        positive,
        initial_state,
        interpret=interpret_mode(),
    )
