"""The XLA-compiled train and eval steps of one truncated-BPTT segment.

One step is one segment of `bptt` characters in each of the `batch_size`
contiguous rows of a split (see `keras_rda.lab.datasets.enwik8`):

1. per replica, in one `tf.function(jit_compile=True)`: the initial state
   (the carried state, or the layer's initial state at the start of an
   epoch), the forward pass, the cross-entropy summed over the replica's
   characters and divided by the *global* number of characters in the step
   (`global_batch * bptt`), and its gradients. The new state is returned
   through `stop_gradient`: no gradient crosses a segment boundary (RDA
   paper, section 6.1);
2. the gradients are summed over replicas, clipped element-wise to
   `[-clipvalue, clipvalue]` and applied by Adam: the update does not depend
   on the number of replicas.

With one replica the whole step, Adam update included, is one XLA program;
under `MirroredStrategy` the all-reduce runs between the XLA program of
step 1 and the update; on TPU `strategy.run` compiles everything. (A
jit-compiled function nested in another is recompiled at every call, so
exactly one level is compiled.)
"""

import keras
import tensorflow as tf

from keras_rda.lab.enwik8.char_model import RNN_LAYER_NAME


class _GlobalGradientAdam(keras.optimizers.Adam):
    """Adam that receives gradients already summed over replicas.

    Keras's TensorFlow optimizer all-reduces gradients inside `apply`, after
    its own `clipvalue`; `SegmentSteps` all-reduces first and clips the
    global gradient, so the optimizer must not sum them a second time.
    """

    def _all_reduce_sum_gradients(self, grads_and_vars):
        return list(grads_and_vars)


def global_gradient_adam(learning_rate, variables):
    """The step's Adam, built on `variables` (call it in `strategy.scope()`)."""
    optimizer = _GlobalGradientAdam(learning_rate=learning_rate, name="adam")
    optimizer.build(variables)
    return optimizer


class SegmentSteps:
    """The compiled train and eval step of one segment, for any strategy.

    Args:
        model: the `build_char_model` model, `[tokens, *states] ->
            [logits, *new_states]`, built under `strategy.scope()`.
        optimizer: a `global_gradient_adam` built on the model's variables.
        strategy: the `tf.distribute.Strategy` the variables live in.
        global_chars: characters of one training step over all replicas
            (`global_batch * bptt`): the divisor of the summed loss.
        clipvalue: element-wise gradient clip (0 or None: no clipping).

    Call arguments of `train` / `evaluate`:
        x, y: int32 `[batch, bptt]` inputs and targets (per replica, see
            `replica_rows.distribute`).
        states: the carried state, one `[batch, size]` tensor per state.
        reset: scalar bool tensor; True starts from the layer's initial state.

    Both return `(nats, new_states)`: the cross-entropy in nats summed over
    all replicas' characters, and the per-replica new state.

    Attributes:
        train: the training step, a `tf.function`.
        evaluate: the evaluation step (forward only), a `tf.function`.
        xla_function: the function compiled with `jit_compile=True`: the
            whole replica step with one replica, its forward/backward with
            several, None on TPU (where `strategy.run` compiles it).
    """

    def __init__(self, model, optimizer, strategy, global_chars, clipvalue):
        self.model = model
        self.optimizer = optimizer
        self.strategy = strategy
        self.global_chars = global_chars
        self.clipvalue = clipvalue
        self._rnn = model.get_layer(RNN_LAYER_NAME)
        self._num_replicas = strategy.num_replicas_in_sync
        jit = not isinstance(strategy, tf.distribute.TPUStrategy)
        self._grad_fn = self._loss_and_grads
        replica_train = self._replica_train
        if jit and self._num_replicas == 1:
            replica_train = tf.function(replica_train, jit_compile=True)
            self.xla_function = replica_train
        elif jit:
            self._grad_fn = tf.function(self._loss_and_grads, jit_compile=True)
            self.xla_function = self._grad_fn
        else:
            self.xla_function = None  # TPU: compiled by strategy.run
        compiled_eval = tf.function(self._replica_eval, jit_compile=jit)

        def replica_eval(*args):
            # Called from inside the replica's device scope: a tf.function
            # handed to strategy.run directly would be placed on device 0.
            return compiled_eval(*args)

        self.train = self._across_replicas(replica_train)
        self.evaluate = self._across_replicas(replica_eval)

    def _across_replicas(self, replica_fn):
        """`replica_fn` run on every replica, its loss summed over them."""

        @tf.function
        def step(x, y, states, reset):
            nats, new_states = self.strategy.run(replica_fn, (x, y, states, reset))
            return self.strategy.reduce("SUM", nats, axis=None), new_states

        return step

    def _segment_loss(self, x, y, states, reset, training):
        """Summed cross-entropy (nats) of one segment and the new state."""
        initial = self._rnn.get_initial_state(x.shape[0])
        states = [
            tf.where(reset, tf.cast(i, s.dtype), s) for i, s in zip(initial, states)
        ]
        logits, *new_states = self.model([x, *states], training=training)
        nats = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=tf.cast(logits, tf.float32)
        )
        return tf.reduce_sum(nats), [tf.stop_gradient(s) for s in new_states]

    def _loss_and_grads(self, x, y, states, reset):
        variables = self.model.trainable_variables
        with tf.GradientTape() as tape:
            nats, new_states = self._segment_loss(x, y, states, reset, True)
            loss = nats / tf.cast(self.global_chars, tf.float32)
        return nats, tape.gradient(loss, variables), new_states

    def _replica_train(self, x, y, states, reset):
        nats, grads, new_states = self._grad_fn(x, y, states, reset)
        # The embedding's gradient arrives as IndexedSlices with repeated
        # rows; clipping must act on their sum, so make it dense (vocab x 64).
        grads = [tf.convert_to_tensor(g) for g in grads]
        if self._num_replicas > 1:
            grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        clip = self.clipvalue
        if clip:
            grads = [tf.clip_by_value(g, -clip, clip) for g in grads]
        self.optimizer.apply(grads, self.model.trainable_variables)
        return nats, new_states

    def _replica_eval(self, x, y, states, reset):
        return self._segment_loss(x, y, states, reset, False)
