"""Checkpoints of one run: `RunCheckpoint` owns a run's directory,
`open_checkpoint` claims one for a run (refusing one of another or a longer
run), `make_checkpoint_callback` saves after every evaluation. A damaged
file (cut short, deleted, edited) raises `keras_rda.lab.files.DamagedFile`
naming it: the run does not guess, and `keras-rda` says to rerun with
`--restart`.
"""

import json
import shutil

from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import make_folder
from keras_rda.lab.files import read_json
from keras_rda.lab.files import replacing
from keras_rda.lab.files import unreadable
from keras_rda.lab.files import write_atomically
from keras_rda.utils import validation

# What `latest.json` holds at least (see `RunCheckpoint`), and the
# `result.json` of a run of `run_loop.train` (a `RunResult` dict).
LATEST_KEYS = ("epoch", "weights")
RESULT_KEYS = ("steps", "settings", "curve", "steps_to_threshold", "diverged")


class CheckpointMismatch(ValueError):
    """A checkpoint directory holds another run than the one asked for."""


def load_weights(model, path):
    """`model.load_weights(path)`, the optimizer's variables included.

    Raises:
        DamagedFile: `path` is missing, or not a weights file of this model
            (e.g. cut short).
    """
    if not path.is_file():
        raise DamagedFile(path, "it is missing")
    if model.optimizer is not None and not model.optimizer.built:
        model.optimizer.build(model.trainable_variables)
    try:
        model.load_weights(path)
    except (OSError, ValueError, KeyError) as error:
        raise unreadable(path, "its weights cannot be loaded", error) from None


class RunCheckpoint:
    """Checkpoints of one run, written after every evaluation, resumable.

    Layout of `directory`:

    - `run.json`: what the run is (model, task, settings other than its
      number of steps); a rerun with other settings is refused instead of
      mixing two runs. A rerun asking for more steps continues the run,
      finished or not (see `reopen`).
    - `ckpt-<epoch>.weights.h5`: the model and optimizer variables after
      `epoch` evaluation intervals.
    - `latest.json`: the newest complete checkpoint: its epoch and weights
      file, the curve so far, the step that met the threshold and the
      wall/CPU seconds. It is replaced after its weights file is complete,
      so a kill loses at most one evaluation interval (a weights file it
      does not name is a leftover, ignored).
    - `result.json` and `final.weights.h5`: the finished run, which a rerun
      returns without training.

    The data stream's position is the epoch: a resumed run skips
    `epoch * eval_every` batches of the same seeded stream.

    Args:
        directory: the run's checkpoint directory (created if missing).
        fingerprint: what the run is (JSON-serialisable), stored in
            `run.json` on first use and compared on every later one.
        result_keys: what `result.json` must hold (else it is damaged).

    Raises:
        CheckpointMismatch: `directory` holds a run with another
            fingerprint.
        DamagedFile: `run.json` is damaged, or missing beside checkpoints.
        keras_rda.lab.files.FolderUnusable: `directory` cannot be made.
    """

    def __init__(self, directory, fingerprint, result_keys=()):
        self.directory = make_folder(directory)
        self.fingerprint = fingerprint
        self.result_keys = tuple(result_keys)
        run_file = self.directory / "run.json"
        if run_file.exists() or self._holds_a_run():
            stored = _without_steps(read_json(run_file))
            if stored != json.loads(json.dumps(fingerprint)):
                error = validation.invalid_value(
                    "checkpoint_dir",
                    "a directory of this run or a new one",
                    str(self.directory),
                )
                raise CheckpointMismatch(f"{error} (it holds a different run)")
        else:
            write_atomically(run_file, json.dumps(fingerprint, indent=2))

    def _holds_a_run(self):
        """Whether any file of a run is here (so `run.json` must be too)."""
        names = ("latest.json", "result.json", "final.weights.h5")
        return any((self.directory / name).exists() for name in names) or any(
            self.directory.glob("ckpt-*.weights.h5")
        )

    def finished(self):
        """The finished run's `RunResult` dict, or None.

        Raises:
            DamagedFile: `result.json` is damaged, or missing beside the
                finished run's `final.weights.h5` (with no checkpoint that
                a kill could have left it beside).
        """
        path = self.directory / "result.json"
        if path.exists():
            return read_json(path, required=self.result_keys)
        final = self.directory / "final.weights.h5"
        if final.exists() and not (self.directory / "latest.json").exists():
            raise DamagedFile(path, f"it is missing beside {final.name}")
        return None

    def latest(self):
        """The newest checkpoint's state (see the class docstring), or None.

        Raises:
            DamagedFile: `latest.json` is damaged, or missing beside a
                checkpoint after the first of an unfinished run (only a kill
                during the first save leaves weights without it).
        """
        path = self.directory / "latest.json"
        if path.exists():
            return read_json(path, required=LATEST_KEYS)
        if not (self.directory / "result.json").exists():
            for weights in self.directory.glob("ckpt-*.weights.h5"):
                if weights.name != "ckpt-1.weights.h5":
                    raise DamagedFile(path, f"it is missing beside {weights.name}")
        return None

    def trained_steps(self):
        """Steps trained so far: of the finished run, else of the newest
        checkpoint, else 0."""
        finished = self.finished()
        if finished is not None:
            return int(finished["steps"])
        state = self.latest()
        curve = state.get("curve") if state else None
        return int(curve[-1]["step"]) if curve else 0

    def reopen(self):
        """Turns the finished run back into its last checkpoint, to go on for
        more steps as if asked for them at the start (the optimizer's state
        is in the weights file). Each file is replaced before the next is
        removed: a kill leaves the finished run or the checkpoint usable."""
        result = self.finished()
        epoch = int(result["steps"]) // int(result["settings"]["eval_every"])
        final = self.directory / "final.weights.h5"
        if not final.is_file():
            raise DamagedFile(final, "it is missing")
        keys = ("curve", "steps_to_threshold", "seconds", "cpu_seconds")
        self._write(
            epoch,
            lambda tmp: shutil.copyfile(final, tmp),
            {key: result[key] for key in keys},
        )
        (self.directory / "result.json").unlink()
        (self.directory / "final.weights.h5").unlink()

    def save(self, model, epoch, state):
        """Writes the checkpoint after `epoch` intervals, then drops older ones."""
        name = self._write(
            epoch, lambda tmp: model.save_weights(tmp, overwrite=True), state
        )
        for old in self.directory.glob("ckpt-*.weights.h5"):
            if old.name != name:
                old.unlink()

    def _write(self, epoch, write_weights, state):
        """The checkpoint of `epoch`: `write_weights(path)` writes its weights
        file, then `latest.json` names it with `state`. Returns its name."""
        name = f"ckpt-{epoch}.weights.h5"
        with replacing(self.directory / name) as tmp:
            write_weights(tmp)
        write_atomically(
            self.directory / "latest.json",
            json.dumps({"epoch": epoch, "weights": name, **state}),
        )
        return name

    def restore(self, model, state):
        """Loads the model and optimizer variables of checkpoint `state`.

        Raises:
            DamagedFile: the weights file it names is missing or damaged.
        """
        load_weights(model, self.directory / state["weights"])

    def finish(self, model, result):
        """Stores the finished run and removes the intermediate checkpoints."""
        with replacing(self.directory / "final.weights.h5") as tmp:
            model.save_weights(tmp, overwrite=True)
        write_atomically(self.directory / "result.json", json.dumps(result))
        for old in self.directory.glob("ckpt-*.weights.h5"):
            old.unlink()
        (self.directory / "latest.json").unlink(missing_ok=True)

    def load_final(self, model):
        """Loads the finished run's model and optimizer variables.

        Raises:
            DamagedFile: `final.weights.h5` is missing or damaged.
        """
        load_weights(model, self.directory / "final.weights.h5")

    def take_finished(self, model, steps, stop_at_threshold):
        """The finished run's `RunResult` dict, loaded into `model`, or None to
        train (no finished run, or one that `can_continue` to `steps`: it is
        reopened to train on from its last checkpoint)."""
        finished = self.finished()
        if finished is None:
            return None
        if can_continue(finished, steps, stop_at_threshold):
            self.reopen()
            return None
        self.load_final(model)
        return finished


def fingerprint(model_name, task, settings):
    """What a run is, as its `run.json` stores it: model, task, the task's
    parameters and the run's settings other than its number of steps."""
    return {
        "model": model_name,
        "task": task.name,
        "task_params": task.config(),
        "settings": {k: v for k, v in settings.items() if k != "steps"},
    }


def open_checkpoint(directory, run_fingerprint, steps, asked_steps):
    """The `RunCheckpoint` of the run `run_fingerprint` of `steps` (a multiple
    of its evaluation interval; `asked_steps` as asked, for the message) in
    `directory`, or None for no directory.

    Raises:
        CheckpointMismatch: `directory` holds another run, or one trained
            for more than `steps`.
    """
    if directory is None:
        return None
    checkpoint = RunCheckpoint(directory, run_fingerprint, result_keys=RESULT_KEYS)
    trained = checkpoint.trained_steps()
    if trained > steps:
        error = validation.invalid_value(
            "steps",
            f"at least the {trained} steps trained in {directory}",
            asked_steps,
        )
        raise CheckpointMismatch(f"{error} (it holds a longer run)")
    return checkpoint


def _without_steps(fingerprint):
    """`fingerprint` without its number of steps (which `run.json` files
    written before runs could be extended still hold)."""
    if not isinstance(fingerprint, dict) or not isinstance(
        fingerprint.get("settings"), dict
    ):
        return fingerprint
    settings = {k: v for k, v in fingerprint["settings"].items() if k != "steps"}
    return {**fingerprint, "settings": settings}


def can_continue(finished, steps, stop_at_threshold):
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


def make_checkpoint_callback(checkpoint, recorder, clock):
    """A Keras callback saving `checkpoint` after every evaluation, with the
    curve and threshold step of `recorder` (which must come before it in
    `fit`'s callbacks) and the totals of `clock`."""
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
