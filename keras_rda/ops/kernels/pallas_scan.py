"""The parallel RDA's discounted running average as Pallas kernels (JAX).

Computes what `keras_rda.ops.parallel_scan.discounted_average_scan`
computes (RDA paper, section 5, with gates that read only `x_t`): the
scaled, overflow-free running average `A_t = n^_t / d^_t` at every step,
with its special cases (`d^ = 0` is empty: the past then does not bound
`m_t`; where `a_t = 0`, `q_t = 0`).

Equations: see `keras_rda.ops.attention_average` (the step: `n^_t =
n^_{t-1} p_t + z_t q_t`, `d^_t = d^_{t-1} p_t + q_t`, `p_t` and `q_t` the
scaled weights of the past and of `z_t`). The passes and the backward's
reverse recurrence are written out below, once for this module and
`triton_scan`.

Passes. Time is cut into chunks of `chunk_size` steps; every pass is one
`pl.pallas_call` whose programs each own one batch row and one tile of
`block_units` units (every `(row, unit)` is an independent element-wise
recurrence: there is no matmul), all state in float32 registers:

Forward

1. `_summary_kernel`, grid `(batch, unit tiles, chunks)`: each chunk's steps
   from an empty state, giving its summary `(n^, d^, m, G)` (`G` its total
   log-discount), `[batch, chunks, units]` each.
2. `_carry_kernel`, grid `(batch, unit tiles)`: the chunks in order from the
   initial state by `attention_average.combine_summaries`, writing the
   state before each chunk (its carry) and the final state.
3. `_average_kernel`, grid `(batch, unit tiles, chunks)`: each chunk re-runs
   its steps from its carry and writes the averages.

Written to memory: the averages, `7 * batch * chunks * units` floats of
summaries and carries, the final state; no per-step state. The inputs are
read twice.

Backward (`jax.custom_vjp`; `m` is a constant, as the portable path's
`stop_gradient` makes it). With `x_t = (dL/dn^_t, dL/dd^_t)` and `g_t` the
cotangent of `A_t`, the reverse recurrence is

    x_t = p_{t+1} x_{t+1} + (g_t / s_t, -g_t n^_t / s_t^2),  s_t = d^_t or 1
    dz_t = x^n_t q_t,   dlog a_t = (x^n_t z_t + x^d_t) q_t,
    dpast_t = (x^n_t n^_{t-1} + x^d_t d^_{t-1}) p_t

where `dpast_t` is `d/dlog gamma_t` once something is attended, and
`d/dlog a_t` before (the past's log-scale is then `log a_t`).

4. `_adjoint_summary_kernel`, grid `(batch, unit tiles, chunks)`: each chunk
   re-runs its steps from its carry and accumulates, forward in time, what
   it sends to the previous chunk from an empty cotangent,
   `sum_k a_k prod_{j<=k} p_j`, and its product of `p` (both <= the
   cotangents' size: nothing overflows).
5. `_adjoint_carry_kernel`, grid `(batch, unit tiles)`: the chunks in
   reverse from the final state's cotangent: the cotangent entering each
   chunk's end, and that of the initial state.
6. `_gradient_kernel`, grid `(batch, unit tiles, chunks)`: each chunk re-runs
   its steps, keeping each step's previous state in a `[chunk_size,
   block_units]` register tile, then runs time in reverse writing the
   gradients of `z`, `log a` and `log gamma`.

The backward reads the inputs and the cotangent twice and writes the three
gradients; `m_0`'s gradient (nonzero where `d^_0 > 0`, as in the portable
path) is formed from the initial state's. Gradients equal the portable
path's, except at an empty initial state (`d^_0 = 0`): the average is
discontinuous there, and the kernels give the initial state the
step-by-step recurrence's gradient, which the portable `"chunked"` and
`"associative"` methods do not share with it (nor with each other).

Support. float32 computation (inputs of other float dtypes are cast; the
results come back in the inputs' dtypes); `positive` None, or boolean
`[batch, time, units]` / `[batch, time, 1]`; any batch, units and length
(the wrapper pads units to a multiple of `block_units` and time to a
multiple of `chunk_size`, both powers of two as Triton-lowered Pallas
requires; padded steps are the identity). On a GPU the kernels lower
through Pallas's Triton backend; on a CPU pass `interpret=True`.
"""

import collections
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

#: Steps per chunk (a power of two): the sequential depth of passes 1, 3, 4
#: and 6, and the rows of the gradient kernel's register tiles.
CHUNK_SIZE = 32
#: Units per program (a power of two, at most this; fewer for fewer units).
BLOCK_UNITS = 32
#: Warps per program on a GPU (a tile of 32 units is one warp's lanes).
NUM_WARPS = 1


def discounted_average_scan(
    features,
    log_a,
    log_gamma,
    positive,
    initial_state,
    interpret=False,
    chunk_size=CHUNK_SIZE,
):
    """Runs the scaled discounted average over a sequence, as Pallas kernels.

    The arguments and results of
    `keras_rda.ops.parallel_scan.discounted_average_scan` (without its
    `method`), differentiable (`jax.vjp`) with respect to `features`,
    `log_a`, `log_gamma` and the initial state.

    Args:
        features: `[batch, time, units]`, `z_t`.
        log_a: `[batch, time, units]`, `log a_t`.
        log_gamma: `[batch, time, units]`, `log gamma_t`.
        positive: None (every `a_t > 0`), or boolean `[batch, time, units]`
            or `[batch, time, 1]`: where `a_t > 0`.
        initial_state: `(n^_0, d^_0, m_0)`, each `[batch, units]`.
        interpret: run the kernels in Pallas's interpreter (on a CPU).
        chunk_size: steps per chunk, a power of two.

    Returns:
        `(averages, (n^, d^, m))`: `averages` `[batch, time, units]`, the
        final state each `[batch, units]`.

    Raises:
        ValueError: `chunk_size` is not a power of two, or `positive` has
            another shape.
    """
    _check_power_of_two("chunk_size", chunk_size)
    features, log_a, log_gamma = (jnp.asarray(x) for x in (features, log_a, log_gamma))
    batch, length, units = features.shape
    if positive is not None:
        positive = jnp.asarray(positive)
        if positive.shape not in ((batch, length, units), (batch, length, 1)):
            raise ValueError(
                "Received an invalid value for argument `positive`, expected "
                f"None or a boolean of shape {(batch, length, units)} or "
                f"{(batch, length, 1)}, got shape {positive.shape}"
            )
    state_dtypes = [jnp.asarray(s).dtype for s in initial_state]
    block_units = min(BLOCK_UNITS, _next_power_of_two(units))
    config = _Config(
        length=length,
        chunk_size=chunk_size,
        block_units=block_units,
        interpret=bool(interpret),
        has_pos=positive is not None,
    )

    time_pad = -length % chunk_size
    unit_pad = -units % block_units

    def pad(x, units_too=True):
        x = x.astype(jnp.float32) if x.dtype != jnp.int8 else x
        widths = [(0, 0)] * x.ndim
        widths[1] = (0, time_pad)
        if units_too and x.ndim == 3:
            widths[2] = (0, unit_pad)
        if x.ndim == 2:
            widths = [(0, 0), (0, unit_pad)]
        return jnp.pad(x, widths) if any(w != (0, 0) for w in widths) else x

    z, la, lg = (pad(x) for x in (features, log_a, log_gamma))
    pos = None
    if positive is not None:
        pos = pad(positive.astype(jnp.int8), units_too=positive.shape[-1] != 1)
    state = tuple(pad(jnp.asarray(s)) for s in initial_state)
    averages, final_state = _scan(config, z, la, lg, pos, *state)
    averages = averages[:, :length, :units].astype(features.dtype)
    final_state = tuple(
        s[:, :units].astype(dtype) for s, dtype in zip(final_state, state_dtypes)
    )
    return averages, final_state


#: The static settings of one scan (hashable, for `nondiff_argnums`).
_Config = collections.namedtuple(
    "_Config", ["length", "chunk_size", "block_units", "interpret", "has_pos"]
)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _scan(config, z, la, lg, pos, n0, d0, m0):
    """The scan on padded float32 inputs: `(averages, (n^, d^, m))`."""
    averages, final_state, _ = _forward(config, z, la, lg, pos, (n0, d0, m0))
    return averages, final_state


def _scan_fwd(config, z, la, lg, pos, n0, d0, m0):
    averages, final_state, carries = _forward(config, z, la, lg, pos, (n0, d0, m0))
    return (averages, final_state), (z, la, lg, pos, n0, d0, carries)


def _scan_bwd(config, residuals, cotangents):
    z, la, lg, pos, n0, d0, carries = residuals
    grad_averages, (grad_n, grad_d, _) = cotangents  # m: no gradient
    grads = _backward(config, z, la, lg, pos, carries, grad_averages, grad_n, grad_d)
    grad_z, grad_la, grad_lg, grad_n0, grad_d0 = grads
    # m_0 enters through step 1's past log-scale `m_0 + log gamma_1` (when
    # d^_0 > 0), whose gradient is `x^n_1 n^_0 p_1 + x^d_1 d^_0 p_1`.
    grad_m0 = jnp.where(d0 > 0, grad_n0 * n0 + grad_d0 * d0, 0.0)
    return grad_z, grad_la, grad_lg, None, grad_n0, grad_d0, grad_m0


_scan.defvjp(_scan_fwd, _scan_bwd)


# --- the step and the combination, on one tile of units ---------------------


def _step(n, d, m, z, la, lg, pos, valid):
    """One step of the scaled average on `[block_units]` vectors.

    Returns `(n, d, m, p, q, attended)`; an invalid (padding) step is the
    identity (`p = 1`, `q = 0`).
    """
    attended = d > 0
    past = jnp.where(attended, m + lg, la)
    if pos is None:
        scale = jnp.maximum(past, la)
        q = jnp.exp(la - scale)
    else:
        scale = jnp.maximum(past, jnp.where(pos, la, past))
        q = jnp.where(pos, jnp.exp(jnp.where(pos, la, scale) - scale), 0.0)
    p = jnp.where(valid, jnp.exp(past - scale), 1.0)
    q = jnp.where(valid, q, 0.0)
    scale = jnp.where(valid, scale, m)
    return n * p + z * q, d * p + q, scale, p, q, attended


def _combine(n, d, m, later_n, later_d, later_m, later_g):
    """`attention_average.combine_summaries` on `[block_units]` vectors."""
    past = jnp.where(d > 0, m + later_g, later_m)
    current = jnp.where(later_d > 0, later_m, past)
    scale = jnp.maximum(past, current)
    past_weight = jnp.exp(past - scale)
    later_weight = jnp.exp(current - scale)
    return (
        n * past_weight + later_n * later_weight,
        d * past_weight + later_d * later_weight,
        scale,
    )


def _safe(d):
    """The divisor of `n^ / d^`: `d^`, or 1 where it is 0."""
    return jnp.where(d > 0, d, 1.0)


def _inputs(refs, i):
    """Step `i` of the chunk: `(z, log a, log gamma, positive or None)`."""
    z_ref, la_ref, lg_ref, pos_ref = refs
    pos = None if pos_ref is None else pos_ref[i, :] != 0
    return z_ref[i, :], la_ref[i, :], lg_ref[i, :], pos


def _steps_left(config):
    """The real (not padding) steps from the current chunk's start on; step
    `i` of the chunk is real where `i < _steps_left(config)`. (Read once,
    outside the time loop: the interpreter cannot see `program_id` inside
    one.)"""
    return config.length - pl.program_id(2) * config.chunk_size


# --- forward ----------------------------------------------------------------


def _summary_kernel(config, *refs):
    inputs, (n_ref, d_ref, m_ref, g_ref) = _split_inputs(config, refs)
    left = _steps_left(config)

    def body(i, carry):
        n, d, m, g = carry
        z, la, lg, pos = _inputs(inputs, i)
        valid = i < left
        n, d, m, *_ = _step(n, d, m, z, la, lg, pos, valid)
        return n, d, m, g + jnp.where(valid, lg, 0.0)

    zeros = jnp.zeros((config.block_units,), jnp.float32)
    n, d, m, g = jax.lax.fori_loop(0, config.chunk_size, body, (zeros,) * 4)
    n_ref[...], d_ref[...], m_ref[...], g_ref[...] = n, d, m, g


def _carry_kernel(num_chunks, *refs):
    summaries, initial, carries, final = refs[:4], refs[4:7], refs[7:10], refs[10:]

    def body(c, state):
        for ref, value in zip(carries, state):
            ref[c, :] = value
        return _combine(*state, *(ref[c, :] for ref in summaries))

    state = tuple(ref[...] for ref in initial)
    state = jax.lax.fori_loop(0, num_chunks, body, state)
    for ref, value in zip(final, state):
        ref[...] = value


def _average_kernel(config, *refs):
    inputs, rest = _split_inputs(config, refs)
    left = _steps_left(config)
    carry_refs, (out_ref,) = rest[:3], rest[3:]

    def body(i, state):
        z, la, lg, pos = _inputs(inputs, i)
        n, d, m, *_ = _step(*state, z, la, lg, pos, i < left)
        out_ref[i, :] = n / _safe(d)
        return n, d, m

    state = tuple(ref[...] for ref in carry_refs)
    jax.lax.fori_loop(0, config.chunk_size, body, state)


def _forward(config, z, la, lg, pos, initial_state):
    """Passes 1-3: `(averages, final_state, carries)` on padded inputs."""
    batch, padded_length, padded_units = z.shape
    num_chunks = padded_length // config.chunk_size
    summaries = _call(
        config,
        functools.partial(_summary_kernel, config),
        _step_specs(config, pos),
        [_chunk_spec(config)] * 4,
        [_array(batch, num_chunks, padded_units)] * 4,
        num_chunks,
    )(z, la, lg, *_optional(pos))
    carries_and_final = _carry_call(
        config,
        functools.partial(_carry_kernel, num_chunks),
        num_chunks,
        out_shapes=[_array(batch, num_chunks, padded_units)] * 3
        + [_array(batch, padded_units)] * 3,
    )(*summaries, *initial_state)
    carries, final_state = carries_and_final[:3], carries_and_final[3:]
    (averages,) = _call(
        config,
        functools.partial(_average_kernel, config),
        _step_specs(config, pos) + [_chunk_spec(config)] * 3,
        [_rows_spec(config)],
        [_array(batch, padded_length, padded_units)],
        num_chunks,
    )(z, la, lg, *_optional(pos), *carries)
    return averages, tuple(final_state), tuple(carries)


# --- backward ---------------------------------------------------------------


def _adjoint_summary_kernel(config, *refs):
    inputs, rest = _split_inputs(config, refs)
    left = _steps_left(config)
    grad_ref, carry_refs = rest[0], rest[1:4]
    sent_n_ref, sent_d_ref, product_ref = rest[4:]

    def body(i, carry):
        n, d, m, sent_n, sent_d, product = carry
        z, la, lg, pos = _inputs(inputs, i)
        n, d, m, p, _, _ = _step(n, d, m, z, la, lg, pos, i < left)
        product = product * p
        source_n, source_d = _average_sources(grad_ref[i, :], n, d)
        return (
            n,
            d,
            m,
            sent_n + source_n * product,
            sent_d + source_d * product,
            product,
        )

    zeros = jnp.zeros((config.block_units,), jnp.float32)
    state = tuple(ref[...] for ref in carry_refs)
    carry = (*state, zeros, zeros, zeros + 1.0)
    carry = jax.lax.fori_loop(0, config.chunk_size, body, carry)
    sent_n_ref[...], sent_d_ref[...], product_ref[...] = carry[3:]


def _adjoint_carry_kernel(num_chunks, *refs):
    sent_n_ref, sent_d_ref, product_ref, final_n_ref, final_d_ref = refs[:5]
    into_n_ref, into_d_ref, initial_n_ref, initial_d_ref = refs[5:]

    def body(j, cotangent):
        c = num_chunks - 1 - j
        into_n_ref[c, :], into_d_ref[c, :] = cotangent
        product = product_ref[c, :]
        return (
            cotangent[0] * product + sent_n_ref[c, :],
            cotangent[1] * product + sent_d_ref[c, :],
        )

    cotangent = (final_n_ref[...], final_d_ref[...])
    cotangent = jax.lax.fori_loop(0, num_chunks, body, cotangent)
    initial_n_ref[...], initial_d_ref[...] = cotangent


def _gradient_kernel(config, *refs):
    inputs, rest = _split_inputs(config, refs)
    left = _steps_left(config)
    grad_ref, carry_refs, into_refs = rest[0], rest[1:4], rest[4:6]
    grad_z_ref, grad_la_ref, grad_lg_ref = rest[6:]
    shape = (config.chunk_size, config.block_units)
    rows = jax.lax.broadcasted_iota(jnp.int32, shape, 0)

    def record(i, tiles, values):
        return tuple(jnp.where(rows == i, v[None, :], t) for t, v in zip(tiles, values))

    def forward(i, carry):
        state, tiles = carry
        tiles = record(i, tiles, state)  # the state before step i
        z, la, lg, pos = _inputs(inputs, i)
        state = _step(*state, z, la, lg, pos, i < left)[:3]
        return state, tiles

    state = tuple(ref[...] for ref in carry_refs)
    tiles = (jnp.zeros(shape, jnp.float32),) * 3
    _, tiles = jax.lax.fori_loop(0, config.chunk_size, forward, (state, tiles))

    def backward(j, cotangent):
        i = config.chunk_size - 1 - j
        before = tuple(jnp.sum(jnp.where(rows == i, t, 0.0), axis=0) for t in tiles)
        z, la, lg, pos = _inputs(inputs, i)
        valid = i < left
        n, d, _, p, q, attended = _step(*before, z, la, lg, pos, valid)
        source_n, source_d = _average_sources(grad_ref[i, :], n, d)
        x_n, x_d = cotangent[0] + source_n, cotangent[1] + source_d
        grad_past = (x_n * before[0] + x_d * before[1]) * p
        grad_z_ref[i, :] = jnp.where(valid, x_n * q, 0.0)
        grad_la_ref[i, :] = jnp.where(
            valid, (x_n * z + x_d) * q + jnp.where(attended, 0.0, grad_past), 0.0
        )
        grad_lg_ref[i, :] = jnp.where(valid & attended, grad_past, 0.0)
        return x_n * p, x_d * p

    cotangent = tuple(ref[...] for ref in into_refs)
    jax.lax.fori_loop(0, config.chunk_size, backward, cotangent)


def _average_sources(grad_average, n, d):
    """The cotangents of `(n^_t, d^_t)` from that of `A_t = n^_t / s_t`."""
    safe = _safe(d)
    return grad_average / safe, -grad_average * n / (safe * safe)


def _backward(config, z, la, lg, pos, carries, grad_averages, grad_n, grad_d):
    """Passes 4-6: the gradients of `z`, `log a`, `log gamma`, `n^_0`, `d^_0`."""
    batch, padded_length, padded_units = z.shape
    num_chunks = padded_length // config.chunk_size
    step_specs = _step_specs(config, pos)
    chunk_array = _array(batch, num_chunks, padded_units)
    sent = _call(
        config,
        functools.partial(_adjoint_summary_kernel, config),
        step_specs + [_rows_spec(config)] + [_chunk_spec(config)] * 3,
        [_chunk_spec(config)] * 3,
        [chunk_array] * 3,
        num_chunks,
    )(z, la, lg, *_optional(pos), grad_averages, *carries)
    results = _carry_call(
        config,
        functools.partial(_adjoint_carry_kernel, num_chunks),
        num_chunks,
        out_shapes=[chunk_array] * 2 + [_array(batch, padded_units)] * 2,
    )(*sent, grad_n, grad_d)
    into, grad_initial = results[:2], results[2:]
    step_array = _array(batch, padded_length, padded_units)
    grads = _call(
        config,
        functools.partial(_gradient_kernel, config),
        step_specs + [_rows_spec(config)] + [_chunk_spec(config)] * 5,
        [_rows_spec(config)] * 3,
        [step_array] * 3,
        num_chunks,
    )(z, la, lg, *_optional(pos), grad_averages, *carries, *into)
    return (*grads, *grad_initial)


# --- pallas_call plumbing ---------------------------------------------------


def _split_inputs(config, refs):
    """`((z, la, lg, pos or None), rest)` of a chunk kernel's refs."""
    if config.has_pos:
        return tuple(refs[:4]), refs[4:]
    return (*refs[:3], None), refs[3:]


def _optional(pos):
    return () if pos is None else (pos,)


def _array(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def _rows_spec(config):
    """One chunk's steps of one batch row and unit tile: `[chunk, units]`."""
    return pl.BlockSpec(
        (pl.squeezed, config.chunk_size, config.block_units),
        lambda b, u, c: (b, c, u),
    )


def _step_specs(config, pos):
    """The specs of `(z, log a, log gamma[, positive])`."""
    specs = [_rows_spec(config)] * 3
    if pos is not None:
        units = config.block_units if pos.shape[-1] != 1 else 1
        specs.append(
            pl.BlockSpec(
                (pl.squeezed, config.chunk_size, units),
                (lambda b, u, c: (b, c, u))
                if units != 1
                else (lambda b, u, c: (b, c, 0)),
            )
        )
    return specs


def _chunk_spec(config):
    """One chunk's summary of one batch row and unit tile: `[units]`."""
    return pl.BlockSpec(
        (pl.squeezed, pl.squeezed, config.block_units), lambda b, u, c: (b, c, u)
    )


def _call(config, kernel, in_specs, out_specs, out_shapes, num_chunks):
    """A `pallas_call` over `(batch, unit tiles, chunks)`."""
    batch, _, padded_units = out_shapes[0].shape
    return pl.pallas_call(
        kernel,
        out_shape=out_shapes,
        grid=(batch, padded_units // config.block_units, num_chunks),
        in_specs=in_specs,
        out_specs=out_specs,
        interpret=config.interpret,
        compiler_params=_compiler_params(config),
        name=kernel.func.__name__.strip("_"),
    )


def _compiler_params(config):
    if config.interpret:
        return None
    from jax.experimental.pallas import triton as plgpu

    return plgpu.CompilerParams(num_warps=NUM_WARPS)


def _carry_call(config, kernel, num_chunks, out_shapes):
    """A `pallas_call` over `(batch, unit tiles)` whose programs walk all
    chunks: `[batch, chunks, units]` arrays come whole (per unit tile),
    `[batch, units]` ones as one row."""
    batch, padded_units = out_shapes[-1].shape
    chunks = pl.BlockSpec(
        (pl.squeezed, num_chunks, config.block_units), lambda b, u: (b, 0, u)
    )
    row = pl.BlockSpec((pl.squeezed, config.block_units), lambda b, u: (b, u))

    def spec(x):
        return chunks if len(x.shape) == 3 else row

    def call(*arrays):
        return pl.pallas_call(
            kernel,
            out_shape=out_shapes,
            grid=(batch, padded_units // config.block_units),
            in_specs=[spec(x) for x in arrays],
            out_specs=[spec(s) for s in out_shapes],
            interpret=config.interpret,
            compiler_params=_compiler_params(config),
            name=kernel.func.__name__.strip("_"),
        )(*arrays)

    return call


def _next_power_of_two(n):
    return 1 << max(0, int(n) - 1).bit_length()


def _check_power_of_two(name, value):
    if not isinstance(value, int) or value < 1 or value & (value - 1):
        raise ValueError(
            f"Received an invalid value for argument `{name}`, expected a "
            f"power of two, got {value!r}"
        )
