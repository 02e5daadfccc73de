"""The Triton kernels of `keras_rda.ops.kernels.triton_scan` (see there).

Imported by `triton_scan` only when a kernel is first needed, after it has
set `TRITON_INTERPRET=1` where interpret mode is asked for: `triton.jit`
chooses between compiling and interpreting when it decorates, so the mode
of the first import holds for the process. Never import this module in a
process that has loaded TensorFlow (importing Triton there aborts it).

Equations: see `keras_rda.ops.kernels.pallas_scan` (the forward step, the
chunk summaries and the reverse recurrence of the backward pass).

Layouts (contiguous, row-major, float32 but for the int8 `pos`):

- the per-step inputs `z`, `la` (log a), `lg` (log gamma), `pos` (where
  a > 0, `[batch, time, units]` or, with `pos_stride` 0, `[batch, time,
  1]`), the averages, their cotangent `ga` and the gradients `gz`, `gla`,
  `glg`: `[batch, time, units]`;
- per chunk (`s*` the summaries, `c*` the carries, `sent_*`, `product`,
  `into_*` the backward's): `[batch, chunks, units]`;
- the initial and final states: `[batch, units]`.

Every program owns batch row `b` (grid axis 0), one tile of `BLOCK` units
(axis 1) and, in the per-chunk kernels, chunk `c` of `CHUNK` steps (axis
2). The step inputs travel between the helpers as one tuple,
`inputs = (z, la, lg, pos, pos_stride)`, and so do groups of tiles read or
written at the same offsets (Triton inlines every helper).
"""

import triton
import triton.language as tl

# Only Triton's builtins here, none of its `@triton.jit` library functions
# (`tl.zeros`, `tl.sum`, ...): in a process that imported Triton before
# `TRITON_INTERPRET=1` was set (PyTorch's dynamo imports it), those stay
# compiled-only and the interpreter refuses to call them.


# ------------------------------------------------------------- addressing


@triton.jit
def _unit_tile(BLOCK: tl.constexpr):
    """The program's tile of units (grid axis 1)."""
    return tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def _step_offsets(b, t, units, length, num_units):
    """Where step `t` of batch row `b` is, for `units`, in a `[batch, time,
    units]` tensor."""
    return (b * length + t) * num_units + units


@triton.jit
def _chunk_offsets(b, c, units, num_chunks, num_units):
    """Where chunk `c` of batch row `b` is, for `units`, in a `[batch,
    chunks, units]` tensor."""
    return (b * num_chunks + c) * num_units + units


@triton.jit
def _load3(ptrs, offsets, mask):
    """The three tiles at `offsets` of the pointers `ptrs` (0 off `mask`)."""
    a_ptr, b_ptr, c_ptr = ptrs
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0)
    c = tl.load(c_ptr + offsets, mask=mask, other=0.0)
    return a, b, c


@triton.jit
def _store3(ptrs, offsets, values, mask):
    """Stores the three tiles `values` at `offsets` of the pointers `ptrs`."""
    a_ptr, b_ptr, c_ptr = ptrs
    a, b, c = values
    tl.store(a_ptr + offsets, a, mask=mask)
    tl.store(b_ptr + offsets, b, mask=mask)
    tl.store(c_ptr + offsets, c, mask=mask)


@triton.jit
def _load_carry(carry_ptrs, b, c, units, num_units):
    """Chunk `c`'s carry `(n^, d^, m)`: the state before its first step."""
    offsets = _chunk_offsets(b, c, units, tl.num_programs(2), num_units)
    return _load3(carry_ptrs, offsets, units < num_units)


# ------------------------------------------------------------ the step


@triton.jit
def _load_step(inputs, b, t, units, length, num_units, HAS_POS: tl.constexpr):
    """Step `t` of batch row `b` on the tile `units`: `(z, log a, log gamma,
    positive, valid, mask)`, `valid` whether `t` is a real step, `mask`
    where the tile holds real units of a real step."""
    z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride = inputs
    valid = t < length
    # (not `(units < num_units) & valid`: Triton's interpreter cannot load
    # with the mask that makes)
    mask = units < tl.where(valid, num_units, 0)
    offsets = _step_offsets(b, t, units, length, num_units)
    z, la, lg = _load3((z_ptr, la_ptr, lg_ptr), offsets, mask)
    if HAS_POS:
        pos_units = 1 + (num_units - 1) * pos_stride
        pos_offsets = (b * length + t) * pos_units + units * pos_stride
        pos = tl.load(pos_ptr + pos_offsets, mask=mask, other=0) != 0
    else:
        pos = valid
    return z, la, lg, pos, valid, mask


@triton.jit
def _step(n, d, m, z, la, lg, pos, valid, HAS_POS: tl.constexpr):
    """One step of the scaled average; padding (`valid` False) is the
    identity. Returns `(n, d, m, p, q, attended)`."""
    attended = d > 0
    past = tl.where(attended, m + lg, la)
    if HAS_POS:
        scale = tl.maximum(past, tl.where(pos, la, past))
        q = tl.where(pos, tl.exp(tl.where(pos, la, scale) - scale), 0.0)
    else:
        scale = tl.maximum(past, la)
        q = tl.exp(la - scale)
    p = tl.where(valid, tl.exp(past - scale), 1.0)
    q = tl.where(valid, q, 0.0)
    scale = tl.where(valid, scale, m)
    return n * p + z * q, d * p + q, scale, p, q, attended


@triton.jit
def _advance(state, inputs, b, t, units, length, num_units, HAS_POS: tl.constexpr):
    """The state `(n^, d^, m)` after step `t`, from the one before it:
    `(n, d, m, p, log gamma, mask)` (`p` the step's weight of the past,
    `mask` `_load_step`'s)."""
    n, d, m = state
    z, la, lg, pos, valid, mask = _load_step(
        inputs, b, t, units, length, num_units, HAS_POS
    )
    n, d, m, p, _, _ = _step(n, d, m, z, la, lg, pos, valid, HAS_POS)
    return n, d, m, p, lg, mask


@triton.jit
def _safe(d):
    return tl.where(d > 0, d, 1.0)


@triton.jit
def _combine(state, later_n, later_d, later_m, later_g):
    """`attention_average.combine_summaries` on tiles: the state `(n^, d^,
    m)` followed by a chunk of summary `(later_n, later_d, later_m,
    later_g)`."""
    n, d, m = state
    past = tl.where(d > 0, m + later_g, later_m)
    current = tl.where(later_d > 0, later_m, past)
    scale = tl.maximum(past, current)
    past_weight = tl.exp(past - scale)
    later_weight = tl.exp(current - scale)
    return (
        n * past_weight + later_n * later_weight,
        d * past_weight + later_d * later_weight,
        scale,
    )


@triton.jit
def _average_sources(grad_average, n, d):
    """The cotangents of `(n^_t, d^_t)` from that of `n^_t / s_t`."""
    s = _safe(d)
    return grad_average / s, -grad_average * n / (s * s)


# ----------------------------------------------------------------- forward


@triton.jit
def summary_kernel(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    sn_ptr,
    sd_ptr,
    sm_ptr,
    sg_ptr,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Each chunk's steps from an empty state: its summary `(n^, d^, m, G)`,
    `G` its total log-discount."""
    b, c = tl.program_id(0), tl.program_id(2)
    units = _unit_tile(BLOCK)
    inputs = (z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride)
    n = tl.full((BLOCK,), 0.0, tl.float32)
    d, m, g = n, n, n
    for i in range(CHUNK):
        n, d, m, _, lg, _ = _advance(
            (n, d, m), inputs, b, c * CHUNK + i, units, length, num_units, HAS_POS
        )
        g += lg
    offsets = _chunk_offsets(b, c, units, tl.num_programs(2), num_units)
    mask = units < num_units
    _store3((sn_ptr, sd_ptr, sm_ptr), offsets, (n, d, m), mask)
    tl.store(sg_ptr + offsets, g, mask=mask)


@triton.jit
def carry_kernel(
    sn_ptr,
    sd_ptr,
    sm_ptr,
    sg_ptr,
    n0_ptr,
    d0_ptr,
    m0_ptr,
    cn_ptr,
    cd_ptr,
    cm_ptr,
    fn_ptr,
    fd_ptr,
    fm_ptr,
    num_chunks,
    num_units,
    BLOCK: tl.constexpr,
):
    """The chunks in order from the initial state: each chunk's carry (the
    state before it) and the final state."""
    b = tl.program_id(0)
    units = _unit_tile(BLOCK)
    mask = units < num_units
    row = b * num_units + units
    state = _load3((n0_ptr, d0_ptr, m0_ptr), row, mask)
    for c in range(num_chunks):
        offsets = _chunk_offsets(b, c, units, num_chunks, num_units)
        _store3((cn_ptr, cd_ptr, cm_ptr), offsets, state, mask)
        later_n, later_d, later_m = _load3((sn_ptr, sd_ptr, sm_ptr), offsets, mask)
        later_g = tl.load(sg_ptr + offsets, mask=mask, other=0.0)
        state = _combine(state, later_n, later_d, later_m, later_g)
    _store3((fn_ptr, fd_ptr, fm_ptr), row, state, mask)


@triton.jit
def average_kernel(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    cn_ptr,
    cd_ptr,
    cm_ptr,
    out_ptr,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Each chunk re-run from its carry, writing the averages `n^_t / d^_t`."""
    b, c = tl.program_id(0), tl.program_id(2)
    units = _unit_tile(BLOCK)
    inputs = (z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride)
    n, d, m = _load_carry((cn_ptr, cd_ptr, cm_ptr), b, c, units, num_units)
    for i in range(CHUNK):
        t = c * CHUNK + i
        n, d, m, _, _, step_mask = _advance(
            (n, d, m), inputs, b, t, units, length, num_units, HAS_POS
        )
        offsets = _step_offsets(b, t, units, length, num_units)
        tl.store(out_ptr + offsets, n / _safe(d), mask=step_mask)


# ---------------------------------------------------------------- backward


@triton.jit
def adjoint_summary_kernel(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    ga_ptr,
    cn_ptr,
    cd_ptr,
    cm_ptr,
    sent_n_ptr,
    sent_d_ptr,
    product_ptr,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Each chunk re-run from its carry: what it sends to the previous chunk
    from an empty cotangent, accumulated forward in time, and its product
    of `p`."""
    b, c = tl.program_id(0), tl.program_id(2)
    units = _unit_tile(BLOCK)
    inputs = (z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride)
    mask = units < num_units
    n, d, m = _load_carry((cn_ptr, cd_ptr, cm_ptr), b, c, units, num_units)
    sent_n = tl.full((BLOCK,), 0.0, tl.float32)
    sent_d = sent_n
    product = sent_n + 1.0
    for i in range(CHUNK):
        t = c * CHUNK + i
        n, d, m, p, _, step_mask = _advance(
            (n, d, m), inputs, b, t, units, length, num_units, HAS_POS
        )
        offsets = _step_offsets(b, t, units, length, num_units)
        grad = tl.load(ga_ptr + offsets, mask=step_mask, other=0.0)
        source_n, source_d = _average_sources(grad, n, d)
        product *= p
        sent_n += source_n * product
        sent_d += source_d * product
    offsets = _chunk_offsets(b, c, units, tl.num_programs(2), num_units)
    _store3(
        (sent_n_ptr, sent_d_ptr, product_ptr), offsets, (sent_n, sent_d, product), mask
    )


@triton.jit
def adjoint_carry_kernel(
    sent_n_ptr,
    sent_d_ptr,
    product_ptr,
    gn_ptr,
    gd_ptr,
    into_n_ptr,
    into_d_ptr,
    gn0_ptr,
    gd0_ptr,
    num_chunks,
    num_units,
    BLOCK: tl.constexpr,
):
    """The chunks in reverse from the final state's cotangent: the cotangent
    entering each chunk's end, and that of the initial state."""
    b = tl.program_id(0)
    units = _unit_tile(BLOCK)
    mask = units < num_units
    row = b * num_units + units
    x_n = tl.load(gn_ptr + row, mask=mask, other=0.0)
    x_d = tl.load(gd_ptr + row, mask=mask, other=0.0)
    for j in range(num_chunks):
        c = num_chunks - 1 - j
        offsets = _chunk_offsets(b, c, units, num_chunks, num_units)
        tl.store(into_n_ptr + offsets, x_n, mask=mask)
        tl.store(into_d_ptr + offsets, x_d, mask=mask)
        product = tl.load(product_ptr + offsets, mask=mask, other=0.0)
        x_n = x_n * product + tl.load(sent_n_ptr + offsets, mask=mask, other=0.0)
        x_d = x_d * product + tl.load(sent_d_ptr + offsets, mask=mask, other=0.0)
    tl.store(gn0_ptr + row, x_n, mask=mask)
    tl.store(gd0_ptr + row, x_d, mask=mask)


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _row(tile, rows, i):
    """Row `i` of a `[CHUNK, BLOCK]` tile (a register tile cannot be
    indexed: select it and reduce over rows)."""
    return tl.reduce(tl.where(rows == i, tile, 0.0), 0, _add)


@triton.jit
def _chunk_states(
    inputs,
    carry_ptrs,
    b,
    c,
    units,
    rows,
    length,
    num_units,
    HAS_POS: tl.constexpr,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Chunk `c` re-run from its carry: the state before each of its steps,
    as `[CHUNK, BLOCK]` tiles `(n^, d^, m)`."""
    n, d, m = _load_carry(carry_ptrs, b, c, units, num_units)
    tile_n = tl.full((CHUNK, BLOCK), 0.0, tl.float32)
    tile_d = tile_n
    tile_m = tile_n
    for i in range(CHUNK):
        tile_n = tl.where(rows == i, n[None, :], tile_n)
        tile_d = tl.where(rows == i, d[None, :], tile_d)
        tile_m = tl.where(rows == i, m[None, :], tile_m)
        n, d, m, _, _, _ = _advance(
            (n, d, m), inputs, b, c * CHUNK + i, units, length, num_units, HAS_POS
        )
    return tile_n, tile_d, tile_m


@triton.jit
def _step_gradients(x_n, x_d, before, step, grad, HAS_POS: tl.constexpr):
    """Back through one step from the cotangents `(x_n, x_d)` of the state
    after it and `grad`, that of its average, given the state `before` it
    and the `step`'s inputs `(z, log a, log gamma, positive, valid)`: the
    cotangents of the state before it, and the gradients of `(z, log a,
    log gamma)`."""
    n_before, d_before, m_before = before
    z, la, lg, pos, valid = step
    n, d, _, p, q, attended = _step(
        n_before, d_before, m_before, z, la, lg, pos, valid, HAS_POS
    )
    source_n, source_d = _average_sources(grad, n, d)
    x_n += source_n
    x_d += source_d
    grad_past = (x_n * n_before + x_d * d_before) * p
    grad_la = (x_n * z + x_d) * q + tl.where(attended, 0.0, grad_past)
    grad_lg = tl.where(attended, grad_past, 0.0)
    return x_n * p, x_d * p, x_n * q, grad_la, grad_lg


@triton.jit
def gradient_kernel(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    ga_ptr,
    cn_ptr,
    cd_ptr,
    cm_ptr,
    into_n_ptr,
    into_d_ptr,
    gz_ptr,
    gla_ptr,
    glg_ptr,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Each chunk re-run from its carry, its states kept in `[CHUNK, BLOCK]`
    tiles, then time in reverse from the cotangent entering its end: the
    gradients of `z`, `log a` and `log gamma`."""
    b, c = tl.program_id(0), tl.program_id(2)
    units = _unit_tile(BLOCK)
    inputs = (z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride)
    mask = units < num_units
    rows = tl.arange(0, CHUNK)[:, None]
    tile_n, tile_d, tile_m = _chunk_states(
        inputs, (cn_ptr, cd_ptr, cm_ptr), b, c, units, rows, length, num_units,
        HAS_POS, CHUNK, BLOCK,
    )  # fmt: skip
    offsets = _chunk_offsets(b, c, units, tl.num_programs(2), num_units)
    x_n = tl.load(into_n_ptr + offsets, mask=mask, other=0.0)
    x_d = tl.load(into_d_ptr + offsets, mask=mask, other=0.0)
    for j in range(CHUNK):
        i = CHUNK - 1 - j
        t = c * CHUNK + i
        n_before = _row(tile_n, rows, i)
        d_before = _row(tile_d, rows, i)
        z, la, lg, pos, valid, step_mask = _load_step(
            inputs, b, t, units, length, num_units, HAS_POS
        )
        offsets = _step_offsets(b, t, units, length, num_units)
        grad = tl.load(ga_ptr + offsets, mask=step_mask, other=0.0)
        before = (n_before, d_before, _row(tile_m, rows, i))
        x_n, x_d, grad_z, grad_la, grad_lg = _step_gradients(
            x_n, x_d, before, (z, la, lg, pos, valid), grad, HAS_POS
        )
        _store3(
            (gz_ptr, gla_ptr, glg_ptr), offsets, (grad_z, grad_la, grad_lg), step_mask
        )
