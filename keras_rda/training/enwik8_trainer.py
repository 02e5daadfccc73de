"""XLA-compiled truncated-BPTT training of the enwik8 model (TensorFlow).

One training step is one segment of `bptt` characters in each of the
`batch_size` contiguous rows of the training split (see
`keras_rda.datasets.enwik8`):

1. per replica, in one `tf.function(jit_compile=True)`: the initial state
   (the carried state, or the layer's initial state at the start of an
   epoch), the forward pass over the segment, the cross-entropy summed over
   the replica's characters and divided by the *global* number of characters
   in the step (`global_batch * bptt`), and its gradients. The new state is
   returned through `stop_gradient`, so no gradient crosses a segment
   boundary (section 6.1: "truncated backpropagation every 250 timesteps, and
   use the last hidden state of the sequence as the initial hidden state of
   the next sequence");
2. the gradients are summed over replicas (so they are the gradient of the
   mean loss over the global batch), clipped element-wise to
   `[-clipvalue, clipvalue]` (section 6.1: "Gradients are clipped between -1
   and 1") and applied by Adam. Clipping acts on the global gradient, so the
   update does not depend on the number of replicas.

With one replica (no strategy) the whole step, Adam update included, is one
XLA program. Under `MirroredStrategy` the all-reduce runs between the XLA
program of step 1 and the update; on TPU `strategy.run` compiles everything
with XLA anyway.

Each replica keeps its own slice of the carried state on its device; the
global batch is cut into contiguous per-replica blocks of rows, the same
blocks at every step, so every replica continues its own rows.

Checkpoints (`tf.train.CheckpointManager` under `out_dir/checkpoints`) hold
the model, the optimizer (moments and iteration count), the step counter
(which is the data position: epoch = step // segments_per_epoch, segment =
step % segments_per_epoch) and the carried state gathered from all replicas.
They are written every `checkpoint_every` steps, at the end, and when SIGINT
or SIGTERM arrives (the signal only raises a flag; the step in flight
finishes, then the checkpoint is written and `train` returns). Creating a
trainer on the same `out_dir` restores the latest checkpoint, so rerunning
the same command continues with the next step: none lost, none repeated.

Logged: a progress bar (BPC, characters/second), TensorBoard scalars under
`out_dir/tensorboard` (`train/bpc`, `train/chars_per_sec`, `valid/bpc`,
`test/bpc`), `out_dir/history.jsonl` and `out_dir/results.json`.
"""

import contextlib
import dataclasses
import json
import math
import pathlib
import signal
import threading
import time

import keras
import numpy as np
import tensorflow as tf

from keras_rda.datasets.enwik8 import num_segments
from keras_rda.datasets.enwik8 import segment_dataset
from keras_rda.training.char_model import RNN_LAYER_NAME
from keras_rda.training.char_model import build_char_model
from keras_rda.training.char_model import state_sizes
from keras_rda.training.presets import Preset
from keras_rda.utils.summaries import write_scalars

LN2 = math.log(2.0)


class _GlobalGradientAdam(keras.optimizers.Adam):
    """Adam that receives gradients already summed over replicas.

    Keras's TensorFlow optimizer all-reduces gradients inside `apply`, after
    its own `clipvalue`; the trainer all-reduces first and clips the global
    gradient, so the optimizer must not sum them a second time.
    """

    def _all_reduce_sum_gradients(self, grads_and_vars):
        return list(grads_and_vars)


class Enwik8Trainer:
    """Trains and evaluates the paper's enwik8 model with truncated BPTT.

    Args:
        data: a `keras_rda.datasets.enwik8.Enwik8` (train/valid/test bytes).
        out_dir: directory for checkpoints, TensorBoard logs and results;
            an existing checkpoint there is restored.
        model: recurrent unit: "rda", "rda-exp-tanh", "lstm", "gru", "rwa".
        preset: a `keras_rda.training.presets.Preset`.
        strategy: a `tf.distribute.Strategy` (default: the current one).
        seed: seed of the weight initialisation.
        verbose: 1 for a progress bar and messages, 0 for silence.

    Example:

    ```python
    data = keras_rda.datasets.enwik8("enwik8.zip")
    trainer = Enwik8Trainer(data, "runs/rda", model="rda",
                            preset=get_preset("paper"),
                            strategy=make_strategy("tpu"))
    result = trainer.train()      # resumes if runs/rda holds a checkpoint
    print(result["test_bpc"])
    ```

    Reference:
        RDA paper, sections 6.1 and 6.5, Table 7.
    """

    def __init__(
        self, data, out_dir, model="lstm", preset=None, strategy=None, seed=0, verbose=1
    ):
        self.data = data
        self.preset = preset or Preset(units=128, bptt=100, batch_size=32, steps=1000)
        self.model_name = model
        self.strategy = strategy or tf.distribute.get_strategy()
        self.out_dir = pathlib.Path(out_dir)
        self.verbose = verbose
        self.seed = seed
        p = self.preset
        self.num_replicas = self.strategy.num_replicas_in_sync
        self.batch_size = p.batch_size
        self.eval_batch_size = p.eval_batch_size or p.batch_size
        for name, value in (
            ("batch_size", self.batch_size),
            ("eval_batch_size", self.eval_batch_size),
        ):
            if value % self.num_replicas:
                raise ValueError(
                    f"Received an invalid value for argument `{name}`, expected "
                    f"a multiple of the {self.num_replicas} replicas, got {value}"
                )
        self.segments_per_epoch = num_segments(len(data.train), p.batch_size, p.bptt)
        if self.segments_per_epoch < 1:
            raise ValueError(
                f"The training split ({len(data.train)} characters) is too short "
                f"for one segment of bptt={p.bptt} in {p.batch_size} rows."
            )
        self._is_tpu = isinstance(self.strategy, tf.distribute.TPUStrategy)

        keras.utils.set_random_seed(seed)
        with self.strategy.scope():
            self.model = build_char_model(
                model, p.units, data.vocab_size, p.embedding_dim
            )
            self.optimizer = _GlobalGradientAdam(
                learning_rate=p.learning_rate, name="adam"
            )
            self.optimizer.build(self.model.trainable_variables)
        self._rnn = self.model.get_layer(RNN_LAYER_NAME)
        self._state_sizes = state_sizes(self._rnn)

        # Host-side copies for checkpoints (not mirrored: the carried state
        # differs between replicas).
        with tf.device("CPU:0"):
            self.step = tf.Variable(0, dtype=tf.int64, trainable=False, name="step")
            self._saved_state = [
                tf.Variable(
                    tf.zeros([self.batch_size, s]),
                    trainable=False,
                    name=f"carried_state_{i}",
                )
                for i, s in enumerate(self._state_sizes)
            ]
        self.checkpoint = tf.train.Checkpoint(
            model=self.model,
            optimizer=self.optimizer,
            step=self.step,
            carried_state=self._saved_state,
        )
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, str(self.out_dir / "checkpoints"), max_to_keep=3
        )
        self._check_config()
        self.restored_from = None
        if self.manager.latest_checkpoint:
            self.checkpoint.restore(self.manager.latest_checkpoint).assert_consumed()
            self.restored_from = self.manager.latest_checkpoint

        # One replica: the whole step (forward, backward, clipping, Adam) is
        # one XLA program. Several replicas: the all-reduce stays outside XLA,
        # the segment's forward/backward is the XLA program. TPU: strategy.run
        # compiles the whole replica function with XLA itself. (Nesting one
        # jit-compiled function inside another makes TF recompile the inner
        # one at every call, so exactly one level is compiled.)
        jit = not self._is_tpu
        whole_step_jit = jit and self.num_replicas == 1
        self._grad_fn = self._loss_and_grads
        replica_train = self._replica_train
        if whole_step_jit:
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

        @tf.function
        def train_step(x, y, states, reset):
            loss, new_states = self.strategy.run(replica_train, (x, y, states, reset))
            return self.strategy.reduce("SUM", loss, axis=None), new_states

        @tf.function
        def eval_step(x, y, states, reset):
            loss, new_states = self.strategy.run(replica_eval, (x, y, states, reset))
            return self.strategy.reduce("SUM", loss, axis=None), new_states

        self._train_step = train_step
        self._eval_step = eval_step
        self._stop_signal = None
        self._writer = None

    # ------------------------------------------------------------------ steps

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
        global_chars = tf.cast(self.batch_size * self.preset.bptt, tf.float32)
        with tf.GradientTape() as tape:
            nats, new_states = self._segment_loss(x, y, states, reset, True)
            loss = nats / global_chars
        grads = tape.gradient(loss, variables)
        return nats, grads, new_states

    def _replica_train(self, x, y, states, reset):
        nats, grads, new_states = self._grad_fn(x, y, states, reset)
        # The embedding's gradient arrives as IndexedSlices with repeated
        # rows; clipping must act on their sum, so make it dense (vocab x 64).
        grads = [tf.convert_to_tensor(g) for g in grads]
        if self.num_replicas > 1:
            grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        clip = self.preset.clipvalue
        if clip:
            grads = [tf.clip_by_value(g, -clip, clip) for g in grads]
        self.optimizer.apply(grads, self.model.trainable_variables)
        return nats, new_states

    def _replica_eval(self, x, y, states, reset):
        return self._segment_loss(x, y, states, reset, False)

    # ------------------------------------------------------- distribution

    def _distribute(self, values, global_batch):
        """Cuts each `[global_batch, ...]` value into per-replica row blocks."""
        values = [tf.convert_to_tensor(v) for v in values]
        if self.num_replicas == 1:
            return values
        per = global_batch // self.num_replicas

        def block(context):
            i = context.replica_id_in_sync_group
            return [v[i * per : (i + 1) * per] for v in values]

        return self.strategy.experimental_distribute_values_from_function(block)

    def _gather(self, states):
        """Per-replica state tensors back to `[global_batch, size]` arrays."""
        return [
            tf.concat(
                [
                    tf.convert_to_tensor(t)
                    for t in self.strategy.experimental_local_results(s)
                ],
                axis=0,
            )
            for s in states
        ]

    def _zero_states(self, global_batch):
        return self._distribute(
            [np.zeros((global_batch, s), np.float32) for s in self._state_sizes],
            global_batch,
        )

    # ------------------------------------------------------------ training

    def train(self, steps=None, on_step=None, final_eval=True):
        """Trains until the step counter reaches `steps` (total, not extra).

        Args:
            steps: total number of steps (default: the preset's).
            on_step: optional `on_step(step)` called after each step.
            final_eval: evaluate the full validation and test splits at the
                end (and write `results.json`).

        Returns:
            A dict with `step`, `interrupted`, `train_bpc` (of the last
            logging interval), `chars_per_sec`, and, when training finished,
            `valid_bpc` and `test_bpc` on the full splits.
        """
        p = self.preset
        steps = p.steps if steps is None else steps
        start = int(self.step.numpy())
        result = {"step": start, "interrupted": False}
        if start > 0 and self.verbose:
            print(f"Resuming from step {start} ({self.restored_from}).")
        states = self._distribute(
            [v.read_value() for v in self._saved_state], self.batch_size
        )
        bar = keras.utils.Progbar(
            steps, verbose=self.verbose, stateful_metrics=["bpc", "chars/s"]
        )
        if start:
            bar.update(start)
        chars_per_step = self.batch_size * p.bptt
        interval_losses, interval_start = [], time.perf_counter()
        iterator = None
        step = start
        with self._stop_on_signals():
            while step < steps and self._stop_signal is None:
                segment = step % self.segments_per_epoch
                if iterator is None:
                    iterator = iter(
                        segment_dataset(
                            self.data.train,
                            self.batch_size,
                            p.bptt,
                            start_segment=segment,
                        )
                    )
                x, y = next(iterator)
                loss, states = self._train_step(
                    *self._distribute([x, y], self.batch_size),
                    states,
                    tf.constant(segment == 0),
                )
                step += 1
                self.step.assign(step)
                if segment + 1 == self.segments_per_epoch:
                    iterator = None
                interval_losses.append(loss)
                if step % p.log_every == 0 or step == steps:
                    nats = float(np.sum([t.numpy() for t in interval_losses]))
                    elapsed = time.perf_counter() - interval_start
                    chars = chars_per_step * len(interval_losses)
                    bpc = nats / chars / LN2
                    speed = chars / elapsed
                    result.update(train_bpc=bpc, chars_per_sec=speed)
                    self._log(step, {"train/bpc": bpc, "train/chars_per_sec": speed})
                    bar.update(step, [("bpc", bpc), ("chars/s", speed)])
                    interval_losses, interval_start = [], time.perf_counter()
                if p.eval_every and step % p.eval_every == 0 and step < steps:
                    valid = self.evaluate("valid", max_chars=p.eval_chars or None)
                    self._log(step, {"valid/bpc": valid})
                    if self.verbose:
                        print(f"\nstep {step}: valid BPC {valid:.4f}")
                    interval_start = time.perf_counter()
                if step % p.checkpoint_every == 0:
                    self.save(states)
                if on_step is not None:
                    on_step(step)
        result["step"] = step
        self.save(states)
        if self._stop_signal is not None and step < steps:
            result["interrupted"] = True
            if self.verbose:
                print(
                    f"\nStopped by signal {self._stop_signal} after step {step}; "
                    f"checkpoint saved in {self.manager.directory}. Run the same "
                    "command again to resume."
                )
            return result
        if not final_eval:
            return result
        result["valid_bpc"] = self.evaluate("valid")
        result["test_bpc"] = self.evaluate("test")
        self._log(
            step, {"valid/bpc": result["valid_bpc"], "test/bpc": result["test_bpc"]}
        )
        (self.out_dir / "results.json").write_text(
            json.dumps(
                {**result, "model": self.model_name, "preset": dataclasses.asdict(p)},
                indent=2,
            )
        )
        if self.verbose:
            print(
                f"\nvalid BPC {result['valid_bpc']:.4f}, "
                f"test BPC {result['test_bpc']:.4f}"
            )
        return result

    def request_stop(self):
        """Asks a running `train` to checkpoint and return after this step.

        The same as sending SIGINT/SIGTERM, for callers in other threads.
        """
        self._stop_signal = "request_stop"

    def save(self, states=None):
        """Writes a checkpoint (with the carried state `states`, if given)."""
        if states is not None:
            for variable, value in zip(self._saved_state, self._gather(states)):
                variable.assign(value)
        return self.manager.save(checkpoint_number=int(self.step.numpy()))

    # ---------------------------------------------------------- evaluation

    def evaluate(self, split="valid", max_chars=None):
        """Bits per character on `split`, the state carried through it.

        The split is laid out as `eval_batch_size` contiguous rows, every row
        is read from its start to its end with the state carried across
        segments, and every character but the first of each row is predicted
        once (the last `len % eval_batch_size` characters are not used).

        Args:
            split: "valid" or "test" (or "train").
            max_chars: use only the first `max_chars` characters.

        Returns:
            Bits per character (float).
        """
        tokens = self.data.split(split)
        if max_chars:
            tokens = tokens[:max_chars]
        batch = self.eval_batch_size
        states = self._zero_states(batch)
        total, count, reset = 0.0, 0, True
        for x, y in segment_dataset(
            tokens, batch, self.preset.bptt, drop_remainder=False
        ):
            loss, states = self._eval_step(
                *self._distribute([x, y], batch), states, tf.constant(reset)
            )
            total += float(loss)
            count += int(np.prod(y.shape))
            reset = False
        return total / count / LN2

    # ------------------------------------------------------------- helpers

    def _log(self, step, scalars):
        if self._writer is None:
            self._writer = tf.summary.create_file_writer(
                str(self.out_dir / "tensorboard")
            )
        write_scalars(self._writer, scalars, step)
        with open(self.out_dir / "history.jsonl", "a") as f:
            f.write(json.dumps({"step": step, **scalars}) + "\n")

    @contextlib.contextmanager
    def _stop_on_signals(self):
        """SIGINT/SIGTERM set a flag; the loop checkpoints and returns."""
        self._stop_signal = None
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum, frame):
            if self._stop_signal is not None:  # second signal: stop now
                raise KeyboardInterrupt
            self._stop_signal = signal.Signals(signum).name

        previous = {
            s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            yield
        finally:
            for s, h in previous.items():
                signal.signal(s, h)

    def _check_config(self):
        """Refuses to resume a checkpoint written by a different setup."""
        p = self.preset
        config = {
            "model": self.model_name,
            "units": p.units,
            "bptt": p.bptt,
            "batch_size": p.batch_size,
            "embedding_dim": p.embedding_dim,
            "train_chars": len(self.data.train),
            "vocab_size": self.data.vocab_size,
        }
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / "config.json"
        if path.exists() and self.manager.latest_checkpoint:
            saved = json.loads(path.read_text())
            diff = {
                k: (saved.get(k), v) for k, v in config.items() if saved.get(k) != v
            }
            if diff:
                raise ValueError(
                    f"{self.out_dir} holds a checkpoint of a different run "
                    f"(saved vs now: {diff}); use another --out directory."
                )
        path.write_text(json.dumps(config, indent=2))
