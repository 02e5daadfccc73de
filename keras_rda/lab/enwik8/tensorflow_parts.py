"""The TensorFlow parts of the enwik8 loop, behind the trainer's interface.

`Enwik8Trainer` is the same on every backend; what differs (the optimizer,
the checkpoint, the compiled segment steps and the placement of a batch) is
one object per backend with the same members, this one and
`jax_parts.JaxParts`.
"""

import tensorflow as tf

from keras_rda.lab.enwik8 import replica_rows
from keras_rda.lab.enwik8.checkpointing import TrainingCheckpoint
from keras_rda.lab.enwik8.segment_steps import SegmentSteps
from keras_rda.lab.enwik8.segment_steps import global_gradient_adam


class TensorFlowParts:
    """The enwik8 loop's TensorFlow-specific parts.

    Args:
        strategy: a `tf.distribute.Strategy` (None: the current one).
    """

    backend = "tensorflow"

    def __init__(self, strategy=None):
        self.strategy = strategy or tf.distribute.get_strategy()
        self.num_replicas = self.strategy.num_replicas_in_sync

    def scope(self):
        """The context in which the model and optimizer are built."""
        return self.strategy.scope()

    def optimizer(self, learning_rate, variables):
        """Adam built on `variables`, fed the gradient summed over replicas."""
        return global_gradient_adam(learning_rate, variables)

    def checkpoint(
        self, out_dir, model, optimizer, state_sizes, batch_size, run_config
    ):
        """A `TrainingCheckpoint` (restores the latest one in `out_dir`)."""
        return TrainingCheckpoint(
            out_dir,
            model,
            optimizer,
            self.strategy,
            state_sizes,
            batch_size,
            run_config=run_config,
        )

    def segment_steps(self, model, optimizer, global_chars, clipvalue):
        """The compiled train/eval steps (`SegmentSteps`)."""
        return SegmentSteps(
            model, optimizer, self.strategy, global_chars, clipvalue=clipvalue
        )

    def distribute(self, values, global_batch):
        """`[global_batch, ...]` arrays cut into the replicas' row blocks."""
        return replica_rows.distribute(self.strategy, values, global_batch)

    def zero_states(self, sizes, global_batch):
        """All-zero states, one `[global_batch, size]` per size, distributed."""
        return replica_rows.zero_states(self.strategy, sizes, global_batch)

    def carried_state(self, checkpoint, global_batch):
        """The checkpoint's carried state, cut into the replicas' rows."""
        del global_batch  # the checkpoint knows it
        return checkpoint.distributed_state()

    def flag(self, value):
        """A Python bool as the steps' `reset` argument."""
        return tf.constant(value)
