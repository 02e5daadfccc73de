"""Small NumPy helpers shared by the sequence tasks (not public API)."""

import numpy as np


def one_hot(indices, depth):
    """float32 one-hot encoding of an int array: shape `indices.shape + (depth,)`."""
    return np.eye(depth, dtype=np.float32)[indices]


def two_distinct_positions(rng, batch_size, length):
    """Two different positions in `[0, length)` per row, as two int arrays."""
    first = rng.integers(0, length, size=batch_size)
    second = rng.integers(0, length - 1, size=batch_size)
    second = second + (second >= first)
    return first, second


def nonzero_normal(rng, shape):
    """N(0, 1) samples with exact zeros redrawn as a tiny positive value.

    Padded steps of masked tasks are all-zero vectors; a real step must
    never be one, or `keras.layers.Masking` would drop it.
    """
    values = rng.standard_normal(shape).astype(np.float32)
    return np.where(values == 0.0, np.float32(1e-6), values)


def length_mask(lengths, max_length):
    """float32 `[batch, max_length]`: 1 on the first `lengths[i]` steps."""
    return (np.arange(max_length)[None, :] < np.asarray(lengths)[:, None]).astype(
        np.float32
    )


def copy_batch(rng, batch_size, num_symbols, copy_length, length, recall_steps):
    """Copy-task sequences `(inputs, targets)` of `length` steps with one or
    several memorise/recall episodes.

    Every episode `e` of `recall_steps = (starts, recall)` (int arrays
    `[batch, episodes]`) places `copy_length` random symbols (of K =
    `num_symbols`) at input steps `starts[e] + 0 .. copy_length - 1`, the
    recall marker at `recall[e]`, and asks for the same symbols at output
    steps `recall[e] + 1 ..`. `inputs` are float32 one-hot over the symbols,
    the blank (K) and the marker (K + 1); `targets` int32 over the symbols
    and the blank (K).
    """
    starts, recall = recall_steps
    blank, marker = num_symbols, num_symbols + 1
    episodes = starts.shape[1]
    symbols = rng.integers(0, num_symbols, size=(batch_size, episodes, copy_length))
    offsets = np.arange(copy_length)
    rows = np.arange(batch_size)[:, None, None]
    tokens = np.full((batch_size, length), blank, dtype=np.int64)
    targets = np.full((batch_size, length), blank, dtype=np.int32)
    tokens[rows, starts[:, :, None] + offsets] = symbols
    tokens[np.arange(batch_size)[:, None], recall] = marker
    targets[rows, recall[:, :, None] + 1 + offsets] = symbols
    return one_hot(tokens, num_symbols + 2), targets
