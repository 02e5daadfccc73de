"""The Triton kernels of `keras_rda.ops.kernels.triton_scan` (see there).

Imported by `triton_scan` only when a kernel is first needed, after it has
set `TRITON_INTERPRET=1` where interpret mode is asked for: `triton.jit`
chooses between compiling and interpreting when it decorates, so the mode
of the first import holds for the process. Never import this module in a
process that has loaded TensorFlow (importing Triton there aborts it).
"""

import triton
import triton.language as tl

# Only Triton's builtins here, none of its `@triton.jit` library functions
# (`tl.zeros`, `tl.sum`, ...): in a process that imported Triton before
# `TRITON_INTERPRET=1` was set (PyTorch's dynamo imports it), those stay
# compiled-only and the interpreter refuses to call them.


@triton.jit
def step(n, d, m, z, la, lg, pos, valid, HAS_POS: tl.constexpr):
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
def load_step(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    b,
    t,
    units,
    length,
    num_units,
    HAS_POS: tl.constexpr,
):
    """Step `t` of batch row `b` on the tile `units`: `(z, log a,
    log gamma, positive, valid, mask)`, `valid` whether `t` is a real step,
    `mask` where the tile holds real units of a real step."""
    valid = t < length
    # (not `(units < num_units) & valid`: Triton's interpreter cannot load
    # with the mask that makes)
    mask = units < tl.where(valid, num_units, 0)
    offset = (b * length + t) * num_units + units
    z = tl.load(z_ptr + offset, mask=mask, other=0.0)
    la = tl.load(la_ptr + offset, mask=mask, other=0.0)
    lg = tl.load(lg_ptr + offset, mask=mask, other=0.0)
    if HAS_POS:
        pos_units = 1 + (num_units - 1) * pos_stride
        pos_offset = (b * length + t) * pos_units + units * pos_stride
        pos = tl.load(pos_ptr + pos_offset, mask=mask, other=0) != 0
    else:
        pos = valid
    return z, la, lg, pos, valid, mask


@triton.jit
def add(a, b):
    return a + b


@triton.jit
def row(tile, rows, i):
    """Row `i` of a `[CHUNK, BLOCK]` tile (a register tile cannot be
    indexed: select it and reduce over rows)."""
    return tl.reduce(tl.where(rows == i, tile, 0.0), 0, add)


@triton.jit
def safe(d):
    return tl.where(d > 0, d, 1.0)


@triton.jit
def combine(n, d, m, later_n, later_d, later_m, later_g):
    """`attention_average.combine_summaries` on tiles."""
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
def summary_kernel(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    n_ptr,
    d_ptr,
    m_ptr,
    g_ptr,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    b, c = tl.program_id(0), tl.program_id(2)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    n = tl.full((BLOCK,), 0.0, tl.float32)
    d, m, g = n, n, n
    for i in range(CHUNK):
        z, la, lg, pos, valid, step_mask = load_step(
            z_ptr,
            la_ptr,
            lg_ptr,
            pos_ptr,
            pos_stride,
            b,
            c * CHUNK + i,
            units,
            length,
            num_units,
            HAS_POS,
        )
        n, d, m, _, _, _ = step(n, d, m, z, la, lg, pos, valid, HAS_POS)
        g += lg
    num_chunks = tl.num_programs(2)
    offset = (b * num_chunks + c) * num_units + units
    mask = units < num_units
    tl.store(n_ptr + offset, n, mask=mask)
    tl.store(d_ptr + offset, d, mask=mask)
    tl.store(m_ptr + offset, m, mask=mask)
    tl.store(g_ptr + offset, g, mask=mask)


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
    b = tl.program_id(0)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = units < num_units
    row = b * num_units + units
    n = tl.load(n0_ptr + row, mask=mask, other=0.0)
    d = tl.load(d0_ptr + row, mask=mask, other=0.0)
    m = tl.load(m0_ptr + row, mask=mask, other=0.0)
    for c in range(num_chunks):
        offset = (b * num_chunks + c) * num_units + units
        tl.store(cn_ptr + offset, n, mask=mask)
        tl.store(cd_ptr + offset, d, mask=mask)
        tl.store(cm_ptr + offset, m, mask=mask)
        n, d, m = combine(
            n,
            d,
            m,
            tl.load(sn_ptr + offset, mask=mask, other=0.0),
            tl.load(sd_ptr + offset, mask=mask, other=0.0),
            tl.load(sm_ptr + offset, mask=mask, other=0.0),
            tl.load(sg_ptr + offset, mask=mask, other=0.0),
        )
    tl.store(fn_ptr + row, n, mask=mask)
    tl.store(fd_ptr + row, d, mask=mask)
    tl.store(fm_ptr + row, m, mask=mask)


@triton.jit
def load_carry(n_ptr, d_ptr, m_ptr, b, c, units, num_units):
    offset = (b * tl.num_programs(2) + c) * num_units + units
    mask = units < num_units
    n = tl.load(n_ptr + offset, mask=mask, other=0.0)
    d = tl.load(d_ptr + offset, mask=mask, other=0.0)
    m = tl.load(m_ptr + offset, mask=mask, other=0.0)
    return n, d, m


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
    b, c = tl.program_id(0), tl.program_id(2)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    n, d, m = load_carry(cn_ptr, cd_ptr, cm_ptr, b, c, units, num_units)
    for i in range(CHUNK):
        t = c * CHUNK + i
        z, la, lg, pos, valid, step_mask = load_step(
            z_ptr,
            la_ptr,
            lg_ptr,
            pos_ptr,
            pos_stride,
            b,
            t,
            units,
            length,
            num_units,
            HAS_POS,
        )
        n, d, m, _, _, _ = step(n, d, m, z, la, lg, pos, valid, HAS_POS)
        offset = (b * length + t) * num_units + units
        tl.store(out_ptr + offset, n / safe(d), mask=step_mask)


@triton.jit
def average_sources(grad_average, n, d):
    """The cotangents of `(n^_t, d^_t)` from that of `n^_t / s_t`."""
    s = safe(d)
    return grad_average / s, -grad_average * n / (s * s)


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
    b, c = tl.program_id(0), tl.program_id(2)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = units < num_units
    n, d, m = load_carry(cn_ptr, cd_ptr, cm_ptr, b, c, units, num_units)
    sent_n = tl.full((BLOCK,), 0.0, tl.float32)
    sent_d = sent_n
    product = sent_n + 1.0
    for i in range(CHUNK):
        t = c * CHUNK + i
        z, la, lg, pos, valid, step_mask = load_step(
            z_ptr,
            la_ptr,
            lg_ptr,
            pos_ptr,
            pos_stride,
            b,
            t,
            units,
            length,
            num_units,
            HAS_POS,
        )
        n, d, m, p, _, _ = step(n, d, m, z, la, lg, pos, valid, HAS_POS)
        offset = (b * length + t) * num_units + units
        grad = tl.load(ga_ptr + offset, mask=step_mask, other=0.0)
        source_n, source_d = average_sources(grad, n, d)
        product *= p
        sent_n += source_n * product
        sent_d += source_d * product
    offset = (b * tl.num_programs(2) + c) * num_units + units
    tl.store(sent_n_ptr + offset, sent_n, mask=mask)
    tl.store(sent_d_ptr + offset, sent_d, mask=mask)
    tl.store(product_ptr + offset, product, mask=mask)


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
    b = tl.program_id(0)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = units < num_units
    row = b * num_units + units
    x_n = tl.load(gn_ptr + row, mask=mask, other=0.0)
    x_d = tl.load(gd_ptr + row, mask=mask, other=0.0)
    for j in range(num_chunks):
        c = num_chunks - 1 - j
        offset = (b * num_chunks + c) * num_units + units
        tl.store(into_n_ptr + offset, x_n, mask=mask)
        tl.store(into_d_ptr + offset, x_d, mask=mask)
        product = tl.load(product_ptr + offset, mask=mask, other=0.0)
        x_n = x_n * product + tl.load(sent_n_ptr + offset, mask=mask, other=0.0)
        x_d = x_d * product + tl.load(sent_d_ptr + offset, mask=mask, other=0.0)
    tl.store(gn0_ptr + row, x_n, mask=mask)
    tl.store(gd0_ptr + row, x_d, mask=mask)


@triton.jit
def chunk_states(
    z_ptr,
    la_ptr,
    lg_ptr,
    pos_ptr,
    pos_stride,
    HAS_POS: tl.constexpr,
    cn_ptr,
    cd_ptr,
    cm_ptr,
    b,
    c,
    units,
    rows,
    length,
    num_units,
    CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Chunk `c` re-run from its carry: the state before each of its steps,
    as `[CHUNK, BLOCK]` tiles `(n^, d^, m)`."""
    n, d, m = load_carry(cn_ptr, cd_ptr, cm_ptr, b, c, units, num_units)
    tile_n = tl.full((CHUNK, BLOCK), 0.0, tl.float32)
    tile_d = tile_n
    tile_m = tile_n
    for i in range(CHUNK):
        tile_n = tl.where(rows == i, n[None, :], tile_n)
        tile_d = tl.where(rows == i, d[None, :], tile_d)
        tile_m = tl.where(rows == i, m[None, :], tile_m)
        z, la, lg, pos, valid, _ = load_step(
            z_ptr,
            la_ptr,
            lg_ptr,
            pos_ptr,
            pos_stride,
            b,
            c * CHUNK + i,
            units,
            length,
            num_units,
            HAS_POS,
        )
        n, d, m, _, _, _ = step(n, d, m, z, la, lg, pos, valid, HAS_POS)
    return tile_n, tile_d, tile_m


@triton.jit
def step_gradients(
    x_n,
    x_d,
    n_before,
    d_before,
    m_before,
    z,
    la,
    lg,
    pos,
    valid,
    grad,
    HAS_POS: tl.constexpr,
):
    """Back through one step from the cotangents `(x_n, x_d)` of the state
    after it and `grad`, that of its average: the cotangents of the state
    before it, and the gradients of `(z, log a, log gamma)`."""
    n, d, _, p, q, attended = step(
        n_before, d_before, m_before, z, la, lg, pos, valid, HAS_POS
    )
    source_n, source_d = average_sources(grad, n, d)
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
    b, c = tl.program_id(0), tl.program_id(2)
    units = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = units < num_units
    rows = tl.arange(0, CHUNK)[:, None]
    tile_n, tile_d, tile_m = chunk_states(
        z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride, HAS_POS, cn_ptr, cd_ptr,
        cm_ptr, b, c, units, rows, length, num_units, CHUNK, BLOCK,
    )  # fmt: skip
    # Time in reverse, from the cotangent entering the chunk's end.
    offset = (b * tl.num_programs(2) + c) * num_units + units
    x_n = tl.load(into_n_ptr + offset, mask=mask, other=0.0)
    x_d = tl.load(into_d_ptr + offset, mask=mask, other=0.0)
    for j in range(CHUNK):
        i = CHUNK - 1 - j
        t = c * CHUNK + i
        n_before = row(tile_n, rows, i)
        d_before = row(tile_d, rows, i)
        z, la, lg, pos, valid, step_mask = load_step(
            z_ptr, la_ptr, lg_ptr, pos_ptr, pos_stride, b, t, units, length,
            num_units, HAS_POS,
        )  # fmt: skip
        offset = (b * length + t) * num_units + units
        grad = tl.load(ga_ptr + offset, mask=step_mask, other=0.0)
        x_n, x_d, grad_z, grad_la, grad_lg = step_gradients(
            x_n,
            x_d,
            n_before,
            d_before,
            row(tile_m, rows, i),
            z,
            la,
            lg,
            pos,
            valid,
            grad,
            HAS_POS,
        )
        tl.store(gz_ptr + offset, grad_z, mask=step_mask)
        tl.store(gla_ptr + offset, grad_la, mask=step_mask)
        tl.store(glg_ptr + offset, grad_lg, mask=step_mask)
