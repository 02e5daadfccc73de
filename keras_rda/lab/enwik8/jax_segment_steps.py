"""The jit-compiled train and eval steps of one truncated-BPTT segment (JAX).

The same step as the TensorFlow loop's `segment_steps`, written with Keras
3's stateless API so that JAX compiles it whole (one `jax.jit` program); the
layer's initial state is read under a `keras.StatelessScope`, so that a
learned one (`s0` of the RWA/RDA) is the step's value, not a constant frozen
into the program. Under a `keras.distribution.DataParallel`
(`--strategy data-parallel`) the inputs and the carried state are sharded by
rows over the devices and the variables replicated; the loss is summed over
the global batch inside the program, so JAX inserts the all-reduce itself and
the clipped gradient, the update and the result are those of one device.

The variables stay Keras variables: their new values are assigned back
after each step (no copy on JAX), for evaluation and checkpoints.
"""

import jax
import jax.numpy as jnp
import keras
import numpy as np

from keras_rda.lab.enwik8.char_model import RNN_LAYER_NAME
from keras_rda.lab.strategies import shard_batch


class JaxSegmentSteps:
    """The jit-compiled train and eval step of one segment (JAX backend).

    The arguments, and those of `train` and `evaluate`, are
    `segment_steps.SegmentSteps`'s, with a Keras Adam as `optimizer` and,
    instead of a strategy, `distribution`: a `keras.distribution.Distribution`
    whose data layout shards the rows of a batch (the global batch, as
    `distribute` returns it), or None (one device).
    """

    def __init__(self, model, optimizer, global_chars, clipvalue, distribution=None):
        self.model = model
        self.optimizer = optimizer
        self.global_chars = global_chars
        self.clipvalue = clipvalue
        self.distribution = distribution
        self._rnn = model.get_layer(RNN_LAYER_NAME)
        self._train = jax.jit(self._train_step)
        self._eval = jax.jit(self._eval_step)
        # The compiled training step (for inspection, e.g. `.lower(...)`).
        self.xla_function = self._train

    def distribute(self, values):
        """Each `[global_batch, ...]` array as a device array, its rows
        sharded over the distribution's devices (if any, through
        `keras_rda.lab.strategies.shard_batch`)."""
        if self.distribution is None:
            return [jnp.asarray(v) for v in values]
        return shard_batch([np.asarray(v) for v in values], self.distribution)

    def train(self, x, y, states, reset):
        """One training step; updates the model's and optimizer's variables."""
        trainable = [v.value for v in self.model.trainable_variables]
        non_trainable = [v.value for v in self.model.non_trainable_variables]
        optimizer_vars = [v.value for v in self.optimizer.variables]
        nats, new_states, trainable, non_trainable, optimizer_vars = self._train(
            trainable, non_trainable, optimizer_vars, x, y, states, reset
        )
        for variables, values in (
            (self.model.trainable_variables, trainable),
            (self.model.non_trainable_variables, non_trainable),
            (self.optimizer.variables, optimizer_vars),
        ):
            for variable, value in zip(variables, values):
                variable.assign(value)
        return nats, new_states

    def evaluate(self, x, y, states, reset):
        """One evaluation step (forward only)."""
        trainable = [v.value for v in self.model.trainable_variables]
        non_trainable = [v.value for v in self.model.non_trainable_variables]
        return self._eval(trainable, non_trainable, x, y, states, reset)

    def _segment_loss(self, trainable, non_trainable, x, y, states, reset, training):
        """Summed cross-entropy (nats), new state and non-trainable values."""
        mapping = list(zip(self.model.trainable_variables, trainable))
        mapping += list(zip(self.model.non_trainable_variables, non_trainable))
        with keras.StatelessScope(state_mapping=mapping):
            initial = self._rnn.get_initial_state(x.shape[0])
        states = [
            jnp.where(reset, jnp.asarray(i, s.dtype), s)
            for i, s in zip(initial, states)
        ]
        (logits, *new_states), non_trainable = self.model.stateless_call(
            trainable, non_trainable, [x, *states], training=training
        )
        log_p = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
        nats = -jnp.sum(jnp.take_along_axis(log_p, y[..., None], axis=-1))
        new_states = [jax.lax.stop_gradient(s) for s in new_states]
        return nats, new_states, non_trainable

    def _train_step(
        self, trainable, non_trainable, optimizer_vars, x, y, states, reset
    ):
        def loss_fn(trainable):
            nats, new_states, new_non_trainable = self._segment_loss(
                trainable, non_trainable, x, y, states, reset, True
            )
            return nats / self.global_chars, (nats, new_states, new_non_trainable)

        (_, (nats, new_states, non_trainable)), grads = jax.value_and_grad(
            loss_fn, has_aux=True
        )(trainable)
        if self.clipvalue:
            grads = [jnp.clip(g, -self.clipvalue, self.clipvalue) for g in grads]
        trainable, optimizer_vars = self.optimizer.stateless_apply(
            optimizer_vars, grads, trainable
        )
        return nats, new_states, trainable, non_trainable, optimizer_vars

    def _eval_step(self, trainable, non_trainable, x, y, states, reset):
        nats, new_states, _ = self._segment_loss(
            trainable, non_trainable, x, y, states, reset, False
        )
        return nats, new_states
