"""The global batch's rows cut into per-replica blocks, and gathered back.

Each replica keeps its own slice of the carried state on its device; the
global batch `[global_batch, ...]` is cut into contiguous per-replica blocks
of rows, the same blocks at every step, so every replica continues its own
rows of the text. TensorFlow only (`tf.distribute`).
"""

import numpy as np
import tensorflow as tf


def distribute(strategy, values, global_batch):
    """Cuts each `[global_batch, ...]` value (`global_batch` a multiple of
    `strategy`'s replicas) into per-replica row blocks: replica `i` holds rows
    `[i * per, (i + 1) * per)` (with one replica, the tensors themselves)."""
    values = [tf.convert_to_tensor(v) for v in values]
    replicas = strategy.num_replicas_in_sync
    if replicas == 1:
        return values
    per = global_batch // replicas

    def block(context):
        i = context.replica_id_in_sync_group
        return [v[i * per : (i + 1) * per] for v in values]

    return strategy.experimental_distribute_values_from_function(block)


def gather(strategy, states):
    """Per-replica state tensors back to `[global_batch, size]` tensors."""
    return [
        tf.concat(
            [tf.convert_to_tensor(t) for t in strategy.experimental_local_results(s)],
            axis=0,
        )
        for s in states
    ]


def zero_states(strategy, sizes, global_batch):
    """Distributed all-zero states, one `[global_batch, size]` per size."""
    return distribute(
        strategy,
        [np.zeros((global_batch, s), np.float32) for s in sizes],
        global_batch,
    )
