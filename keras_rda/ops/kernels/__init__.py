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
cuDNN for its LSTM (`use_cudnn`), by their `use_kernel` argument, and
`choose` is the rule:

- `"auto"` (the default) runs a kernel only where a committed GPU record
  shows it faster than the portable path, for that kernel, backend and
  device class (`MEASURED_FASTER`; empty today, so `"auto"` is the
  portable path everywhere), and where it can run (below). Anywhere else
  it runs the portable path, with the same results: it never raises where
  the portable path runs.
- `True` runs the kernel wherever it can run, measured or not, and raises
  one `ValueError` naming `use_kernel` and the reason where it cannot.
- `False` never runs it.

Precision. The recurrence kernels' per-step matmuls (`(h_{t-1} r) R`
forward, `dG_t R^T` backward) run in IEEE float32 by default; the layers'
`kernel_precision` argument (`KERNEL_PRECISIONS`) runs them on tensor cores
as TF32 (`"tf32"`: operands truncated to 10 mantissa bits) or bfloat16
(`"bfloat16"`: operands rounded to bfloat16), accumulating in float32 either
way. The state, the element-wise work and the gradient of `R` (one matmul
over all steps after the backward loop) stay float32. The scan kernels have
no matmul. The portable path ignores the argument.

A kernel can run when the backend has one and a GPU is there (or interpret
mode is asked for, below); the GPU is a CUDA device (not ROCm) of compute
capability 8.0 or later, with the shared memory per block the configuration
needs where the backend tells the device's limit (PyTorch; JAX does not);
the sequence is within the kernel's size limits (the Triton kernels index
in int32: fewer than 2**31 elements per tensor; CUDA's grid limits); and
the layer's configuration is one the kernel computes (each layer names
what it does not: `unroll=True`, a dtype other than float32 or mixed
float16/bfloat16, ...). Each of these, where it fails, is one sentence
(`cannot_run_reason`): the reason "auto" falls back, and the message of
`True`'s error.

Interpret mode. `KERAS_RDA_KERNEL_INTERPRET=1` runs the kernels on a CPU
through their interpreters (`interpret=True` for Pallas, `TRITON_INTERPRET=1`
for Triton): slow, exact, and how CI tests them without a GPU.

Nothing here imports JAX, PyTorch or Triton at import time, and Triton is
imported only when the PyTorch backend asks for a kernel: importing it in a
process that has loaded TensorFlow aborts that process (LLVM's
"inconsistency in registered CommandLine options").
"""

import collections
import math
import os

import keras

from keras_rda.utils import validation

#: The backends with a kernel, and the language it is written in.
KERNEL_BACKENDS = {"jax": "Pallas", "torch": "Triton"}
#: Values of the layers' `use_kernel` argument.
USE_KERNEL_VALUES = ("auto", True, False)
#: Values of the RDA/RWA layers' `kernel_precision` argument: the operands
#: of the recurrence kernels' per-step matmuls, accumulated in float32.
KERNEL_PRECISIONS = ("float32", "tf32", "bfloat16")
#: The environment variable that runs the kernels on a CPU in interpret mode.
INTERPRET_VARIABLE = "KERAS_RDA_KERNEL_INTERPRET"
#: The widest RDA/RWA layer the recurrence kernel takes: one program keeps
#: its batch rows' whole state (`h, n, d, m`, about a dozen
#: `[16, units]` float32 tiles) on chip through the loop, which already
#: spills registers at 256 units (ptxas for sm_90). Wider layers, such as
#: the enwik8 preset's 1,800 units, take the portable path under "auto".
MAX_RECURRENCE_UNITS = 512
#: The oldest CUDA compute capability the kernels run on (Ampere, sm_80).
MIN_COMPUTE_CAPABILITY = (8, 0)
#: Elements a tensor of a Triton kernel may hold: its offsets are int32.
#: (The Pallas scan switches to 64-bit offsets itself.)
INT32_ELEMENTS = 2**31
#: Programs a CUDA grid may launch along its second and third axes.
MAX_GRID_YZ = 65535
#: Where a committed GPU record shows a kernel faster than the portable
#: path: `(kernel, backend, device class)` -> the record's path in the
#: repository, e.g. `("recurrence", "torch", "sm_90"):
#: "results/benchmarks/....json"`; `kernel` is "recurrence" (RDA, RWA) or
#: "scan" (ParallelRDA), the device class `device_class`'s. `"auto"` runs a
#: kernel only here. No record shows one faster yet, so it is empty.
MEASURED_FASTER = {}
#: Kernels that never enter `MEASURED_FASTER` (a test refuses the entry),
#: whatever a record shows: `(kernel, backend)` -> why. `use_kernel=True`
#: still runs them.
NEVER_AUTO = {
    ("recurrence", "jax"): (
        "the Pallas recurrence compiles for minutes (about 350 s forward and "
        "530 s backward at 250 units, for an H100) and ptxas reports 44-161 KB "
        "of register spills in it (issue 81): it stays out of use_kernel='auto'"
    ),
}

#: What a layer asks a kernel to compute, for the size and shared-memory
#: checks: `kernel` "recurrence" or "scan"; the sequence's `batch` and
#: `time` (None where unknown); `units`; `blocks`, the gate blocks per unit
#: of the widest input (`k` for the recurrence, 1 for the scan).
Workload = collections.namedtuple(
    "Workload", ["kernel", "batch", "time", "units", "blocks"], defaults=(None,) * 4
)

#: A GPU as the backend reports it: `platform` "cuda" or "rocm" (or what
#: else the backend names), the device's `name`, its compute `capability`
#: `(major, minor)` (None where unknown) and the `shared_memory_per_block`
#: in bytes a kernel may opt into (None where the backend does not say).
Device = collections.namedtuple(
    "Device", ["platform", "name", "capability", "shared_memory_per_block"]
)


def validate_use_kernel(value):
    """Returns `value` if it is one of `USE_KERNEL_VALUES`, else raises."""
    if value is not True and value is not False and value != "auto":
        raise ValueError(
            "Received an invalid value for argument `use_kernel`, expected "
            f'"auto", True or False, got {value!r}'
        )
    return value


def validate_kernel_precision(value):
    """Returns `value` if it is one of `KERNEL_PRECISIONS`, else raises."""
    return validation.one_of("kernel_precision", value, KERNEL_PRECISIONS)


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


def gpu_device(backend=None):
    """The GPU the backend computes on, as a `Device`, or None (no GPU).

    PyTorch: the current CUDA device (`torch.version.hip` tells ROCm), with
    its opt-in shared memory per block where the build reports it. JAX: the
    first device, CUDA or ROCm by the client's platform version; JAX does
    not report shared memory.
    """
    backend = backend or keras.backend.backend()
    if backend == "torch":
        import torch

        if not torch.cuda.is_available():
            return None
        properties = torch.cuda.get_device_properties(torch.cuda.current_device())
        return Device(
            platform="rocm" if getattr(torch.version, "hip", None) else "cuda",
            name=properties.name,
            capability=(properties.major, properties.minor),
            shared_memory_per_block=getattr(
                properties, "shared_memory_per_block_optin", None
            ),
        )
    if backend == "jax":
        import jax

        if jax.default_backend() != "gpu":
            return None
        device = jax.devices()[0]
        version = str(getattr(device.client, "platform_version", "")).lower()
        platform = next((p for p in ("rocm", "cuda") if p in version), version)
        return Device(
            platform=platform,
            name=device.device_kind,
            capability=_capability(getattr(device, "compute_capability", None)),
            shared_memory_per_block=None,
        )
    return None


def _capability(text):
    try:
        major, minor = str(text).split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return None


def device_class(device):
    """`"sm_<major><minor>"` of a CUDA `Device` (e.g. "sm_90"), the key of
    `MEASURED_FASTER`; None for another device or an unknown capability."""
    if device is None or device.platform != "cuda" or device.capability is None:
        return None
    return "sm_{}{}".format(*device.capability)


def device_reason(device, shared_memory_needed=None):
    """Why the kernels cannot run on `device`, or None.

    Args:
        device: a `Device`.
        shared_memory_needed: None, or the bytes of shared memory per block
            the configuration needs.

    Returns:
        None, or a sentence: not a CUDA device, a compute capability below
        `MIN_COMPUTE_CAPABILITY` (or unknown), or more shared memory than
        the device gives a block.
    """
    if device.platform != "cuda":
        return (
            f"the kernels run on CUDA GPUs; {device.name} is a "
            f"{device.platform or 'non-CUDA'} device"
        )
    oldest = "{}.{}".format(*MIN_COMPUTE_CAPABILITY)
    if device.capability is None:
        return (
            f"the kernels need compute capability {oldest} or later, and the "
            f"backend does not report that of {device.name}"
        )
    if tuple(device.capability) < MIN_COMPUTE_CAPABILITY:
        return (
            f"the kernels need compute capability {oldest} or later; "
            f"{device.name} has " + "{}.{}".format(*device.capability)
        )
    limit = device.shared_memory_per_block
    if shared_memory_needed is not None and limit is not None:
        if shared_memory_needed > limit:
            return (
                f"this configuration needs {shared_memory_needed:,} bytes of "
                f"shared memory per block, and {device.name} gives a block "
                f"{limit:,}"
            )
    return None


def int32_reason(what, shape):
    """Why a tensor of `shape` is too large for int32 offsets, or None.

    Args:
        what: the tensor, in words (e.g. "the input projections").
        shape: its shape; an unknown (None) dimension is not checked.
    """
    if any(s is None for s in shape):
        return None
    size = math.prod(shape)
    if size < INT32_ELEMENTS:
        return None
    return (
        f"{what} of shape {tuple(shape)} hold {size:,} elements, and the "
        "Triton kernels index in int32: fewer than 2**31"
    )


def grid_reason(what, programs):
    """Why `programs` programs along a CUDA grid's second or third axis are
    too many (more than `MAX_GRID_YZ`), or None."""
    if programs is None or programs <= MAX_GRID_YZ:
        return None
    return (
        f"{what} make {programs:,} programs along one axis of the kernel's "
        f"grid, and CUDA launches at most {MAX_GRID_YZ:,} there"
    )


def size_reason(workload, backend=None):
    """Why the backend's kernel cannot take `workload`'s sizes, or None."""
    backend = backend or keras.backend.backend()
    if workload is None or backend != "torch":
        return None
    if workload.kernel == "scan":
        from keras_rda.ops.kernels import triton_scan

        return triton_scan.size_reason(workload.batch, workload.time, workload.units)
    from keras_rda.ops.kernels import triton_recurrence

    return triton_recurrence.size_reason(
        workload.time, workload.batch, workload.units, workload.blocks
    )


def shared_memory_needed(workload, backend=None):
    """The bytes of shared memory per block the backend's kernel needs for
    `workload`, or None where it is not a constraint or not known: the
    Triton recurrence's (it grows with the units); the scan's tiles are a
    few KB, under every CUDA device's 48 KB."""
    backend = backend or keras.backend.backend()
    if workload is None or backend != "torch" or workload.kernel != "recurrence":
        return None
    if workload.units is None:
        return None
    from keras_rda.ops.kernels import triton_recurrence

    return triton_recurrence.shared_memory_bytes(workload.units)


def cannot_run_reason(workload=None):
    """Why the kernel cannot run here for `workload`, or None.

    In order: `unavailable_reason` (backend, Triton, a GPU); on a GPU (not
    in interpret mode) `device_reason`; `size_reason`.
    """
    reason = unavailable_reason()
    if reason is not None:
        return reason
    backend = keras.backend.backend()
    if not interpret_mode():
        device = gpu_device(backend)
        if device is not None:
            reason = device_reason(device, shared_memory_needed(workload, backend))
            if reason is not None:
                return reason
    return size_reason(workload, backend)


def measured_faster(workload=None):
    """The committed record that shows `workload`'s kernel faster than the
    portable path on this backend and device class, or None (in interpret
    mode, off a GPU, or where `MEASURED_FASTER` has no entry)."""
    if interpret_mode():
        return None
    backend = keras.backend.backend()
    kernel = "recurrence" if workload is None else workload.kernel
    return MEASURED_FASTER.get((kernel, backend, device_class(gpu_device(backend))))


def choose(use_kernel, unsupported=None, layer_name="layer", workload=None):
    """Whether to run the kernel, by the rule of the module's docstring.

    Args:
        use_kernel: the layer's `use_kernel`: `"auto"`, True or False.
        unsupported: None, or a sentence naming what in the layer's
            configuration the kernel does not compute.
        layer_name: the layer's name, for the error.
        workload: None, or the `Workload` the kernel would compute (its
            sizes are checked; its `kernel` is looked up in
            `MEASURED_FASTER`; None: the recurrence, sizes unknown).

    Returns:
        True to run the kernel, False for the portable path. `"auto"` gives
        True only where `measured_faster` names a record and
        `cannot_run_reason` gives None.

    Raises:
        ValueError: `use_kernel=True` where the kernel cannot run.
    """
    if use_kernel is False:
        return False
    if use_kernel == "auto" and measured_faster(workload) is None:
        return False
    reason = unsupported or cannot_run_reason(workload)
    if use_kernel is True:
        if reason is not None:
            raise ValueError(
                f"Layer {layer_name!r} was given use_kernel=True, but its fused "
                f"kernel cannot run: {reason}. Pass use_kernel='auto' to fall "
                "back to the portable path."
            )
        return True
    return reason is None and measured_faster(workload) is not None


def recurrence(
    projected,
    recurrent_kernel,
    initial_state,
    spec,
    mask=None,
    recurrent_mask=None,
    precision="float32",
):
    """`keras_rda.ops.rda_recurrence.fused_recurrence`, as one kernel per pass.

    The same arguments and results (time-major); see there. `precision`,
    one of `KERNEL_PRECISIONS`, is that of the per-step matmuls (the
    module's docstring). Call it only where `choose` said yes.
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
        precision=validate_kernel_precision(precision),
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
