"""`model.fit` over epochs with early stopping, checkpointed and resumable:
the UW paper's classification experiments (sections 3.5-3.6) train for hours
on a CPU. A resumed run is the one an uninterrupted run would have been:
each epoch's order is drawn from `(seed, epoch)` alone, and the early-stopping
state (best loss, its epoch and weights, the epochs since) is checkpointed.
"""

import zipfile

import numpy as np

from keras_rda.lab.files import DamagedFile
from keras_rda.lab.files import replacing
from keras_rda.lab.runs.checkpoint import RunCheckpoint
from keras_rda.lab.runs.recording import Clock
from keras_rda.utils import validation

MONITOR = "val_loss"


def fit_with_early_stopping(
    model,
    x,
    y,
    *,
    epochs,
    batch_size,
    validation_split=0.1,
    patience=5,
    seed=0,
    checkpoint_dir=None,
    fingerprint=None,
    verbose=2,
):
    """Trains a compiled model until the validation loss stops improving, like
    `model.fit(x, y, validation_split=..., callbacks=[EarlyStopping(patience,
    restore_best_weights=True)])` (the last `validation_split` of the examples
    held out before any shuffling), but checkpointed every epoch.

    Args:
        model: a compiled Keras model.
        x: training inputs, `[examples, ...]`.
        y: training targets, `[examples, ...]`.
        epochs: the most epochs to train.
        batch_size: examples per step.
        validation_split: fraction of the examples, taken from the end,
            scored after every epoch (in (0, 1)).
        patience: epochs without improvement before stopping (>= 1).
        seed: seed of the per-epoch shuffles.
        checkpoint_dir: where to checkpoint after every epoch; a rerun with
            the same `fingerprint` resumes from it, or returns the finished
            run without training. None: no checkpoints.
        fingerprint: JSON-able description of the run (model and settings);
            a checkpoint directory holding another fingerprint is refused
            (`CheckpointMismatch`). Required with `checkpoint_dir`.
        verbose: Keras's `fit` verbosity (0, 1 or 2).

    Returns:
        A dict: `history` (each Keras log key -> one value per epoch),
        `epochs` trained, `best_epoch` (1-based, whose weights the model ends
        with), `stopped_early`, `seconds` and `cpu_seconds` (over every part
        of a resumed run), and `resumed_from` (the epoch this call started at).
    """
    epochs = validation.int_at_least("epochs", epochs, 1)
    batch_size = validation.int_at_least("batch_size", batch_size, 1)
    patience = validation.int_at_least("patience", patience, 1)
    validation.int_in_range("verbose", verbose, 0, 2)
    train_data, val_data = _split(x, y, validation_split)
    checkpoint = _open_checkpoint(checkpoint_dir, fingerprint)
    finished = checkpoint.finished() if checkpoint is not None else None
    if finished is not None:
        checkpoint.load_final(model)
        if verbose:
            print(f"finished earlier ({checkpoint.directory})")
        return {**finished, "resumed_from": epochs}
    start, state, best_weights = _resume(checkpoint, model, verbose)
    clock = Clock(state["seconds"], state["cpu_seconds"])
    epoch = start
    while epoch < epochs and state["wait"] < patience:
        logs = _fit_epoch(model, train_data, val_data, epoch, batch_size, seed, verbose)
        epoch += 1
        for key, values in logs.items():
            state["history"].setdefault(key, []).append(float(values[-1]))
        if _improved(state, epoch):
            best_weights = model.get_weights()
            if checkpoint is not None:
                _save_weights(best_weights, _best_path(checkpoint, epoch))
        state.update(clock.totals())
        if checkpoint is not None:
            checkpoint.save(model, epoch, state)
            _drop_best_weights(checkpoint, keep=state["best_epoch"])
    model.set_weights(best_weights)
    result = {
        "history": state["history"],
        "epochs": epoch,
        "best_epoch": state["best_epoch"],
        "stopped_early": epoch < epochs,
        "seconds": state["seconds"],
        "cpu_seconds": state["cpu_seconds"],
    }
    if checkpoint is not None:
        checkpoint.finish(model, result)
        _drop_best_weights(checkpoint, keep=None)
    return {**result, "resumed_from": start}


def _split(x, y, validation_split):
    """`((x_train, y_train), (x_val, y_val))`: the last `validation_split` of
    the examples held out; raises `ValueError` naming a bad argument."""
    validation_split = validation.in_range(
        "validation_split", validation_split, 0.0, 1.0, False, False
    )
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise validation.invalid_value(
            "y", f"as many examples as `x` ({len(x)})", f"{len(y)} examples"
        )
    held_out = int(round(len(x) * validation_split))
    if not 0 < held_out < len(x):
        raise validation.invalid_value(
            "validation_split",
            f"a fraction leaving training and validation examples of {len(x)}",
            validation_split,
        )
    split = len(x) - held_out
    return (x[:split], y[:split]), (x[split:], y[split:])


def _open_checkpoint(checkpoint_dir, fingerprint):
    """The run's `RunCheckpoint`, or None without `checkpoint_dir`."""
    if checkpoint_dir is None:
        return None
    if fingerprint is None:
        raise validation.invalid_value(
            "fingerprint", "a description of the run with `checkpoint_dir`", None
        )
    return RunCheckpoint(checkpoint_dir, fingerprint)


def _resume(checkpoint, model, verbose):
    """`(start_epoch, state, best_weights)`: the newest checkpoint's
    early-stopping state, if any (restored into `model`), else a fresh one."""
    state = {
        "history": {},
        "best": None,
        "best_epoch": 0,
        "wait": 0,
        "seconds": 0.0,
        "cpu_seconds": 0.0,
    }
    start = 0
    latest = checkpoint.latest() if checkpoint is not None else None
    if latest is not None:
        checkpoint.restore(model, latest)
        start = latest.pop("epoch")
        latest.pop("weights")
        state.update(latest)
        if verbose:
            print(f"resuming after epoch {start} ({checkpoint.directory})")
    best_weights = model.get_weights()
    if state["best_epoch"]:
        best_weights = _load_weights(_best_path(checkpoint, state["best_epoch"]))
    return start, state, best_weights


def _fit_epoch(model, train_data, val_data, epoch, batch_size, seed, verbose):
    """One epoch of `model.fit` in the order drawn from `(seed, epoch)`;
    returns its Keras history."""
    x_train, y_train = train_data
    order = np.random.default_rng([seed, epoch]).permutation(len(x_train))
    return model.fit(
        x_train[order],
        y_train[order],
        batch_size=batch_size,
        initial_epoch=epoch,
        epochs=epoch + 1,
        validation_data=val_data,
        shuffle=False,
        verbose=verbose,
    ).history


def _improved(state, epoch):
    """Whether `epoch`'s validation loss is the best yet; updates `state`'s
    best loss and epoch, or counts one more epoch without improvement."""
    loss = state["history"][MONITOR][-1]
    if np.isfinite(loss) and (state["best"] is None or loss < state["best"]):
        state.update(best=loss, best_epoch=epoch, wait=0)
        return True
    state["wait"] += 1
    return False


def _best_path(checkpoint, epoch):
    """Where the weights of `epoch`, when it was the best, are kept (named by
    epoch, so a kill before the checkpoint names a new best keeps the old)."""
    return checkpoint.directory / f"best-{epoch}.npz"


def _save_weights(weights, path):
    """Writes a list of arrays (`model.get_weights()`) to `path` atomically."""
    with replacing(path) as tmp:
        np.savez(tmp, *weights)


def _drop_best_weights(checkpoint, keep):
    """Removes the best-epoch weights files, but that of epoch `keep`."""
    for path in checkpoint.directory.glob("best-*.npz"):
        if keep is None or path != _best_path(checkpoint, keep):
            path.unlink()


def _load_weights(path):
    """The list of arrays `_save_weights` wrote to `path` (`DamagedFile` if
    it is missing or cut short)."""
    try:
        with np.load(path) as stored:
            return [stored[f"arr_{i}"] for i in range(len(stored.files))]
    except FileNotFoundError:
        raise DamagedFile(path, "it is missing") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise DamagedFile(path, f"its weights cannot be read ({error})") from None
