"""Importing the Triton kernel modules, in the mode the process chose.

Triton reads `TRITON_INTERPRET` when `triton.jit` decorates a kernel, so
interpret mode is decided once per process, before the first kernel module
is imported. `kernel_module` sets it on that first import when asked and
refuses a later request for interpret mode once kernels were compiled. It
imports Triton only through the module it loads (never at its own import).
"""

import importlib
import os

# The mode of the first kernel module imported in this process (None: no
# module imported yet).
_interpreted = None


def interpreted():
    """Whether this process runs the Triton kernels in interpret mode
    (False before the first kernel module is imported)."""
    return bool(_interpreted)


def kernel_module(name, interpret=None):
    """The kernel module `keras_rda.ops.kernels.NAME`, imported on first use.

    Args:
        name: the module's name, e.g. `"_triton_recurrence_jit"`.
        interpret: True to interpret, False or None for the mode the
            process already has (compiled, unless `TRITON_INTERPRET=1`).

    Raises:
        RuntimeError: interpret mode was asked for after kernels were
            compiled in this process.
    """
    global _interpreted
    if _interpreted is None:
        if interpret:
            os.environ["TRITON_INTERPRET"] = "1"
        _interpreted = os.environ.get("TRITON_INTERPRET", "") == "1"
    elif interpret and not _interpreted:
        raise RuntimeError(
            "The Triton kernels were asked for interpret mode, but kernels were "
            "already compiled for the GPU in this process (Triton decides when "
            "it first decorates them): set KERAS_RDA_KERNEL_INTERPRET=1 or "
            "TRITON_INTERPRET=1 before the first call."
        )
    return importlib.import_module(f"keras_rda.ops.kernels.{name}")
