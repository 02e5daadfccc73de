"""The JAX parts of the enwik8 loop: the same members as
`tensorflow_parts.TensorFlowParts`, without TensorFlow."""

import contextlib

import keras
import numpy as np

from keras_rda.lab.enwik8.array_checkpoint import ArrayCheckpoint
from keras_rda.lab.enwik8.jax_segment_steps import JaxSegmentSteps


class JaxParts:
    """The enwik8 loop's JAX-specific parts.

    Args:
        strategy: None or the lab's one-device strategy (the default
            device), or a strategy with a `distribution` attribute (a
            `keras.distribution.DataParallel`, from `--strategy
            data-parallel`), whose devices each get `global_batch /
            devices` rows.
    """

    backend = "jax"

    def __init__(self, strategy=None):
        import jax

        if jax.process_count() > 1:
            raise ValueError(
                "The enwik8 loop runs on one host, but JAX runs "
                f"{jax.process_count()} processes; use data-parallel on one host."
            )
        self.strategy = strategy
        self.distribution = getattr(strategy, "distribution", None)
        self.num_replicas = getattr(strategy, "num_replicas_in_sync", 1)
        self._steps = None

    def scope(self):
        """The strategy's scope (variables replicated under data parallel)."""
        return self.strategy.scope() if self.strategy else contextlib.nullcontext()

    def optimizer(self, learning_rate, variables):
        """Adam (Keras's), built on `variables`."""
        optimizer = keras.optimizers.Adam(learning_rate=learning_rate, name="adam")
        optimizer.build(variables)
        return optimizer

    def checkpoint(
        self, out_dir, model, optimizer, state_sizes, batch_size, run_config
    ):
        """An `ArrayCheckpoint` (restores the latest one in `out_dir`)."""
        return ArrayCheckpoint(
            out_dir, model, optimizer, state_sizes, batch_size, run_config
        )

    def segment_steps(self, model, optimizer, global_chars, clipvalue):
        """The jit-compiled train/eval steps (`JaxSegmentSteps`)."""
        self._steps = JaxSegmentSteps(
            model, optimizer, global_chars, clipvalue, distribution=self.distribution
        )
        return self._steps

    def distribute(self, values, global_batch):
        """`[global_batch, ...]` arrays on the devices, rows sharded."""
        del global_batch  # the distribution's layout splits the rows
        if self._steps is None:
            raise RuntimeError("segment_steps must be made before distribute.")
        return self._steps.distribute(values)

    def zero_states(self, sizes, global_batch):
        """All-zero states, one `[global_batch, size]` per size, placed."""
        return self.distribute(
            [np.zeros((global_batch, s), np.float32) for s in sizes], global_batch
        )

    def carried_state(self, checkpoint, global_batch):
        """The checkpoint's carried state, placed as a batch is."""
        return self.distribute(checkpoint.distributed_state(), global_batch)

    def flag(self, value):
        """A Python bool as the steps' `reset` argument."""
        return np.bool_(value)
