"""The scaled discounted running average of a whole sequence, in parallel.

With gates that read only `x_t` (`keras_rda.ParallelRDACell`), the RDA's sums

    n_t = n_{t-1} * gamma_t + z_t * a_t,   d_t = d_{t-1} * gamma_t + a_t

are a linear recurrence, and stretches of steps compose with
`attention_average.combine_summaries` (an associative operation on
summaries `(G, m, n^, d^)`: total log-discount, running maximum of the
log-weights, scaled sums). Two ways to evaluate every prefix:

- `"chunked"` (default): split time into chunks of `chunk_size` steps; run
  the step update inside all chunks at once (`chunk_size` sequential steps,
  each over `[batch, num_chunks, units]`); scan the chunk summaries (with a
  known length and more than `CARRY_BLOCK` chunks, in blocks of
  `CARRY_BLOCK` the same way, recursively; otherwise sequentially,
  `num_chunks` steps over `[batch, units]`); combine each chunk's carry
  with its steps' local summaries. Sequential depth
  `chunk_size + CARRY_BLOCK * log_CARRY_BLOCK(T / chunk_size)` with a known
  length, `chunk_size + T / chunk_size` without, instead of `T`; `O(T)`
  work, and every operation is the scaled update or the combination, so it
  is as stable as the cell. Works with unknown batch size and length.
- `"associative"`: `keras.ops.associative_scan` over time (`O(log T)`
  depth, `O(T)` work, but several passes over the whole sequence); for
  accelerators where depth matters more than memory traffic.

Both give the state of `discounted_average_update` applied step by step,
up to float rounding.
"""

from keras import ops

from keras_rda.ops import attention_average
from keras_rda.utils import keras_compat

METHODS = ("chunked", "associative")

#: Chunks per block when the chunk carries are scanned in blocks
#: (`_blocked_carries`): short unrolled blocks, like the chunks themselves.
#: `benchmarks/parallel_rda_speed.py` times them (records
#: `results/benchmarks/*parallel_rda_blocked*.json`; docs/benchmarks.md).
CARRY_BLOCK = 8


def discounted_average_scan(
    features,
    log_a,
    log_gamma,
    positive,
    initial_state,
    method="chunked",
    chunk_size=8,
):
    """Runs the scaled discounted average over a sequence.

    Args:
        features: `[batch, time, units]`, `z_t`.
        log_a: `[batch, time, units]`, `log a_t` (see
            `attention_average.log_attention`).
        log_gamma: `[batch, time, units]`, `log gamma_t` (0 for a step that
            must leave the state alone).
        positive: None (every `a_t > 0`), or boolean `[batch, time, units]`
            or `[batch, time, 1]`: where `a_t > 0`. A step with
            `a_t = 0` and `log gamma_t = 0` is the identity (masking).
        initial_state: `(n^_0, d^_0, m_0)`, each `[batch, units]`.
        method: `"chunked"` or `"associative"` (see the module docstring).
        chunk_size: steps per chunk of the `"chunked"` method.

    Returns:
        `(averages, final_state)`: `averages` `[batch, time, units]` is
        `n_t / d_t` (0 where nothing has been attended yet), `final_state`
        the `(n^, d^, m)` after the last step, each `[batch, units]`.
    """
    # Backend tensors: PyTorch's loop hands NumPy states to the step as given.
    initial_state = [ops.convert_to_tensor(s) for s in initial_state]
    if method == "chunked":
        numerator, denominator, log_scale = _chunked_scan(
            features, log_a, log_gamma, positive, initial_state, chunk_size
        )
    elif method == "associative":
        numerator, denominator, log_scale = _associative_scan(
            features, log_a, log_gamma, positive, initial_state
        )
    else:
        raise ValueError(
            "Received an invalid value for argument `scan_method`, expected one "
            f"of {', '.join(repr(m) for m in METHODS)}, got {method!r}"
        )
    averages = attention_average.weighted_average(numerator, denominator)
    final_state = (numerator[:, -1], denominator[:, -1], log_scale[:, -1])
    return averages, final_state


def _combine_with_state(state, numerator, denominator, log_scale, log_discount):
    """`combine_summaries` of a state `[batch, units]` with the prefix
    summaries `[batch, time, units]` of the steps after it."""
    n0, d0, m0 = (ops.expand_dims(s, 1) for s in state)
    return attention_average.combine_summaries(
        n0, d0, m0, numerator, denominator, log_scale, log_discount
    )


def _associative_scan(features, log_a, log_gamma, positive, initial_state):
    """Every prefix by `keras.ops.associative_scan`, then the initial state."""
    if positive is None:
        denominator = ops.ones_like(features)
        numerator = features
        log_scale = log_a
    else:
        positive = ops.broadcast_to(positive, ops.shape(features))
        denominator = ops.cast(positive, features.dtype)
        numerator = features * denominator
        # Where a_t = 0 the step's m is a placeholder (its d^ is 0).
        log_scale = ops.where(positive, log_a, ops.zeros_like(log_a))

    def combine(first, second):
        g_a, n_a, d_a, m_a = first
        g_b, n_b, d_b, m_b = second
        n, d, m = attention_average.combine_summaries(n_a, d_a, m_a, n_b, d_b, m_b, g_b)
        return g_a + g_b, n, d, m

    shape = ops.shape(features)
    log_discount, numerator, denominator, log_scale = (
        # TensorFlow's scan loses the static shape; give it back.
        ops.reshape(x, shape)
        for x in ops.associative_scan(
            combine, (log_gamma, numerator, denominator, log_scale), axis=1
        )
    )
    return _combine_with_state(
        initial_state, numerator, denominator, log_scale, log_discount
    )


def _chunked_scan(features, log_a, log_gamma, positive, initial_state, chunk_size):
    """Every prefix by chunks: local scans, a scan of carries, a combination."""
    static_length = features.shape[1]
    if static_length is not None:
        chunk_size = max(1, min(chunk_size, static_length))
    batch, length = ops.shape(features)[0], ops.shape(features)[1]
    units = features.shape[-1] or initial_state[0].shape[-1]
    # Every reshape names its sizes (no -1): with no samples a -1 cannot be
    # inferred (a ZeroDivisionError on JAX, an error on TensorFlow).
    num_chunks = None if static_length is None else -(-static_length // chunk_size)
    chunks = num_chunks
    if chunks is None:
        chunks = (length + chunk_size - 1) // chunk_size

    def to_chunks(x, pad_value):
        """`[batch, time, c]` -> `[batch, num_chunks, chunk_size, c]`, padded
        at the end (the padding comes after the last real step, so it never
        reaches an output or the final state). `c` is `units` or 1."""
        channels = 1 if x.shape[-1] == 1 else units
        if static_length is None or static_length % chunk_size:
            pad = (chunk_size - length % chunk_size) % chunk_size
            filler = ops.full((batch, pad, channels), pad_value, dtype=x.dtype)
            x = ops.concatenate([x, filler], axis=1)
        return ops.reshape(x, (batch, chunks, chunk_size, channels))

    z = to_chunks(features, 0)
    la = to_chunks(log_a, 0)
    lg = to_chunks(log_gamma, 0)
    pos = None if positive is None else to_chunks(positive, False)

    # 1. Local scans: every chunk from an empty state, all chunks at once:
    #    `chunk_size` sequential steps over `[batch, num_chunks, units]`,
    #    unrolled (a loop would carry `[chunk_size, ...]` buffers through
    #    every iteration, which XLA on CPU copies).
    n = ops.zeros_like(z[:, :, 0])
    d, m = n, n
    local = ([], [], [])
    for i in range(chunk_size):
        n, d, m = attention_average.discounted_average_update(
            n,
            d,
            m,
            z[:, :, i],
            la[:, :, i],
            log_gamma=lg[:, :, i],
            positive=None if pos is None else pos[:, :, i],
        )
        for values, value in zip(local, (n, d, m)):
            values.append(value)
    n_local, d_local, m_local = (ops.stack(values, axis=2) for values in local)
    g_local = ops.cumsum(lg, axis=2)  # G of steps chunk_start..t

    # 2. The state at the start of each chunk, from the chunk summaries.
    carries = _chunk_carries(
        initial_state, n, d, m, g_local[:, :, -1], num_chunks, CARRY_BLOCK
    )

    # 3. Every step's state: its chunk's carry, then its local summary.
    carries = [ops.expand_dims(c, 2) for c in carries]
    n, d, m = attention_average.combine_summaries(
        *carries, n_local, d_local, m_local, g_local
    )

    def to_time(x):
        x = ops.reshape(x, (batch, chunks * chunk_size, units))
        if static_length is None or static_length % chunk_size:
            x = x[:, :length]
        return x

    return to_time(n), to_time(d), to_time(m)


def _chunk_carries(initial_state, n, d, m, g, num_chunks, block):
    """The state before each chunk, `[batch, num_chunks, units]` each.

    With a known number of chunks above `block`, the chunks' summaries are
    themselves scanned in blocks (`_blocked_carries`), so the sequential
    depth stays `block` per level; otherwise (at most `block` chunks, or an
    unknown length) by a sequential loop over the chunks.

    Args:
        initial_state: `(n^_0, d^_0, m_0)`, each `[batch, units]`.
        n, d, m, g: each chunk's summary, `[batch, num_chunks, units]`.
        num_chunks: a Python int, or None when the length is unknown.
        block: chunks per block of the blocked scan (`CARRY_BLOCK`).
    """
    if num_chunks == 1:
        return [ops.expand_dims(s, 1) for s in initial_state]
    if num_chunks is not None and 1 < block < num_chunks:
        return _blocked_carries(initial_state, n, d, m, g, num_chunks, block)

    def step(summary, state):
        """Emits the state before a chunk, then moves it past the chunk."""
        after = attention_average.combine_summaries(
            *state, *ops.split(summary, 4, axis=-1)
        )
        return ops.concatenate(state, axis=-1), list(after)

    # keras's sequential loop (works with unknown length and batch, and under
    # XLA); `keras.ops.scan` fails to trace an unknown length on TensorFlow.
    _, carries, _ = keras_compat.rnn(
        step,
        ops.concatenate([n, d, m, g], axis=-1),
        list(initial_state),
        return_all_outputs=True,
    )
    return ops.split(carries, 3, axis=-1)


def _blocked_carries(initial_state, n, d, m, g, num_chunks, block):
    """`_chunk_carries` of many chunks: the chunked scan applied to summaries.

    The chunks' summaries are cut into blocks of `block`; inside every block
    the summaries before each chunk are combined from an empty one, all
    blocks at once (`block` unrolled `combine_summaries`, whose total
    log-discounts add); the state before each block comes from
    `_chunk_carries` of the blocks' totals (blocked again while there are
    more than `block`); each chunk's state is its block's state combined
    with its prefix in the block. Padding is empty summaries (`d^ = 0`, the
    identity of `combine_summaries`).

    Returns:
        `(n^, d^, m)` before each chunk, `[batch, num_chunks, units]` each.
    """
    pad = -num_chunks % block
    num_blocks = (num_chunks + pad) // block

    def to_blocks(x):
        if pad:
            x = ops.pad(x, [(0, 0), (0, pad), (0, 0)])
        return ops.reshape(x, (ops.shape(x)[0], num_blocks, block, x.shape[-1]))

    n, d, m, g = (to_blocks(x) for x in (n, d, m, g))
    prefix = [ops.zeros_like(n[:, :, 0])] * 4  # (n^, d^, m, G): empty
    prefixes = []
    for i in range(block):
        prefixes.append(prefix)
        combined = attention_average.combine_summaries(
            *prefix[:3], n[:, :, i], d[:, :, i], m[:, :, i], g[:, :, i]
        )
        prefix = [*combined, prefix[3] + g[:, :, i]]
    before = _chunk_carries(initial_state, *prefix, num_blocks, block)
    n_in, d_in, m_in, g_in = (
        ops.stack([p[k] for p in prefixes], axis=2) for k in range(4)
    )
    carries = attention_average.combine_summaries(
        *(ops.expand_dims(c, 2) for c in before), n_in, d_in, m_in, g_in
    )
    return [
        ops.reshape(c, (ops.shape(c)[0], num_blocks * block, c.shape[-1]))[
            :, :num_chunks
        ]
        for c in carries
    ]
