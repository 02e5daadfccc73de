"""Trains a zoo model on a task with `model.fit` and records a learning curve.

TensorFlow-specific (tf.data input pipeline, tf.distribute strategies); the
models themselves are backend-neutral Keras.

Training is `model.fit` on the task's endless stream of fresh batches (with
sample weights), cut into "epochs" of `eval_every` steps so that Keras scores
the fixed held-out set (`validation_data`) every `eval_every` steps: that
score against the step count is the learning curve, and the first step at
which it meets the task's `threshold` is "steps until threshold", the number
the papers' tables report.
"""

import dataclasses
import math
import operator
import time

import numpy as np

from keras_rda.experiments.zoo import get_model_spec

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# Task metric name -> key of the Keras logs (the loss of a cross-entropy task
# is its cross-entropy).
_METRIC_KEYS = {
    "crossentropy": "loss",
    "loss": "loss",
    "mse": "mse",
    "accuracy": "accuracy",
}


def metric_key(metric):
    """The Keras log name of a task metric ("crossentropy" is the loss)."""
    return _METRIC_KEYS.get(metric, metric)


@dataclasses.dataclass
class RunResult:
    """What one training run produced.

    Attributes:
        model: zoo name.
        task: task name.
        steps: training steps done.
        curve: `[{"step": s, "loss": ..., "val_loss": ..., ...}]`, one entry
            per held-out evaluation.
        steps_to_threshold: the first evaluated step at which the held-out
            score met the task's threshold, or None.
        final: the last held-out scores (`{"loss": ..., metric: ...}`).
        seconds: wall-clock training time.
        params: number of trainable parameters.
        settings: steps, batch size, units, learning rate, clipping, seed...
        diverged: True when training stopped on a NaN loss.
        keras_model: the trained `keras.Model` (not part of `to_dict`).
    """

    model: str
    task: str
    steps: int
    curve: list
    steps_to_threshold: int = None
    final: dict = dataclasses.field(default_factory=dict)
    seconds: float = 0.0
    params: int = 0
    settings: dict = dataclasses.field(default_factory=dict)
    diverged: bool = False
    keras_model: object = dataclasses.field(default=None, repr=False, compare=False)

    def score(self, metric):
        """The final held-out value of a task metric."""
        return self.final.get(metric_key(metric))

    def to_dict(self):
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if field.name != "keras_model"
        }


def threshold_met(threshold, logs):
    """Whether held-out `logs` (with `val_` keys) meet `(metric, op, value)`."""
    if threshold is None:
        return False
    metric, op, value = threshold
    score = logs.get("val_" + metric_key(metric))
    return score is not None and bool(_OPS[op](float(score), value))


def _callback_base():
    import keras

    return keras.callbacks.Callback


def _make_recorder(task, eval_every, stop_at_threshold):
    class CurveRecorder(_callback_base()):
        """Records the held-out scores after every `eval_every` steps."""

        def __init__(self):
            super().__init__()
            self.curve = []
            self.steps_to_threshold = None

        def on_epoch_end(self, epoch, logs=None):
            logs = {k: float(v) for k, v in (logs or {}).items()}
            step = (epoch + 1) * eval_every
            self.curve.append({"step": step, **logs})
            if self.steps_to_threshold is None and threshold_met(task.threshold, logs):
                self.steps_to_threshold = step
                if stop_at_threshold:
                    self.model.stop_training = True

    return CurveRecorder()


def _strategy(name):
    import tensorflow as tf

    if name in (None, "default"):
        return tf.distribute.get_strategy()
    if name == "mirrored":
        return tf.distribute.MirroredStrategy()
    raise ValueError(
        "Received an invalid value for argument `strategy`, expected one of "
        f"default, mirrored, got {name!r}"
    )


def compile_for_task(model, task, optimizer, jit_compile=False):
    """Compiles `model` with the task's loss and its weighted metrics."""
    model.compile(
        optimizer=optimizer,
        loss=task.loss,
        weighted_metrics=task.keras_metrics(),
        jit_compile=jit_compile,
    )
    return model


def train(
    task,
    model_name,
    *,
    steps,
    batch_size,
    units,
    eval_every,
    eval_examples,
    seed=0,
    learning_rate=None,
    jit_compile=False,
    strategy=None,
    stop_at_threshold=False,
    verbose=1,
    model_kwargs=None,
):
    """Trains zoo model `model_name` on `task`; returns a `RunResult`.

    Args:
        task: a `keras_rda.tasks.Task`.
        model_name: a registered zoo model.
        steps: training steps (rounded up to a multiple of `eval_every`).
        batch_size: sequences per step.
        units: recurrent units, passed to the model builder.
        eval_every: steps between held-out evaluations.
        eval_examples: size of the fixed held-out set.
        seed: seeds Keras's initialisers and the training stream.
        learning_rate: overrides the zoo entry's learning rate.
        jit_compile: compile the train step with XLA.
        strategy: "default" or "mirrored" (`tf.distribute.MirroredStrategy`).
        stop_at_threshold: stop once the task's threshold is met.
        verbose: Keras `fit` verbosity (1 = progress bar).
        model_kwargs: extra keyword arguments for the builder.

    Returns:
        A `RunResult`.
    """
    import keras

    spec = get_model_spec(model_name)
    keras.utils.set_random_seed(seed)
    epochs = max(1, math.ceil(steps / eval_every))
    with _strategy(strategy).scope():
        model = spec.build(task, units=units, **(model_kwargs or {}))
        # A builder may attach extra outputs (attention maps for plots):
        # train on the first one.
        if len(model.outputs) > 1:
            model = keras.Model(model.inputs, model.outputs[0], name=model.name)
        compile_for_task(model, task, spec.optimizer(learning_rate), jit_compile)
    x_val, y_val, w_val = task.held_out(eval_examples)
    recorder = _make_recorder(task, eval_every, stop_at_threshold)
    start = time.perf_counter()
    model.fit(
        task.dataset(batch_size, seed=seed),
        steps_per_epoch=eval_every,
        epochs=epochs,
        validation_data=(x_val, y_val, w_val),
        validation_batch_size=min(len(y_val), max(batch_size, 100)),
        callbacks=[recorder, keras.callbacks.TerminateOnNaN()],
        shuffle=False,
        verbose=verbose,
    )
    seconds = time.perf_counter() - start
    curve = recorder.curve
    last = curve[-1] if curve else {}
    final = {k[4:]: v for k, v in last.items() if k.startswith("val_")}
    diverged = any(not np.isfinite(v) for v in last.values())
    return RunResult(
        model=model_name,
        task=task.name,
        steps=curve[-1]["step"] if curve else 0,
        curve=curve,
        steps_to_threshold=recorder.steps_to_threshold,
        final=final,
        seconds=seconds,
        params=int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        settings={
            "steps": epochs * eval_every,
            "batch_size": batch_size,
            "units": units,
            "eval_every": eval_every,
            "eval_examples": int(len(y_val)),
            "learning_rate": learning_rate or spec.learning_rate,
            "clipvalue": spec.clipvalue,
            "seed": seed,
            "jit_compile": bool(jit_compile),
            "strategy": strategy or "default",
        },
        diverged=bool(diverged),
        keras_model=model,
    )
