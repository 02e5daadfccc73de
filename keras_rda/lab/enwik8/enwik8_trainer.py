"""Compiled truncated-BPTT training of the enwik8 model (TensorFlow or JAX).

`Enwik8Trainer` puts the parts of `keras_rda.lab.enwik8` together: the
backend's compiled steps and checkpoint, the hooks between steps, and the
stop signals (SIGINT/SIGTERM let the step in flight finish, then the
checkpoint is written and `train` returns; a trainer created on the same
`out_dir` continues with the next step: none lost, none repeated).
"""

import dataclasses
import pathlib

import keras
import numpy as np

from keras_rda.lab.datasets.enwik8 import num_segments
from keras_rda.lab.datasets.enwik8 import segments
from keras_rda.lab.enwik8.char_model import RNN_LAYER_NAME
from keras_rda.lab.enwik8.char_model import build_char_model
from keras_rda.lab.enwik8.char_model import state_sizes
from keras_rda.lab.enwik8.loop_hooks import PeriodicCheckpoint
from keras_rda.lab.enwik8.loop_hooks import PeriodicValidation
from keras_rda.lab.enwik8.loop_hooks import StepCallback
from keras_rda.lab.enwik8.loop_hooks import TrainProgress
from keras_rda.lab.enwik8.loop_hooks import bits_per_char
from keras_rda.lab.enwik8.presets import Preset
from keras_rda.lab.enwik8.run_log import RunLog
from keras_rda.lab.enwik8.stop_signals import StopSignals
from keras_rda.utils import validation

BACKENDS = ("tensorflow", "jax")


def backend_parts(strategy=None):
    """The loop's parts for Keras's backend (`TensorFlowParts`, `JaxParts`).

    Args:
        strategy: a `tf.distribute.Strategy` on TensorFlow; on JAX the lab's
            one-device strategy or one with a `keras.distribution` (None:
            the default device on both).

    Raises:
        ValueError: Keras runs on another backend (named, with `BACKENDS`).
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        from keras_rda.lab.enwik8.tensorflow_parts import TensorFlowParts

        return TensorFlowParts(strategy)
    if backend == "jax":
        from keras_rda.lab.enwik8.jax_parts import JaxParts

        return JaxParts(strategy)
    raise ValueError(
        f"The enwik8 loop runs on the backends {', '.join(BACKENDS)}, but "
        f"Keras's backend is {backend!r}. Set KERAS_BACKEND to one of them "
        "before Keras is imported."
    )


def training_segments(tokens, batch_size, bptt, start_step):
    """The training segments from step `start_step` on: step `s` reads
    segment `s % segments_per_epoch`, epochs following one another for ever.

    Yields:
        `(segment, x, y)`: the segment's index in its epoch and its int32
        `[batch_size, bptt]` inputs and targets.
    """
    per_epoch = num_segments(len(tokens), batch_size, bptt)
    segment = start_step % per_epoch
    while True:
        for x, y in segments(tokens, batch_size, bptt, start_segment=segment):
            yield segment, x, y
            segment += 1
        segment = 0


class Enwik8Trainer:
    """Trains and evaluates the paper's enwik8 model with truncated BPTT.

    Args:
        data: a `keras_rda.lab.datasets.enwik8.Enwik8` (train/valid/test bytes).
        out_dir: directory for checkpoints, TensorBoard logs and results;
            an existing checkpoint there is restored.
        model: recurrent unit, one of `char_model.MODELS`.
        preset: a `keras_rda.lab.enwik8.presets.Preset`.
        strategy: on TensorFlow a `tf.distribute.Strategy` (default: the
            current one); on JAX None (the default device) or the lab's
            `keras_rda.lab.strategies.make_strategy("data-parallel")`.
        seed: seed of the weight initialisation.
        verbose: 1 for a progress bar and messages, 0 for silence.

    Example:

    ```python
    data = keras_rda.lab.datasets.enwik8("enwik8.zip")
    trainer = Enwik8Trainer(data, "runs/rda", model="rda",
                            preset=get_preset("paper"),
                            strategy=keras_rda.lab.strategies.make_strategy("tpu"))
    result = trainer.train()      # resumes if runs/rda holds a checkpoint
    print(result["test_bpc"])
    ```
    """

    def __init__(
        self, data, out_dir, model="lstm", preset=None, strategy=None, seed=0, verbose=1
    ):
        self._parts = backend_parts(strategy)
        self.data = data
        self.preset = preset or Preset(units=128, bptt=100, batch_size=32, steps=1000)
        self.model_name = model
        self.strategy = self._parts.strategy
        self.out_dir = pathlib.Path(out_dir)
        self.verbose = verbose
        self.seed = seed
        self._set_sizes()
        self._build(seed)
        self.checkpoint = self._parts.checkpoint(
            self.out_dir,
            self.model,
            self.optimizer,
            self._state_sizes,
            self.batch_size,
            self._run_config(),
        )
        self.step = self.checkpoint.step
        self._segment_steps = self._parts.segment_steps(
            self.model,
            self.optimizer,
            global_chars=self.batch_size * self.preset.bptt,
            clipvalue=self.preset.clipvalue,
        )
        self._run_log = RunLog(self.out_dir)
        self._stop = StopSignals()

    @property
    def restored_from(self):
        """The checkpoint restored on creation, or None."""
        return self.checkpoint.restored_from

    @property
    def backend(self):
        """The Keras backend the loop runs on ("tensorflow" or "jax")."""
        return self._parts.backend

    @property
    def xla_function(self):
        """The jit-compiled function of the train step (None on TPU)."""
        return self._segment_steps.xla_function

    def _set_sizes(self):
        """Global batch sizes (multiples of the replicas) and epoch length."""
        p = self.preset
        self.num_replicas = self._parts.num_replicas
        self.batch_size = p.batch_size
        self.eval_batch_size = p.eval_batch_size or p.batch_size
        for name in ("batch_size", "eval_batch_size"):
            value = getattr(self, name)
            if value % self.num_replicas:
                raise validation.invalid_value(
                    name, f"a multiple of the {self.num_replicas} replicas", value
                )
        self.segments_per_epoch = num_segments(
            len(self.data.train), p.batch_size, p.bptt
        )
        if self.segments_per_epoch < 1:
            raise ValueError(
                f"The training split ({len(self.data.train)} characters) is too "
                f"short for one segment of bptt={p.bptt} in {p.batch_size} rows."
            )

    def _build(self, seed):
        p = self.preset
        keras.utils.set_random_seed(seed)
        with self._parts.scope():
            self.model = build_char_model(
                self.model_name, p.units, self.data.vocab_size, p.embedding_dim
            )
            self.optimizer = self._parts.optimizer(
                p.learning_rate, self.model.trainable_variables
            )
        self._rnn = self.model.get_layer(RNN_LAYER_NAME)
        self._state_sizes = state_sizes(self._rnn)

    def _run_config(self):
        """What a checkpoint in `out_dir` must have been written for."""
        p = self.preset
        return {
            "model": self.model_name,
            "units": p.units,
            "bptt": p.bptt,
            "batch_size": p.batch_size,
            "embedding_dim": p.embedding_dim,
            "train_chars": len(self.data.train),
            "vocab_size": self.data.vocab_size,
        }

    # ------------------------------------------------------------ training

    def train(self, steps=None, on_step=None, final_eval=True):
        """Trains until the step counter reaches `steps` (total, not extra;
        default: the preset's), calling `on_step(step)` after each step if
        given, then with `final_eval` evaluates the full validation and test
        splits (and writes `results.json`).

        Returns:
            A dict with `step`, `interrupted`, `train_bpc` (of the last
            logging interval), `chars_per_sec`, and, when training finished,
            `valid_bpc` and `test_bpc` on the full splits.
        """
        steps = self.preset.steps if steps is None else steps
        steps = validation.non_negative_int("steps", steps)
        start = int(self.step.numpy())
        if start and self.verbose:
            print(f"Resuming from step {start} ({self.restored_from}).")
        progress, hooks = self._hooks(on_step)
        for hook in hooks:
            hook.on_train_begin(start, steps)
        with self._stop:
            step, states = self._run_steps(start, steps, hooks)
        self.checkpoint.save(states)
        interrupted = self._stop.reason is not None and step < steps
        result = {"step": step, "interrupted": interrupted, **progress.latest}
        if interrupted:
            self._say_interrupted(step)
        elif final_eval:
            result.update(self._final_evaluation(step, result))
        return result

    def _hooks(self, on_step):
        """The progress hook and every hook of the loop, in calling order."""
        p = self.preset
        progress = TrainProgress(
            self._run_log, self.batch_size * p.bptt, p.log_every, self.verbose
        )
        hooks = [
            progress,
            PeriodicValidation(
                self.evaluate,
                p.eval_every,
                p.eval_chars,
                self._run_log,
                progress,
                self.verbose,
            ),
            PeriodicCheckpoint(self.checkpoint, p.checkpoint_every),
        ]
        if on_step is not None:
            hooks.append(StepCallback(on_step))
        return progress, hooks

    def _run_steps(self, start, steps, hooks):
        """Steps from `start` to `steps` (or a stop request); `(step, states)`."""
        states = self._parts.carried_state(self.checkpoint, self.batch_size)
        stream = training_segments(
            self.data.train, self.batch_size, self.preset.bptt, start
        )
        step = start
        while step < steps and self._stop.reason is None:
            segment, x, y = next(stream)
            x, y = self._parts.distribute([x, y], self.batch_size)
            reset = self._parts.flag(segment == 0)  # an epoch starts afresh
            nats, states = self._segment_steps.train(x, y, states, reset)
            step += 1
            self.step.assign(step)
            for hook in hooks:
                hook.on_step_end(step, nats, states)
        return step, states

    def _say_interrupted(self, step):
        if self.verbose:
            print(
                f"\nStopped by signal {self._stop.reason} after step {step}; "
                f"checkpoint saved in {self.out_dir / 'checkpoints'}. Run the "
                "same command again to resume."
            )

    def _final_evaluation(self, step, result):
        """BPC on the full validation and test splits; writes `results.json`."""
        bpc = {"valid_bpc": self.evaluate("valid"), "test_bpc": self.evaluate("test")}
        self._run_log.scalars(
            step, {"valid/bpc": bpc["valid_bpc"], "test/bpc": bpc["test_bpc"]}
        )
        self._run_log.results(
            {
                **result,
                **bpc,
                "model": self.model_name,
                "preset": dataclasses.asdict(self.preset),
            }
        )
        if self.verbose:
            print(f"\nvalid BPC {bpc['valid_bpc']:.4f}, test BPC {bpc['test_bpc']:.4f}")
        return bpc

    def history(self):
        """The logged scalars so far (`history.jsonl`), one dict per line."""
        return self._run_log.history()

    def request_stop(self):
        """Asks a running `train` to checkpoint and return after this step.

        The same as sending SIGINT/SIGTERM, for callers in other threads.
        """
        self._stop.request()

    def save(self, states=None):
        """Writes a checkpoint (with the carried state `states`, if given)."""
        return self.checkpoint.save(states)

    # ---------------------------------------------------------- evaluation

    def evaluate(self, split="valid", max_chars=None):
        """Bits per character on `split` laid out as `eval_batch_size` rows,
        each read to its end with the state carried across segments (every
        character but each row's first predicted once; the last `len %
        eval_batch_size` characters are not used); only its first
        `max_chars` characters where given."""
        tokens = self.data.split(split)
        max_chars = validation.positive_int("max_chars", max_chars, allow_none=True)
        if max_chars is not None:
            tokens = tokens[:max_chars]
        batch = self.eval_batch_size
        states = self._parts.zero_states(self._state_sizes, batch)
        nats, chars = 0.0, 0
        for x, y in segments(tokens, batch, self.preset.bptt, drop_remainder=False):
            x_y = self._parts.distribute([x, y], batch)
            reset = self._parts.flag(chars == 0)  # the split's first segment
            loss, states = self._segment_steps.evaluate(*x_y, states, reset)
            nats += float(loss)
            chars += int(np.prod(y.shape))
        return bits_per_char(nats, chars)
