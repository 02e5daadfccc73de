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
    """Copy-task sequences with one or several memorise/recall episodes.

    Every episode `e` places `copy_length` random symbols (from
    `num_symbols`) at input steps `starts[e] + 0 .. copy_length - 1`, the
    recall marker at step `recall[e]`, and asks for the same symbols at
    output steps `recall[e] + 1 ..`; every other output is the blank.

    Args:
        rng: `numpy.random.Generator`.
        batch_size: number of sequences.
        num_symbols: alphabet size K.
        copy_length: symbols per episode S.
        length: total number of steps.
        recall_steps: `(starts, recall)`, two int arrays of shape
            `[batch, episodes]`: where each episode's symbols start and where
            its recall marker sits.

    Returns:
        `(inputs, targets)`: `inputs` float32 `[batch, length, K + 2]`, a
        one-hot of the K symbols, the blank (index K) and the recall marker
        (index K + 1); `targets` int32 `[batch, length]` over K + 1 classes
        (symbols, then the blank at index K).
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
