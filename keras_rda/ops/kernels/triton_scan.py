"""The parallel RDA's discounted running average as Triton kernels (PyTorch).

Computes what `keras_rda.ops.parallel_scan.discounted_average_scan`
computes (RDA paper, section 5, with gates that read only `x_t`): the
scaled, overflow-free running average of `keras_rda.ops.attention_average`
at every step, with its special cases (`d^ = 0` is empty: the past then
does not bound `m_t`; where `a_t = 0`, `q_t = 0`).

Equations: see `keras_rda.ops.attention_average` (the step) and
`keras_rda.ops.kernels.pallas_scan` (the passes and the backward's reverse
recurrence). The kernels are the Pallas ones written in Triton
(`_triton_scan_kernels`): time is cut into chunks of `chunk_size` steps,
and each program owns one batch row, one tile of `BLOCK_UNITS` units and
(in the per-chunk passes) one chunk, with all state in float32 registers.

- Forward: `summary_kernel` (each chunk from an empty state: its summary
  `(n^, d^, m, G)`), `carry_kernel` (the chunks in order from the initial
  state: each chunk's carry and the final state), `average_kernel` (each
  chunk re-run from its carry, writing the averages). Written to memory:
  the averages, `7 * batch * chunks * units` floats of summaries and
  carries, the final state; the inputs are read twice.
- Backward: `adjoint_summary_kernel` (what each chunk sends back to the
  previous one from an empty cotangent, accumulated forward in time, and its
  product of `p`), `adjoint_carry_kernel` (the chunks in reverse from the
  final state's cotangent), `gradient_kernel` (each chunk re-run from its
  carry keeping the states in a `[chunk_size, BLOCK_UNITS]` register tile,
  then time in reverse writing the gradients of `z`, `log a`,
  `log gamma`). `m` is a constant for differentiation, as the portable
  path's `stop_gradient` makes it.

The forward and the backward are each one `torch.library` op
(`keras_rda::parallel_rda_scan`, `keras_rda::parallel_rda_scan_backward`)
with fake (meta) implementations, joined by `register_autograd`, so that
autograd, Keras's torch trainer and `torch.compile` see one op.

Support. float32 computation (other float dtypes are cast; the results come
back in the inputs' dtypes); `positive` None, or boolean
`[batch, time, units]` / `[batch, time, 1]`; any batch, units and length
(loads and stores are masked, nothing is padded) with fewer than 2**31
elements per input (the offsets are int32) and at most 65,535 chunks and
65,535 unit tiles (CUDA's grid): `size_reason`, a `ValueError` here, the
portable path under `ParallelRDA(use_kernel="auto")`. CUDA tensors, or CPU
tensors with `interpret=True` (`TRITON_INTERPRET=1`, set here before the
kernels are first defined; the mode then holds for the process). Triton is imported
only when a kernel is first needed: importing it in a process that has
loaded TensorFlow aborts that process.

Gradients equal the portable path's, except at an empty initial state
(`d^_0 = 0`): the average is discontinuous there, and the kernels give the
initial state the step-by-step recurrence's gradient, which the portable
`"chunked"` and `"associative"` methods do not share with it (nor with
each other).
"""

import torch

from keras_rda.ops import kernels as _kernel_rules
from keras_rda.ops.kernels import _triton_import

#: Steps per chunk (a power of two): the sequential depth of the per-chunk
#: passes and the rows of the gradient kernel's register tiles.
CHUNK_SIZE = 32
#: Units per program (a power of two, at most this; fewer for fewer units).
BLOCK_UNITS = 32
#: Warps per program on a GPU (a tile of 32 units is one warp's lanes).
NUM_WARPS = 1


def size_reason(batch, length, units, chunk_size=CHUNK_SIZE):
    """Why the kernels cannot take a sequence of this size, or None.

    Args:
        batch, length, units: the sizes of `features` (None where unknown).
        chunk_size: steps per chunk.

    Returns:
        None, or a sentence: an input of `[batch, length, units]` reaches
        2**31 elements (the kernels' offsets are int32), or the chunks or
        unit tiles exceed what CUDA launches along one grid axis.
    """
    reason = _kernel_rules.int32_reason(
        "the inputs [batch, time, units]", (batch, length, units)
    )
    if reason is None and length is not None:
        reason = _kernel_rules.grid_reason(
            f"{length:,} steps in chunks of {chunk_size}", _cdiv(length, chunk_size)
        )
    if reason is None and units is not None:
        block = _block_units(units)
        reason = _kernel_rules.grid_reason(
            f"{units:,} units in tiles of {block}", _cdiv(units, block)
        )
    return reason


def discounted_average_scan(
    features,
    log_a,
    log_gamma,
    positive,
    initial_state,
    interpret=False,
    chunk_size=CHUNK_SIZE,
):
    """Runs the scaled discounted average over a sequence, as Triton kernels.

    The arguments and results of
    `keras_rda.ops.parallel_scan.discounted_average_scan` (without its
    `method`), differentiable (`torch.autograd`) with respect to
    `features`, `log_a`, `log_gamma` and the initial state.

    Args:
        features: `[batch, time, units]`, `z_t`.
        log_a: `[batch, time, units]`, `log a_t`.
        log_gamma: `[batch, time, units]`, `log gamma_t`.
        positive: None (every `a_t > 0`), or boolean `[batch, time, units]`
            or `[batch, time, 1]`: where `a_t > 0`.
        initial_state: `(n^_0, d^_0, m_0)`, each `[batch, units]`.
        interpret: run the kernels in Triton's interpreter (CPU tensors).
        chunk_size: steps per chunk, a power of two.

    Returns:
        `(averages, (n^, d^, m))`: `averages` `[batch, time, units]`, the
        final state each `[batch, units]`.

    Raises:
        ValueError: `chunk_size` is not a power of two, `positive` has
            another shape, or `features` is too large (`size_reason`).
    """
    if (
        not isinstance(chunk_size, int)
        or chunk_size < 1
        or chunk_size & (chunk_size - 1)
    ):
        raise ValueError(
            "Received an invalid value for argument `chunk_size`, expected a "
            f"power of two, got {chunk_size!r}"
        )
    batch, length, units = features.shape
    reason = size_reason(batch, length, units, chunk_size)
    if reason is not None:
        raise ValueError(
            "Received an invalid value for argument `features`, expected a "
            f"shape the Triton scan can index, got {tuple(features.shape)}: "
            f"{reason}"
        )
    if positive is not None and tuple(positive.shape) not in (
        (batch, length, units),
        (batch, length, 1),
    ):
        raise ValueError(
            "Received an invalid value for argument `positive`, expected "
            f"None or a boolean of shape {(batch, length, units)} or "
            f"{(batch, length, 1)}, got shape {tuple(positive.shape)}"
        )
    z, la, lg = (x.to(torch.float32).contiguous() for x in (features, log_a, log_gamma))
    pos = None if positive is None else positive.to(torch.int8).contiguous()
    state = [s.to(torch.float32).contiguous() for s in initial_state]
    n0, d0, m0 = state
    averages, n, d, m, *_ = torch.ops.keras_rda.parallel_rda_scan(
        z=z,
        la=la,
        lg=lg,
        pos=pos,
        n0=n0,
        d0=d0,
        m0=m0,
        chunk_size=chunk_size,
        interpret=bool(interpret),
    )
    final_state = tuple(s.to(i.dtype) for s, i in zip((n, d, m), initial_state))
    return averages.to(features.dtype), final_state


# --- the torch.library ops --------------------------------------------------


@torch.library.custom_op("keras_rda::parallel_rda_scan", mutates_args=())
def _scan_op(
    z: torch.Tensor,
    la: torch.Tensor,
    lg: torch.Tensor,
    pos: torch.Tensor | None,
    n0: torch.Tensor,
    d0: torch.Tensor,
    m0: torch.Tensor,
    chunk_size: int,
    interpret: bool,
) -> tuple[
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
    torch.Tensor,
]:
    """`(averages, n^, d^, m, carry n^, carry d^, carry m)`; the carries
    (`[batch, chunks, units]`, the state before each chunk) are for the
    backward."""
    kernels = _kernels(interpret)
    batch, length, units = z.shape
    grid, per_chunk, walk = _passes(z, chunk_size)
    chunks = walk["num_chunks"]

    def chunk_buffer():
        return z.new_empty((batch, chunks, units))

    summaries = dict(
        sn_ptr=chunk_buffer(),
        sd_ptr=chunk_buffer(),
        sm_ptr=chunk_buffer(),
        sg_ptr=chunk_buffer(),
    )
    inputs = _step_inputs(z, la, lg, pos)
    kernels.summary_kernel[grid](**inputs, **summaries, **per_chunk)
    carries = dict(cn_ptr=chunk_buffer(), cd_ptr=chunk_buffer(), cm_ptr=chunk_buffer())
    n, d, m = (z.new_empty((batch, units)) for _ in range(3))
    kernels.carry_kernel[grid[:2]](
        **summaries,
        n0_ptr=n0,
        d0_ptr=d0,
        m0_ptr=m0,
        **carries,
        fn_ptr=n,
        fd_ptr=d,
        fm_ptr=m,
        **walk,
    )
    averages = torch.empty_like(z)
    kernels.average_kernel[grid](**inputs, **carries, out_ptr=averages, **per_chunk)
    return (averages, n, d, m, *carries.values())


@_scan_op.register_fake
def _scan_fake(z, la, lg, pos, n0, d0, m0, chunk_size, interpret):
    batch, length, units = z.shape
    num_chunks = _cdiv(length, chunk_size)
    return (
        torch.empty_like(z),
        *(z.new_empty((batch, units)) for _ in range(3)),
        *(z.new_empty((batch, num_chunks, units)) for _ in range(3)),
    )


@torch.library.custom_op("keras_rda::parallel_rda_scan_backward", mutates_args=())
def _scan_backward_op(
    z: torch.Tensor,
    la: torch.Tensor,
    lg: torch.Tensor,
    pos: torch.Tensor | None,
    carry_n: torch.Tensor,
    carry_d: torch.Tensor,
    carry_m: torch.Tensor,
    grad_averages: torch.Tensor,
    grad_n: torch.Tensor,
    grad_d: torch.Tensor,
    chunk_size: int,
    interpret: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The gradients of `(z, log a, log gamma, n^_0, d^_0)`."""
    kernels = _kernels(interpret)
    batch, length, units = z.shape
    grid, per_chunk, walk = _passes(z, chunk_size)

    def chunk_buffer():
        return z.new_empty(carry_n.shape)

    inputs = _step_inputs(z, la, lg, pos)
    carries = dict(cn_ptr=carry_n, cd_ptr=carry_d, cm_ptr=carry_m)
    sent = dict(
        sent_n_ptr=chunk_buffer(), sent_d_ptr=chunk_buffer(), product_ptr=chunk_buffer()
    )
    kernels.adjoint_summary_kernel[grid](
        **inputs, ga_ptr=grad_averages, **carries, **sent, **per_chunk
    )
    into = dict(into_n_ptr=chunk_buffer(), into_d_ptr=chunk_buffer())
    grad_n0, grad_d0 = (z.new_empty((batch, units)) for _ in range(2))
    kernels.adjoint_carry_kernel[grid[:2]](
        **sent,
        gn_ptr=grad_n,
        gd_ptr=grad_d,
        **into,
        gn0_ptr=grad_n0,
        gd0_ptr=grad_d0,
        **walk,
    )
    grads = dict(
        gz_ptr=torch.empty_like(z),
        gla_ptr=torch.empty_like(z),
        glg_ptr=torch.empty_like(z),
    )
    kernels.gradient_kernel[grid](
        **inputs, ga_ptr=grad_averages, **carries, **into, **grads, **per_chunk
    )
    return (*grads.values(), grad_n0, grad_d0)


@_scan_backward_op.register_fake
def _scan_backward_fake(
    z,
    la,
    lg,
    pos,
    carry_n,
    carry_d,
    carry_m,
    grad_averages,
    grad_n,
    grad_d,
    chunk_size,
    interpret,
):
    return (
        *(torch.empty_like(z) for _ in range(3)),
        *(grad_n.new_empty(grad_n.shape) for _ in range(2)),
    )


def _setup_context(ctx, inputs, output):
    z, la, lg, pos, n0, d0, _, chunk_size, interpret = inputs
    ctx.save_for_backward(z, la, lg, pos, n0, d0, *output[4:])
    ctx.chunk_size, ctx.interpret = chunk_size, interpret


def _backward(ctx, grad_averages, grad_n, grad_d, *_):
    z, la, lg, pos, n0, d0, carry_n, carry_d, carry_m = ctx.saved_tensors

    def given(grad, like):
        return torch.zeros_like(like) if grad is None else grad.contiguous()

    grad_z, grad_la, grad_lg, grad_n0, grad_d0 = (
        torch.ops.keras_rda.parallel_rda_scan_backward(
            z=z,
            la=la,
            lg=lg,
            pos=pos,
            carry_n=carry_n,
            carry_d=carry_d,
            carry_m=carry_m,
            grad_averages=given(grad_averages, z),
            grad_n=given(grad_n, n0),
            grad_d=given(grad_d, d0),
            chunk_size=ctx.chunk_size,
            interpret=ctx.interpret,
        )
    )
    # m_0 enters through step 1's past log-scale `m_0 + log gamma_1` (when
    # d^_0 > 0), whose gradient is `x^n_1 n^_0 p_1 + x^d_1 d^_0 p_1`.
    grad_m0 = torch.where(d0 > 0, grad_n0 * n0 + grad_d0 * d0, torch.zeros_like(d0))
    return (grad_z, grad_la, grad_lg, None, grad_n0, grad_d0, grad_m0, None, None)


_scan_op.register_autograd(_backward, setup_context=_setup_context)


def _cdiv(a, b):
    """`ceil(a / b)` for positive ints."""
    return -(-a // b)


def _block_units(units):
    """The units per program: `BLOCK_UNITS`, or the next power of two of
    fewer units."""
    return min(BLOCK_UNITS, 1 << max(0, units - 1).bit_length())


def _passes(z, chunk_size):
    """How the passes are launched over `z` `[batch, time, units]`:
    `(grid, per_chunk, walk)`, the grid of the per-chunk kernels (batch
    rows, unit tiles, chunks; the walks over the chunks take its first two
    axes), and the sizes and block sizes of each kind, as keyword
    arguments."""
    batch, length, units = z.shape
    block = _block_units(units)
    num_chunks = _cdiv(length, chunk_size)
    grid = (batch, _cdiv(units, block), num_chunks)
    per_chunk = dict(
        length=length,
        num_units=units,
        CHUNK=chunk_size,
        BLOCK=block,
        num_warps=NUM_WARPS,
    )
    walk = dict(
        num_chunks=num_chunks, num_units=units, BLOCK=block, num_warps=NUM_WARPS
    )
    return grid, per_chunk, walk


def _step_inputs(z, la, lg, pos):
    """The per-step inputs of a kernel, as its keyword arguments: a
    `[batch, time, 1]` mask is read with a units stride of 0; without a
    mask, `z` stands in (never read)."""
    if pos is None:
        pos_args = dict(pos_ptr=z, pos_stride=0, HAS_POS=False)
    else:
        stride = 1 if pos.shape[-1] != 1 else 0
        pos_args = dict(pos_ptr=pos, pos_stride=stride, HAS_POS=True)
    return dict(z_ptr=z, la_ptr=la, lg_ptr=lg, **pos_args)


# --- the kernels ------------------------------------------------------------


def _kernels(interpret):
    """The kernel module (`_triton_scan_kernels`), Triton imported on first
    use.

    Raises:
        RuntimeError: the kernels were defined for the other mode (compiled
            or interpreted) earlier in this process.
    """
    return _triton_import.kernel_module("_triton_scan_kernels", interpret)
