"""Trains a zoo model on a task with `model.fit` and records a learning curve.

Runs on every Keras backend: on TensorFlow the batches come through a
`tf.data` pipeline and `--strategy` picks a `tf.distribute` strategy; on JAX
and PyTorch they come from a Python generator, on the backend's default
device.

Training is `model.fit` on the task's endless stream of fresh batches (with
sample weights), cut into "epochs" of `eval_every` steps so that Keras scores
the fixed held-out set (`validation_data`) every `eval_every` steps: that
score against the step count is the learning curve, and the first step at
which it meets the task's `threshold` is "steps until threshold", the number
the papers' tables report.
"""

import dataclasses
import json
import math
import operator
import os
import pathlib
import shutil
import time
import warnings

import numpy as np

from keras_rda.lab.zoo.registry import get_model_spec
from keras_rda.utils import validation
from keras_rda.lab.strategies import make_strategy
from keras_rda.lab.runs.summaries import write_scalars

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
        seconds: wall-clock training time (summed over resumed parts).
        cpu_seconds: CPU time of the process while training (user and
            system, summed over resumed parts).
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
    cpu_seconds: float = 0.0
    params: int = 0
    settings: dict = dataclasses.field(default_factory=dict)
    diverged: bool = False
    keras_model: object = dataclasses.field(default=None, repr=False, compare=False)

    def score(self, metric):
        """The final held-out value of a task metric."""
        return self.final.get(metric_key(metric))

    @classmethod
    def from_dict(cls, data):
        """The inverse of `to_dict` (without the Keras model)."""
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

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


def format_scores(logs):
    """`{"loss": 0.1234, ...}` as `"loss 0.1234, ..."` (one log line)."""
    return ", ".join(f"{k} {v:.4g}" for k, v in logs.items())


def make_recorder(
    task,
    eval_every,
    total_steps,
    stop_at_threshold=False,
    log_lines=False,
    tensorboard_dir=None,
    prefix="",
):
    """A Keras callback recording the learning curve of one run.

    After each `eval_every` steps (one Keras "epoch") it appends the logs to
    its `curve`, notes the first step meeting the task's threshold in
    `steps_to_threshold` (and stops training there with
    `stop_at_threshold`), prints one line when `log_lines` (for logs that
    are files, not terminals) and writes the same values as TensorBoard
    scalars to `tensorboard_dir` (tag: the curve key; step: the training
    step).
    """
    import keras

    class CurveRecorder(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.curve = []
            self.steps_to_threshold = None
            self._writer = None
            if tensorboard_dir is not None:
                import tensorflow as tf

                self._writer = tf.summary.create_file_writer(str(tensorboard_dir))

        def on_epoch_end(self, epoch, logs=None):
            logs = {k: float(v) for k, v in (logs or {}).items()}
            step = (epoch + 1) * eval_every
            self.curve.append({"step": step, **logs})
            if self.steps_to_threshold is None and threshold_met(task.threshold, logs):
                self.steps_to_threshold = step
                if stop_at_threshold:
                    self.model.stop_training = True
            if log_lines:
                print(
                    f"{prefix}step {step}/{total_steps}: {format_scores(logs)}",
                    flush=True,
                )
            if self._writer is not None:
                write_scalars(self._writer, logs, step)

        def on_train_end(self, logs=None):
            if self._writer is not None:
                self._writer.close()

    return CurveRecorder()


class CheckpointMismatch(ValueError):
    """A checkpoint directory holds another run than the one asked for."""


def _write_atomically(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class RunCheckpoint:
    """Checkpoints of one run, written after every evaluation, resumable.

    Layout of `directory`:

    - `run.json`: what the run is (model, task, settings other than its
      number of steps); a rerun with other settings is refused instead of
      mixing two runs. A rerun asking for more steps continues the run,
      finished or not (see `reopen`).
    - `ckpt-<epoch>.weights.h5`: the model and optimizer variables after
      `epoch` evaluation intervals (Keras `save_weights`).
    - `latest.json`: the newest complete checkpoint: its epoch and weights
      file, the learning curve so far, the step that met the threshold and
      the wall/CPU seconds spent. It is replaced atomically after its weights
      file is complete, so a kill at any moment leaves the previous
      checkpoint usable: at most one evaluation interval is lost.
    - `result.json` and `final.weights.h5`: the finished run. A rerun
      returns it without training.

    The data stream's position is the epoch: a resumed run skips
    `epoch * eval_every` batches of the same seeded stream, so it sees the
    batches an uninterrupted run would.
    """

    def __init__(self, directory, fingerprint):
        self.directory = pathlib.Path(directory)
        self.fingerprint = fingerprint
        self.directory.mkdir(parents=True, exist_ok=True)
        run_file = self.directory / "run.json"
        if run_file.exists():
            stored = _without_steps(json.loads(run_file.read_text()))
            if stored != json.loads(json.dumps(fingerprint)):
                error = validation.invalid_value(
                    "checkpoint_dir",
                    "a directory of this run or a new one",
                    str(self.directory),
                )
                raise CheckpointMismatch(f"{error} (it holds a different run)")
        else:
            _write_atomically(run_file, json.dumps(fingerprint, indent=2))

    def finished(self):
        """The finished run's `RunResult` dict, or None."""
        path = self.directory / "result.json"
        return json.loads(path.read_text()) if path.exists() else None

    def latest(self):
        """The newest checkpoint's state (see the class docstring), or None."""
        path = self.directory / "latest.json"
        return json.loads(path.read_text()) if path.exists() else None

    def trained_steps(self):
        """Steps trained so far: of the finished run, else of the newest
        checkpoint, else 0."""
        finished = self.finished()
        if finished is not None:
            return int(finished["steps"])
        state = self.latest()
        return int(state["curve"][-1]["step"]) if state and state["curve"] else 0

    def reopen(self):
        """Turns the finished run back into its last checkpoint.

        A run trained to its end can then go on for more steps, exactly as
        if it had been asked for them at the start: the optimizer's state is
        part of the weights file, and the data stream skips what was seen.
        Each file is replaced before the next is removed, so a kill at any
        moment leaves either the finished run or the checkpoint usable.
        """
        result = self.finished()
        epoch = int(result["steps"]) // int(result["settings"]["eval_every"])
        name = f"ckpt-{epoch}.weights.h5"
        tmp = self.directory / f"tmp-{name}"
        shutil.copyfile(self.directory / "final.weights.h5", tmp)
        os.replace(tmp, self.directory / name)
        state = {
            "curve": result["curve"],
            "steps_to_threshold": result["steps_to_threshold"],
            "seconds": result["seconds"],
            "cpu_seconds": result["cpu_seconds"],
        }
        _write_atomically(
            self.directory / "latest.json",
            json.dumps({"epoch": epoch, "weights": name, **state}),
        )
        (self.directory / "result.json").unlink()
        (self.directory / "final.weights.h5").unlink()

    def save(self, model, epoch, state):
        """Writes the checkpoint after `epoch` intervals, then drops older ones."""
        name = f"ckpt-{epoch}.weights.h5"
        tmp = self.directory / f"tmp-{name}"
        model.save_weights(tmp, overwrite=True)
        os.replace(tmp, self.directory / name)
        _write_atomically(
            self.directory / "latest.json",
            json.dumps({"epoch": epoch, "weights": name, **state}),
        )
        for old in self.directory.glob("ckpt-*.weights.h5"):
            if old.name != name:
                old.unlink()

    def restore(self, model, state):
        """Loads the model and optimizer variables of checkpoint `state`."""
        _load(model, self.directory / state["weights"])

    def finish(self, model, result):
        """Stores the finished run and removes the intermediate checkpoints."""
        tmp = self.directory / "tmp-final.weights.h5"
        model.save_weights(tmp, overwrite=True)
        os.replace(tmp, self.directory / "final.weights.h5")
        _write_atomically(self.directory / "result.json", json.dumps(result))
        for old in self.directory.glob("ckpt-*.weights.h5"):
            old.unlink()
        (self.directory / "latest.json").unlink(missing_ok=True)

    def load_final(self, model):
        """Loads the finished run's model and optimizer variables."""
        _load(model, self.directory / "final.weights.h5")


def _without_steps(fingerprint):
    """`fingerprint` without its number of steps (which `run.json` files
    written before runs could be extended still hold)."""
    settings = {k: v for k, v in fingerprint["settings"].items() if k != "steps"}
    return {**fingerprint, "settings": settings}


def _can_continue(finished, steps, stop_at_threshold):
    """Whether finished run `finished` (a `RunResult` dict) goes on to `steps`.

    Only a run that trained to its own end does: one that stopped at its
    threshold or on a NaN loss would have stopped there in a longer run too.
    """
    ran_to_end = finished["steps"] == finished["settings"]["steps"]
    stopped = stop_at_threshold and finished["steps_to_threshold"] is not None
    return (
        ran_to_end
        and not stopped
        and not finished["diverged"]
        and steps > finished["steps"]
    )


def _load(model, path):
    """`model.load_weights(path)`, the optimizer's variables included."""
    if model.optimizer is not None and not model.optimizer.built:
        model.optimizer.build(model.trainable_variables)
    model.load_weights(path)


def _make_checkpoint_callback(checkpoint, recorder, clock):
    import keras

    class _Saver(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            checkpoint.save(
                self.model,
                epoch + 1,
                {
                    "curve": recorder.curve,
                    "steps_to_threshold": recorder.steps_to_threshold,
                    **clock.totals(),
                },
            )

    return _Saver()


class _Clock:
    """Wall and process CPU seconds, continuing the totals of earlier parts."""

    def __init__(self, seconds=0.0, cpu_seconds=0.0):
        self.base = (seconds, cpu_seconds)
        self.start = (time.perf_counter(), time.process_time())

    def totals(self):
        return {
            "seconds": self.base[0] + time.perf_counter() - self.start[0],
            "cpu_seconds": self.base[1] + time.process_time() - self.start[1],
        }


def compile_for_task(model, task, optimizer, jit_compile=False):
    """Compiles `model` with the task's loss and its weighted metrics.

    Warns when `jit_compile` meets a Keras LSTM, GRU or SimpleRNN that
    returns sequences on TensorFlow: XLA makes those O(T^2) per sequence.
    """
    if jit_compile:
        warn_quadratic_keras_rnns_under_xla(model)
    model.compile(
        optimizer=optimizer,
        loss=task.loss,
        weighted_metrics=task.keras_metrics(),
        jit_compile=jit_compile,
    )
    return model


def warn_quadratic_keras_rnns_under_xla(model):
    """Warns of each Keras LSTM/GRU/SimpleRNN in `model` that returns
    sequences, when the backend is TensorFlow.

    Under TensorFlow's XLA these layers cost O(T^2) per sequence when every
    step's output reaches the loss: 9x their own time without XLA at
    T = 1000, 2x at T = 100 (`benchmarks/rnn_speed.py --return-sequences`,
    README "Speed"). The package's layers and JAX are not affected.
    """
    import keras

    if keras.backend.backend() != "tensorflow":
        return
    keras_rnns = (keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN)
    for layer in model._flatten_layers(include_self=False):
        if type(layer) in keras_rnns and layer.return_sequences:
            warnings.warn(
                f"jit_compile=True: Keras's {type(layer).__name__} "
                f"'{layer.name}' returns sequences, which costs O(T^2) per "
                "sequence under TensorFlow's XLA (9x its time without XLA at "
                "T = 1000); it trains faster without XLA (drop --jit).",
                stacklevel=3,
            )


def strategy_name(strategy):
    """The name a strategy is recorded under ("default", "mirrored", "tpu")."""
    if strategy is None or isinstance(strategy, str):
        return strategy or "default"
    kind = type(strategy).__name__
    if "TPU" in kind:
        return "tpu"
    return "mirrored" if "Mirrored" in kind else "default"


def _build(spec, task, units, model_kwargs, optimizer_args, jit_compile, strategy):
    import keras

    if strategy is None or isinstance(strategy, str):
        strategy = make_strategy(strategy)
    with strategy.scope():
        model = spec.build(task, units=units, **(model_kwargs or {}))
        # A builder may attach extra outputs (attention maps for plots):
        # train on the first one.
        if len(model.outputs) > 1:
            model = keras.Model(model.inputs, model.outputs[0], name=model.name)
        optimizer = spec.optimizer(**optimizer_args)
        compile_for_task(model, task, optimizer, jit_compile)
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
    clipvalue=None,
    clipnorm=None,
    jit_compile=False,
    strategy=None,
    stop_at_threshold=False,
    verbose=1,
    model_kwargs=None,
    checkpoint_dir=None,
    tensorboard_dir=None,
):
    """Trains zoo model `model_name` on `task`; returns a `RunResult`.

    Args:
        task: a `keras_rda.lab.tasks.Task`.
        model_name: a registered zoo model.
        steps: training steps (rounded up to a multiple of `eval_every`).
        batch_size: sequences per step.
        units: recurrent units, passed to the model builder.
        eval_every: steps between held-out evaluations (and checkpoints).
        eval_examples: size of the fixed held-out set.
        seed: seeds Keras's initialisers and the training stream.
        learning_rate: overrides the zoo entry's learning rate.
        clipvalue: overrides the zoo entry's element-wise gradient clip.
        clipnorm: clip each gradient tensor's norm instead (with
            `clipvalue=0`; see `ModelSpec.optimizer`).
        jit_compile: compile the train step with XLA.
        strategy: a `tf.distribute.Strategy`, or a name for
            `keras_rda.lab.strategies.make_strategy` ("default",
            "mirrored" or "tpu").
        stop_at_threshold: stop once the task's threshold is met.
        verbose: 0 silent, 1 Keras's progress bar, 2 one line per
            evaluation (for logs written to files).
        model_kwargs: extra keyword arguments for the builder.
        checkpoint_dir: where to checkpoint after every evaluation (see
            `RunCheckpoint`); a run already there, interrupted or finished,
            is resumed, and a finished run asked for more `steps` trains on
            from where it ended. None: no checkpoints.
        tensorboard_dir: where to write the curve as TensorBoard scalars.

    Returns:
        A `RunResult`.

    Raises:
        CheckpointMismatch: `checkpoint_dir` holds a run with other settings,
            or one trained for more than `steps`.
    """
    import keras

    validation.int_in_range("verbose", verbose, 0, 2)
    spec = get_model_spec(model_name)
    epochs = max(1, math.ceil(steps / eval_every))
    settings = {
        "steps": epochs * eval_every,
        "batch_size": batch_size,
        "units": units,
        "eval_every": eval_every,
        "eval_examples": int(eval_examples),
        "learning_rate": learning_rate or spec.learning_rate,
        "clipvalue": clipvalue if clipvalue is not None else spec.clipvalue,
        "seed": seed,
        "jit_compile": bool(jit_compile),
        "strategy": strategy_name(strategy),
        "model_kwargs": dict(model_kwargs or {}),
        "stop_at_threshold": bool(stop_at_threshold),
    }
    if clipnorm:
        # Checked before a checkpoint directory is claimed for the run.
        spec.gradient_clip(clipvalue, clipnorm)
        # Only when set, so that the checkpoints of runs made before this
        # option keep their fingerprint and still resume.
        settings["clipnorm"] = clipnorm
    checkpoint = None
    if checkpoint_dir is not None:
        checkpoint = RunCheckpoint(
            checkpoint_dir,
            {
                "model": model_name,
                "task": task.name,
                "task_params": task.config(),
                "settings": {k: v for k, v in settings.items() if k != "steps"},
            },
        )
        trained = checkpoint.trained_steps()
        if trained > settings["steps"]:
            error = validation.invalid_value(
                "steps",
                f"at least the {trained} steps trained in {checkpoint_dir}",
                steps,
            )
            raise CheckpointMismatch(f"{error} (it holds a longer run)")
    keras.utils.set_random_seed(seed)
    optimizer_args = dict(
        learning_rate=learning_rate, clipvalue=clipvalue, clipnorm=clipnorm
    )
    model = _build(
        spec, task, units, model_kwargs, optimizer_args, jit_compile, strategy
    )
    finished = checkpoint.finished() if checkpoint is not None else None
    if finished is not None and _can_continue(
        finished, settings["steps"], stop_at_threshold
    ):
        checkpoint.reopen()
    elif finished is not None:
        checkpoint.load_final(model)
        result = RunResult.from_dict(checkpoint.finished())
        result.keras_model = model
        if verbose:
            print(f"{model_name}: finished earlier ({checkpoint.directory})")
        return result

    state = checkpoint.latest() if checkpoint is not None else None
    initial_epoch = 0
    recorder = make_recorder(
        task,
        eval_every,
        epochs * eval_every,
        stop_at_threshold,
        log_lines=verbose == 2,
        tensorboard_dir=tensorboard_dir,
        prefix=f"{model_name} (seed {seed}) ",
    )
    clock = _Clock()
    if state is not None:
        checkpoint.restore(model, state)
        initial_epoch = int(state["epoch"])
        recorder.curve = list(state["curve"])
        recorder.steps_to_threshold = state["steps_to_threshold"]
        clock = _Clock(state["seconds"], state["cpu_seconds"])
        if verbose:
            print(
                f"{model_name}: resuming after step {initial_epoch * eval_every} "
                f"({checkpoint.directory})",
                flush=True,
            )
    callbacks = [recorder, keras.callbacks.TerminateOnNaN()]
    if checkpoint is not None:
        callbacks.append(_make_checkpoint_callback(checkpoint, recorder, clock))
    x_val, y_val, w_val = task.held_out(eval_examples)
    done = stop_at_threshold and recorder.steps_to_threshold is not None
    if initial_epoch < epochs and not done:
        data = task.dataset(batch_size, seed=seed, skip=initial_epoch * eval_every)
        model.fit(
            data,
            steps_per_epoch=eval_every,
            epochs=epochs,
            initial_epoch=initial_epoch,
            validation_data=(x_val, y_val, w_val),
            validation_batch_size=min(len(y_val), max(batch_size, 100)),
            callbacks=callbacks,
            shuffle=False,
            verbose=1 if verbose == 1 else 0,
        )
    result = _run_result(model_name, task, recorder, clock.totals(), model, settings)
    if checkpoint is not None:
        checkpoint.finish(model, json_safe(result.to_dict()))
    return result


def _run_result(model_name, task, recorder, totals, model, settings):
    """The `RunResult` of a run whose curve is in `recorder`."""
    curve = recorder.curve
    last = curve[-1] if curve else {}
    return RunResult(
        model=model_name,
        task=task.name,
        steps=last.get("step", 0),
        curve=curve,
        steps_to_threshold=recorder.steps_to_threshold,
        final={k[4:]: v for k, v in last.items() if k.startswith("val_")},
        seconds=totals["seconds"],
        cpu_seconds=totals["cpu_seconds"],
        params=int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        settings=settings,
        diverged=bool(any(not np.isfinite(v) for v in last.values())),
        keras_model=model,
    )


def json_safe(value):
    """`value` with non-finite floats as None (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
