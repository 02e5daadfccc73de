"""The RWA/RDA recurrence as two Triton kernels (PyTorch): forward and backward.

Computes exactly `keras_rda.ops.rda_recurrence.fused_recurrence`, the RDA
unit of the RDA paper, section 5 (the RWA being `gamma_t = 1`), with the
scaled running average of `keras_rda.ops.attention_average` (RWA paper,
Appendix D). Masked steps keep the state and repeat `h_{t-1}`; `h_t` is
rounded to the dtype of `h_0` every step, as on the portable path.

Equations: see `keras_rda.ops.rda_recurrence` (the forward step and the
closed-form backward step, written out once there).

The op. Both passes are one `torch.library` custom op,
`keras_rda::rda_recurrence`, with its autograd (`register_autograd`) and
fake (`register_fake`, shapes and dtypes only) implementations, so that
Keras's torch trainer and `torch.compile` see one op. Its backward calls a
second custom op, `keras_rda::rda_recurrence_backward` (the backward
kernel, with its own fake implementation, so that `torch.compile` can trace
the backward graph too), then one matmul.

Passes. The forward pass is ONE kernel launch: the whole time loop runs
inside it, and the state `(h, n, d, m)` stays in float32 registers from the
first step to the last. The backward pass is a second launch running time in
reverse, carrying the gradients `(dh, dn, dd, dm)` of the state with the
closed-form step of `rda_recurrence` (see its docstring), and writes `dP_t`
per step. After it, `dR = sum_t (h_{t-1} r)^T dG_t` is one torch matmul over
all `time * batch` rows. Gradients flow to `projected`, `recurrent_kernel`
and the four initial states (`m_0` gets what the portable path gives it:
the gradient of `m_0 + log gamma_1` at the first real step).

Saved for the backward pass (float32): the gate pre-activations `G_t`
`[time, batch, (k - 1) units]` and the state after every step `n_t`, `d_t`,
`m_t` `[time, batch, units]`, besides `h_t` (the output anyway). The
backward recomputes from them, element-wise, `tanh g_t`, `log a_t`,
`log gamma_t`, the weights `p_t`, `q_t` and `f_h(n_t / d_t)`; it does not
recompute the recurrent matmul. Without a gradient to compute (grad mode off,
or no input requiring one) the forward kernel writes only `h_t` and the
final `(n, d, m)`.

Tiling. The grid runs over tiles of `BLOCK_BATCH` batch rows: rows are
independent, so the programs never synchronise with each other. A program
holds all the units in register tiles as wide as the next power of two
(at least 16: `tl.arange` and `tl.dot` need powers of two; loads and
stores are masked). The recurrent matmul of a step reads its left operand
(`h_{t-1}` forward, `dG_t` backward) back from the output the program has
just written (after a barrier), in chunks of `BLOCK_K` columns up to the
units rounded up to a multiple of `BLOCK_K` (not to the power of two: 9
chunks at 257 units, not 16), and `R` in `[BLOCK_K, units]` tiles from the
cache at every step: at 250 units `R` is 768 KB, more than on-chip memory.
`R` goes to the kernels with each gate block zero-padded to that multiple
of `BLOCK_K` rows and columns (`_padded_recurrent_kernel`), so that its
rows and blocks start 128-byte aligned. The dots are IEEE float32
(`input_precision="ieee"`) by default; `precision="tf32"` runs them as TF32
on tensor cores (`input_precision="tf32"`, the operands truncated to 10
mantissa bits) and `"bfloat16"` rounds their operands to bfloat16; both
accumulate in float32, and `dR` stays a float32 matmul.

Supports: RDA and RWA (`discount`), attention `exp`, `sigmoid`, `softplus`,
`relu`, hidden activation `linear` or `tanh`, a step mask, a recurrent
dropout mask, given initial states, and float32, float16 or bfloat16 inputs
(computed in float32; results in the dtypes `fused_recurrence` returns).
Not float64 (`unsupported_reason`), nor `time * batch * k * units` of
2**31 or more (the kernels index in int32: `size_reason`, a `ValueError`
here, the portable path under the layers' `use_kernel="auto"`). The shared
memory a block needs grows with the units (`shared_memory_bytes`), which
the layers check against the device's limit.

Interpret mode. `recurrence(..., interpret=True)` runs the kernels through
Triton's interpreter on CPU tensors (CI): Triton reads `TRITON_INTERPRET`
when `triton.jit` decorates, so this module imports its kernels (and so
Triton) only on the first call, after setting `TRITON_INTERPRET=1` when
interpret mode is asked for; the choice holds for the process. Never import
this module in a process that has loaded TensorFlow: importing Triton there
aborts it.
"""

import collections

import torch

from keras_rda.ops import attention_average
from keras_rda.ops import kernels as _kernel_rules
from keras_rda.ops import rda_recurrence
from keras_rda.ops.kernels import _triton_import

#: Batch rows per program (`tl.dot` needs at least 16).
BLOCK_BATCH = 16
#: Columns of the left operand per dot of the recurrent matmul, and the
#: multiple the K loop and `R`'s padded rows and blocks round the units to
#: (32 floats: 128-byte aligned rows).
BLOCK_K = 32
#: The smallest padded number of units (`tl.dot` needs 16).
MIN_UNITS = 16
#: Warps per program by register-tile width: `(widest BLOCK_U, warps)` in
#: order, and `MAX_WARPS` past the last (`_launch_config`).
WARPS_BY_BLOCK_UNITS = ((64, 4), (128, 8))
MAX_WARPS = 16
#: Buffers Triton's software pipeline gives each dot operand it stages in
#: shared memory (the default `num_stages=3` keeps two in flight).
PIPELINE_BUFFERS = 2
#: Bytes of a float32, the widest operand the dots stage (float16 and
#: bfloat16 inputs stage less: `shared_memory_bytes`).
FLOAT32_BYTES = 4

_ATTENTION = attention_average.ATTENTION_ACTIVATIONS
_HIDDEN = attention_average.HIDDEN_ACTIVATIONS
_INPUT_DTYPES = ("float32", "float16", "bfloat16")
#: The kernels' code of each `precision` (`_triton_recurrence_jit`'s
#: `FLOAT32`, `TF32`, `BFLOAT16`).
_PRECISION_CODES = {"float32": 0, "tf32": 1, "bfloat16": 2}
#: The float32 bits a TF32 operand keeps (sign, exponent, 10 mantissa
#: bits), as an int32: `0xFFFFE000`.
_TF32_MASK = -(2**13)


def unsupported_reason(spec, dtype):
    """Why the kernel cannot compute this configuration, or None.

    Args:
        spec: a `rda_recurrence.RecurrenceSpec`.
        dtype: the compute dtype of `projected` (a name or a torch dtype).

    Returns:
        None, or a short sentence naming what is not supported.
    """
    name = _dtype_name(dtype)
    if name not in _INPUT_DTYPES:
        return (
            "the Triton recurrence computes in float32 and takes float32, "
            f"float16 or bfloat16 inputs, not {name}"
        )
    acc = _dtype_name(spec.acc_dtype)
    if acc != "float32":
        return f"the Triton recurrence accumulates in float32, not {acc}"
    if spec.attention_activation not in _ATTENTION:
        return f"attention_activation={spec.attention_activation!r} has no kernel"
    if spec.hidden_activation not in _HIDDEN:
        return f"hidden_activation={spec.hidden_activation!r} has no kernel"
    return None


def size_reason(time, batch, units, blocks):
    """Why the kernels cannot take a sequence of this size, or None.

    Args:
        time, batch: the sequence's steps and rows (None where unknown).
        units: the layer's units.
        blocks: `k`, the gate blocks per unit (4 for RDA, 3 for RWA).

    Returns:
        None, or a sentence: the input projections `[time, batch,
        k * units]`, the largest tensor the kernels index, reach 2**31
        elements (their offsets are int32).
    """
    return _kernel_rules.int32_reason(
        "the input projections [time, batch, k * units]",
        (time, batch, blocks * units),
    )


def shared_memory_bytes(units):
    """An upper bound of the shared memory per block either kernel needs at
    `units`, in bytes, for every configuration (the layers check it against
    the device's limit before they choose the kernel).

    What Triton stages in shared memory for the recurrent matmul's dots,
    float32 (`PIPELINE_BUFFERS` buffers of each operand it pipelines):

    - a `[BLOCK_K, BLOCK_U]` tile of `R` and a `[BLOCK_BATCH, BLOCK_K]`
      tile of the left operand (`h_{t-1}` forward, `dG_t` backward);
    - with recurrent dropout, in the forward, a `[BLOCK_BATCH, BLOCK_K]`
      tile of the mask `r`, and one unbuffered tile of the product
      `h_{t-1} r` that the dot reads.

    This is the forward's figure with recurrent dropout, the largest:
    Triton's own (`metadata.shared`, `benchmarks/kernel_compile.py`,
    `results/benchmarks/kernel_compile.json`) at 64 to 512 units for sm_80
    and sm_90; the backward stages no mask (6 KB less), float16 and
    bfloat16 inputs stage less, and at 32 units or fewer Triton does not
    pipeline the dots (a fraction of this).
    """
    config = _launch_config(units)
    left = BLOCK_BATCH * config.block_k
    staged = config.block_k * config.block_units + left + left  # R, h, r
    return FLOAT32_BYTES * (PIPELINE_BUFFERS * staged + left)  # + h * r


def recurrence(
    projected,
    recurrent_kernel,
    initial_state,
    spec,
    mask=None,
    recurrent_mask=None,
    precision="float32",
    interpret=False,
):
    """`rda_recurrence.fused_recurrence` as one forward and one backward kernel.

    Args:
        projected: `[time, batch, k * units]` torch tensor, `W x_t + b` of
            every step (blocks u, g, a[, gamma]).
        recurrent_kernel: `[units, (k - 1) * units]`.
        initial_state: `[h_0, n_0, d_0, m_0]`, each `[batch, units]`.
        spec: a `rda_recurrence.RecurrenceSpec`.
        mask: None or boolean `[time, batch, 1]`, False at steps to skip.
        recurrent_mask: None or `[batch, units]`, the recurrent dropout mask
            applied to `h_{t-1}`.
        precision: the per-step matmuls' operands: `"float32"` (IEEE),
            `"tf32"` or `"bfloat16"` (`kernels.KERNEL_PRECISIONS`),
            accumulated in float32.
        interpret: whether to run the kernels through Triton's interpreter
            (CPU tensors). Decided at the first call in the process.

    Returns:
        `(hidden, n, d, m)`: `hidden` `[time, batch, units]` in the dtype of
        `h_0`, the state `h_t` after every step (a skipped step repeats the
        previous one), and the final scaled sums and log scale, each
        `[batch, units]` in the dtypes of `n_0`, `d_0`, `m_0`.

    Raises:
        ValueError: the shapes do not fit `spec`, the sequence is empty, or
            `unsupported_reason` names the configuration, or `precision`
            is not one of `kernels.KERNEL_PRECISIONS`.
        RuntimeError: interpret mode asked for after the kernels were
            compiled for the GPU in this process.
    """
    reason = unsupported_reason(spec, projected.dtype)
    if reason is not None:
        raise ValueError(f"The Triton recurrence cannot run: {reason}.")
    _kernel_rules.validate_kernel_precision(precision)
    _check_shapes(projected, recurrent_kernel, initial_state, spec)
    _kernels(interpret)
    h0, n0, d0, m0 = initial_state
    inputs = [projected, recurrent_kernel, h0, n0, d0, m0]
    save = torch.is_grad_enabled() and any(
        x.requires_grad for x in inputs if x is not None
    )
    if recurrent_mask is not None:
        recurrent_mask = recurrent_mask.expand(h0.shape)
    hidden, n, d, m, *_ = rda_recurrence_op(
        projected=projected,
        recurrent_kernel=recurrent_kernel,
        h0=h0,
        n0=n0,
        d0=d0,
        m0=m0,
        mask=mask,
        recurrent_mask=recurrent_mask,
        discount=bool(spec.discount),
        attention_activation=spec.attention_activation,
        hidden_activation=spec.hidden_activation,
        precision=precision,
        save=save,
    )
    return hidden, n, d, m


# ------------------------------------------------------------------ checks


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _cdiv(a, b):
    """`ceil(a / b)` for positive ints (Triton's `cdiv`, without Triton)."""
    return -(-a // b)


def _check_shapes(projected, recurrent_kernel, initial_state, spec):
    units = spec.units
    blocks = rda_recurrence.projection_blocks(spec.discount)
    if projected.ndim != 3 or projected.shape[-1] != blocks * units:
        raise ValueError(
            "Received an invalid value for argument `projected`, expected "
            f"shape [time, batch, {blocks * units}], got {tuple(projected.shape)}"
        )
    if projected.shape[0] == 0:
        raise ValueError(
            "Received an invalid value for argument `projected`, expected at "
            "least one time step, got shape "
            f"{tuple(projected.shape)}"
        )
    if projected.numel() >= _kernel_rules.INT32_ELEMENTS:
        raise ValueError(
            "Received an invalid value for argument `projected`, expected "
            f"fewer than {_kernel_rules.INT32_ELEMENTS:,} (2**31) elements (the "
            f"kernels index in int32), got shape {tuple(projected.shape)}"
        )
    expected = (units, (blocks - 1) * units)
    if tuple(recurrent_kernel.shape) != expected:
        raise ValueError(
            "Received an invalid value for argument `recurrent_kernel`, "
            f"expected shape {expected}, got {tuple(recurrent_kernel.shape)}"
        )
    batch = projected.shape[1]
    shapes = [tuple(s.shape) for s in initial_state]
    if len(shapes) != 4 or any(s != (batch, units) for s in shapes):
        raise ValueError(
            "Received an invalid value for argument `initial_state`, expected "
            f"4 tensors of shape {(batch, units)}, got shapes {shapes}"
        )


# ----------------------------------------------------------------- kernels


def _kernels(interpret=None):
    """The kernel module, imported (and Triton with it) on the first call
    (`_triton_import.kernel_module`: the process's one interpret mode)."""
    return _triton_import.kernel_module("_triton_recurrence_jit", interpret)


#: How the kernels are launched at a number of units: `block_units`, the
#: register tiles' width (a power of two, `tl.arange` needs one);
#: `block_k`, the columns of the left operand per dot; `padded_units`, the
#: recurrent matmul's reduction length and the padded width of `R`'s rows
#: and gate blocks (`units` rounded up to a multiple of `block_k`: what
#: the K loop runs over, rather than `block_units`); `num_warps`.
class LaunchConfig(
    collections.namedtuple(
        "LaunchConfig", ["block_units", "block_k", "padded_units", "num_warps"]
    )
):
    @property
    def launch(self):
        """The launch's block sizes and warps, as keyword arguments."""
        return dict(
            BLOCK_B=BLOCK_BATCH,
            BLOCK_U=self.block_units,
            BLOCK_K=self.block_k,
            U_PAD=self.padded_units,
            num_warps=self.num_warps,
        )


def _launch_config(units):
    """The `LaunchConfig` for `units`.

    A program holds about a dozen `[BLOCK_BATCH, BLOCK_U]` float32 tiles;
    the warps grow with `BLOCK_U` to spread them (ptxas for sm_90 without a
    GPU: 255 registers and a few hundred bytes of spills per thread from 64
    units at 4 warps; at 256 units 128 registers at 16 warps with about
    1 KB; `benchmarks/kernel_compile.py` measures them). Not yet tuned on a
    GPU.
    """
    block_u = max(MIN_UNITS, 1 << (units - 1).bit_length())
    block_k = min(block_u, BLOCK_K)
    padded = _cdiv(units, block_k) * block_k
    num_warps = next(
        (warps for widest, warps in WARPS_BY_BLOCK_UNITS if block_u <= widest),
        MAX_WARPS,
    )
    return LaunchConfig(block_u, block_k, padded, num_warps)


def _grid(batch):
    """One program per tile of `BLOCK_BATCH` rows."""
    return (_cdiv(batch, BLOCK_BATCH),)


def _constants(discount, attention, hidden, step_mask, recurrent_mask, precision):
    """The kernels' `constexpr` switches, as keyword arguments."""
    return dict(
        PRECISION=_PRECISION_CODES[precision],
        EMULATE=_triton_import.interpreted(),
        DISCOUNT=discount,
        ATTENTION=_attention_code(attention),
        TANH_HIDDEN=hidden == "tanh",
        HAS_MASK=step_mask is not None,
        HAS_RECURRENT_MASK=recurrent_mask is not None,
    )


def _padded_recurrent_kernel(recurrent_kernel, padded_units):
    """`R` `[units, K * units]` as `[padded_units, K * padded_units]`, each
    gate block zero-padded to `padded_units` rows and columns: every row and
    block starts at a multiple of `BLOCK_K` floats, so that the kernels'
    loads of `R` are aligned (vector) loads."""
    units, width = recurrent_kernel.shape
    if padded_units == units:
        return recurrent_kernel.contiguous()
    extra = padded_units - units
    blocks = recurrent_kernel.reshape(units, width // units, units)
    blocks = torch.nn.functional.pad(blocks, (0, extra, 0, 0, 0, extra))
    return blocks.reshape(padded_units, -1).contiguous()


def _recurrent_operand(recurrent_kernel, padded_units, precision):
    """`R` as the kernels read it: padded (`_padded_recurrent_kernel`), and
    for a reduced `precision` rounded once here rather than at every step
    in the kernel: to bfloat16 (to nearest, ties to even: half the bytes to
    read per step), or, in interpret mode, truncated to TF32's 10 mantissa
    bits (on a GPU the tensor cores ignore the bits themselves)."""
    padded = _padded_recurrent_kernel(recurrent_kernel, padded_units)
    if precision == "bfloat16":
        return padded.to(torch.bfloat16)
    if precision == "tf32" and _triton_import.interpreted():
        bits = padded.to(torch.float32).view(torch.int32) & _TF32_MASK
        return bits.view(torch.float32)
    return padded


def _attention_code(name):
    return _ATTENTION.index(name)


def _step_mask(mask, time, batch):
    """The step mask as int8 `[time, batch]`, or None."""
    if mask is None:
        return None
    return mask.reshape(time, batch).to(torch.int8).contiguous()


def _launch_arguments(
    projected,
    recurrent_kernel,
    n0,
    d0,
    m0,
    mask,
    recurrent_mask,
    discount,
    attention,
    hidden,
    precision,
):
    """What both kernels take from the forward op's inputs, as keyword
    arguments: `P`, `R` (`_recurrent_operand`), `N0`, `D0`, `M0`, the masks
    `MASK` and `RM` (`projected` in place of an absent one: the kernels do
    not read it), the sizes `T`, `B`, `U`, the `constexpr` switches
    (`_constants`) and the block sizes and warps (`_launch_config`).

    Call it after `_kernels()` (as in `_kernels().forward_kernel[grid](...,
    **_launch_arguments(...))`): the process's interpret mode decides
    `EMULATE` and how `R` is rounded.
    """
    time, batch, _ = projected.shape
    units = n0.shape[-1]
    step_mask = _step_mask(mask, time, batch)
    config = _launch_config(units)
    return dict(
        P=projected.contiguous(),
        R=_recurrent_operand(recurrent_kernel, config.padded_units, precision),
        N0=n0.contiguous(),
        D0=d0.contiguous(),
        M0=m0.contiguous(),
        MASK=projected if step_mask is None else step_mask,
        RM=projected if recurrent_mask is None else recurrent_mask.contiguous(),
        T=time,
        B=batch,
        U=units,
        **_constants(discount, attention, hidden, step_mask, recurrent_mask, precision),
        **config.launch,
    )


# ------------------------------------------------------------------ the op


@torch.library.custom_op("keras_rda::rda_recurrence", mutates_args=())
def rda_recurrence_op(
    projected: torch.Tensor,
    recurrent_kernel: torch.Tensor,
    h0: torch.Tensor,
    n0: torch.Tensor,
    d0: torch.Tensor,
    m0: torch.Tensor,
    mask: torch.Tensor | None,
    recurrent_mask: torch.Tensor | None,
    discount: bool,
    attention_activation: str,
    hidden_activation: str,
    precision: str,
    save: bool,
) -> tuple[
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
]:
    """The forward kernel.

    Returns:
        `(hidden, n, d, m, gates, numerators, denominators, log_scales)`:
        the results of `recurrence`, then what the backward pass reads
        (float32; `gates` `[time, batch, (k - 1) units]`, the others
        `[time, batch, units]`), or empty tensors when `save` is False.
    """
    batch, units = projected.shape[1], h0.shape[-1]
    hidden = _empty_hidden(projected, h0)
    saved = _empty_saved(projected, units, discount, save)
    gates, numerators, denominators, log_scales = saved
    f32 = dict(dtype=torch.float32, device=projected.device)
    n, d, m = (torch.empty((batch, units), **f32) for _ in range(3))
    _kernels().forward_kernel[_grid(batch)](
        H0=h0.contiguous(),
        H=hidden,
        G=gates,
        N=numerators,
        D=denominators,
        M=log_scales,
        N_LAST=n,
        D_LAST=d,
        M_LAST=m,
        SAVE=save,
        **_launch_arguments(
            projected,
            recurrent_kernel,
            n0,
            d0,
            m0,
            mask,
            recurrent_mask,
            discount,
            attention_activation,
            hidden_activation,
            precision,
        ),
    )
    return (hidden, n.to(n0.dtype), d.to(d0.dtype), m.to(m0.dtype), *saved)


@rda_recurrence_op.register_fake
def _rda_recurrence_fake(
    projected,
    recurrent_kernel,
    h0,
    n0,
    d0,
    m0,
    mask,
    recurrent_mask,
    discount,
    attention_activation,
    hidden_activation,
    precision,
    save,
):
    return (
        _empty_hidden(projected, h0),
        n0.new_empty(n0.shape),
        d0.new_empty(d0.shape),
        m0.new_empty(m0.shape),
        *_empty_saved(projected, h0.shape[-1], discount, save),
    )


def _empty_hidden(projected, h0):
    """The forward's output `hidden`, `[time, batch, units]` in `h0`'s dtype."""
    time, batch, _ = projected.shape
    return torch.empty((time, batch, h0.shape[-1]), dtype=h0.dtype, device=h0.device)


def _empty_saved(projected, units, discount, save):
    """What the forward saves for the backward, float32: `(gates,
    numerators, denominators, log_scales)`, `[time, batch, (k - 1) units]`
    and `[time, batch, units]` (`[0, 0, *]` without `save`)."""
    time, batch, _ = projected.shape
    shape = (time, batch) if save else (0, 0)
    f32 = dict(dtype=torch.float32, device=projected.device)
    gate_blocks = rda_recurrence.projection_blocks(discount) - 1
    gates = torch.empty(shape + (gate_blocks * units,), **f32)
    return (gates, *(torch.empty(shape + (units,), **f32) for _ in range(3)))


@torch.library.custom_op("keras_rda::rda_recurrence_backward", mutates_args=())
def rda_recurrence_backward_op(
    projected: torch.Tensor,
    recurrent_kernel: torch.Tensor,
    n0: torch.Tensor,
    d0: torch.Tensor,
    m0: torch.Tensor,
    mask: torch.Tensor | None,
    recurrent_mask: torch.Tensor | None,
    gates: torch.Tensor,
    numerators: torch.Tensor,
    denominators: torch.Tensor,
    log_scales: torch.Tensor,
    d_hidden: torch.Tensor,
    d_n: torch.Tensor,
    d_d: torch.Tensor,
    d_m: torch.Tensor,
    discount: bool,
    attention_activation: str,
    hidden_activation: str,
    precision: str,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The backward kernel.

    Args:
        projected ... recurrent_mask: the forward op's inputs.
        gates, numerators, denominators, log_scales: what it saved.
        d_hidden: `[time, batch, units]`, the upstream gradient of `hidden`.
        d_n, d_d, d_m: `[batch, units]`, those of the final state.

    Returns:
        `(d_projected, d_h0, d_n0, d_d0, d_m0)`, float32; the gate blocks of
        `d_projected` are `dG_t`.
    """
    time, batch, width = projected.shape
    units = n0.shape[-1]
    f32 = dict(dtype=torch.float32, device=projected.device)
    d_projected = torch.empty((time, batch, width), **f32)
    d_h0, d_n0, d_d0, d_m0 = (torch.empty((batch, units), **f32) for _ in range(4))

    def f32_contiguous(x):
        return x.to(torch.float32).contiguous()

    _kernels().backward_kernel[_grid(batch)](
        G=gates,
        N=numerators,
        D=denominators,
        M=log_scales,
        DH=f32_contiguous(d_hidden),
        DN_T=f32_contiguous(d_n),
        DD_T=f32_contiguous(d_d),
        DM_T=f32_contiguous(d_m),
        DP=d_projected,
        DH0=d_h0,
        DN0=d_n0,
        DD0=d_d0,
        DM0=d_m0,
        **_launch_arguments(
            projected,
            recurrent_kernel,
            n0,
            d0,
            m0,
            mask,
            recurrent_mask,
            discount,
            attention_activation,
            hidden_activation,
            precision,
        ),
    )
    return d_projected, d_h0, d_n0, d_d0, d_m0


@rda_recurrence_backward_op.register_fake
def _rda_recurrence_backward_fake(
    projected,
    recurrent_kernel,
    n0,
    d0,
    m0,
    mask,
    recurrent_mask,
    gates,
    numerators,
    denominators,
    log_scales,
    d_hidden,
    d_n,
    d_d,
    d_m,
    discount,
    attention_activation,
    hidden_activation,
    precision,
):
    time, batch, width = projected.shape
    units = n0.shape[-1]
    f32 = dict(dtype=torch.float32, device=projected.device)
    return (torch.empty((time, batch, width), **f32),) + tuple(
        torch.empty((batch, units), **f32) for _ in range(4)
    )


# ---------------------------------------------------------------- autograd


def _setup_context(ctx, inputs, output):
    (projected, recurrent_kernel, h0, n0, d0, m0, mask, recurrent_mask) = inputs[:8]
    (
        ctx.discount,
        ctx.attention_activation,
        ctx.hidden_activation,
        ctx.precision,
        ctx.save,
    ) = inputs[8:]
    hidden, _, _, _, gates, numerators, denominators, log_scales = output
    ctx.mark_non_differentiable(gates, numerators, denominators, log_scales)
    ctx.save_for_backward(
        projected,
        recurrent_kernel,
        h0,
        n0,
        d0,
        m0,
        mask,
        recurrent_mask,
        hidden,
        gates,
        numerators,
        denominators,
        log_scales,
    )


def _backward(ctx, d_hidden, d_n, d_d, d_m, *unused):
    del unused  # the saved tensors are not differentiable
    if not ctx.save:
        raise RuntimeError(
            "keras_rda::rda_recurrence was called without saving what its "
            "backward pass reads (no input required a gradient)."
        )
    (
        projected,
        recurrent_kernel,
        h0,
        n0,
        d0,
        m0,
        mask,
        recurrent_mask,
        hidden,
        gates,
        numerators,
        denominators,
        log_scales,
    ) = ctx.saved_tensors
    d_hidden, d_n, d_d, d_m = (
        torch.zeros(ref.shape, dtype=torch.float32, device=ref.device)
        if grad is None
        else grad
        for grad, ref in zip((d_hidden, d_n, d_d, d_m), (hidden, n0, d0, m0))
    )
    d_projected, d_h0, d_n0, d_d0, d_m0 = rda_recurrence_backward_op(
        projected=projected,
        recurrent_kernel=recurrent_kernel,
        n0=n0,
        d0=d0,
        m0=m0,
        mask=mask,
        recurrent_mask=recurrent_mask,
        gates=gates,
        numerators=numerators,
        denominators=denominators,
        log_scales=log_scales,
        d_hidden=d_hidden,
        d_n=d_n,
        d_d=d_d,
        d_m=d_m,
        discount=ctx.discount,
        attention_activation=ctx.attention_activation,
        hidden_activation=ctx.hidden_activation,
        precision=ctx.precision,
    )
    d_kernel = _recurrent_kernel_gradient(d_projected, hidden, h0, recurrent_mask)
    return (
        d_projected.to(projected.dtype),
        d_kernel.to(recurrent_kernel.dtype),
        d_h0.to(h0.dtype),
        d_n0.to(n0.dtype),
        d_d0.to(d0.dtype),
        d_m0.to(m0.dtype),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )


def _recurrent_kernel_gradient(d_projected, hidden, h0, recurrent_mask):
    """`dR = sum_t (h_{t-1} r)^T dG_t`: one float32 matmul over `time * batch`
    rows.

    Args:
        d_projected: `[time, batch, k * units]` float32, `dP_t`; its gate
            blocks are `dG_t`.
        hidden: `[time, batch, units]`, `h_t` after every step.
        h0: `[batch, units]`.
        recurrent_mask: None or `[batch, units]`.

    Returns:
        `[units, (k - 1) units]` float32.
    """
    units = h0.shape[-1]
    h_prev = torch.cat([h0[None], hidden[:-1]], dim=0).to(torch.float32)
    if recurrent_mask is not None:
        h_prev = h_prev * recurrent_mask.to(torch.float32)
    gate_rows = d_projected[..., units:].reshape(-1, d_projected.shape[-1] - units)
    return h_prev.reshape(-1, units).T @ gate_rows


rda_recurrence_op.register_autograd(_backward, setup_context=_setup_context)
