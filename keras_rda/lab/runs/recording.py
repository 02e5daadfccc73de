"""What one run records: its learning curve (held-out scores every
`eval_every` steps, and the first step that met the task's threshold: the
papers' "steps until threshold"), its clock and its `RunResult`, what a run
hands back and a record stores per run."""

import dataclasses
import math
import time

import numpy as np

from keras_rda.lab.reporting.records import COMPARISONS
from keras_rda.lab.reporting.records import held_out
from keras_rda.lab.reporting.records import metric_key
from keras_rda.lab.runs.summaries import write_scalars


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
        seconds: wall-clock training time (over every resumed part).
        cpu_seconds: the process's CPU time while training (likewise).
        params: number of trainable parameters.
        settings: steps, batch size, units, learning rate, clipping, seed...
        diverged: True when training stopped on a NaN loss.
        data: which data the run read (`Task.data_source`): for a real
            data set the local file and its sha256, or the full download;
            None in records made before the field.
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
    data: dict = None
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
        """The run as a record stores it: every field but the Keras model."""
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
    return score is not None and bool(COMPARISONS[op](float(score), value))


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
    """A Keras callback recording the learning curve of one run: after each
    `eval_every` steps (one Keras "epoch") it appends the logs to its `curve`
    and notes the first step meeting `task`'s threshold in
    `steps_to_threshold` (both set anew when a run resumes), stopping there
    with `stop_at_threshold`. With `log_lines` it prints one line per
    evaluation (starting with `prefix`, out of `total_steps`), with
    `tensorboard_dir` it writes TensorBoard scalars there."""
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


def make_nonfinite_stop(eval_every, prefix=""):
    """A Keras callback that stops training at the first non-finite loss
    (after which no step can recover: Adam turns every weight it touches into
    NaN), with one line (starting with `prefix`) naming the step (counted
    with `eval_every` steps per Keras epoch) and the loss; the run is
    recorded as diverged. Its `stopped_at` is the step, or None.
    """
    import keras

    class StopOnNonFiniteLoss(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.stopped_at = None
            self._epoch = 0

        def on_epoch_begin(self, epoch, logs=None):
            self._epoch = epoch

        def on_train_batch_end(self, batch, logs=None):
            loss = (logs or {}).get("loss")
            if loss is None or self.stopped_at is not None:
                return
            loss = float(loss)
            if not math.isfinite(loss):
                self.stopped_at = self._epoch * eval_every + batch + 1
                self.model.stop_training = True
                print(
                    f"{prefix}stopped at step {self.stopped_at}: the training "
                    f"loss is {loss}, not finite, so no later step can "
                    "recover; the run is recorded as diverged",
                    flush=True,
                )

    return StopOnNonFiniteLoss()


class Clock:
    """Wall and process CPU seconds, continuing the totals of earlier parts.

    Args:
        seconds: wall-clock seconds spent before (by the parts of a run
            before its resumption).
        cpu_seconds: CPU seconds spent before.
    """

    def __init__(self, seconds=0.0, cpu_seconds=0.0):
        self.base = (seconds, cpu_seconds)
        self.start = (time.perf_counter(), time.process_time())

    def totals(self):
        """`{"seconds": ..., "cpu_seconds": ...}` so far, earlier parts included."""
        return {
            "seconds": self.base[0] + time.perf_counter() - self.start[0],
            "cpu_seconds": self.base[1] + time.process_time() - self.start[1],
        }


def run_result(model_name, task, recorder, totals, model, settings):
    """The `RunResult` of a run whose curve is in `recorder` (its
    `make_recorder` callback), with the run's `Clock.totals()` and settings;
    diverged when any of its last logs is not finite."""
    curve = recorder.curve
    last = curve[-1] if curve else {}
    return RunResult(
        model=model_name,
        task=task.name,
        steps=last.get("step", 0),
        curve=curve,
        steps_to_threshold=recorder.steps_to_threshold,
        final=held_out(last),
        seconds=totals["seconds"],
        cpu_seconds=totals["cpu_seconds"],
        params=int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        settings=settings,
        diverged=bool(any(not np.isfinite(v) for v in last.values())),
        data=task.data_source(),
        keras_model=model,
    )
