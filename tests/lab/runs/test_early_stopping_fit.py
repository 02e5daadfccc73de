"""`fit_with_early_stopping`: early stopping, checkpoints and resume."""

import keras
import numpy as np
import pytest

from keras_rda.lab.runs.checkpoint import CheckpointMismatch
from keras_rda.lab.runs.early_stopping_fit import fit_with_early_stopping

FINGERPRINT = {"model": "dense", "settings": {"lr": 0.05}}


def _data(flip_validation=False):
    """y = x . w; with `flip_validation` the held-out tenth has y = -x . w,
    so that training makes the validation loss worse after the first epoch."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 4)).astype("float32")
    y = (x @ np.array([1.0, -2.0, 0.5, 3.0], "float32"))[:, None]
    if flip_validation:
        y[72:] *= -1.0
    return x, y


def _model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    return model


def _interrupt_after(model, epochs):
    """Makes `model.fit` raise on its call after `epochs` epochs, as a kill."""
    real_fit, calls = model.fit, []

    def fit(*args, **kwargs):
        if len(calls) == epochs:
            raise KeyboardInterrupt
        calls.append(kwargs["initial_epoch"])
        return real_fit(*args, **kwargs)

    model.fit = fit


def test_a_resumed_run_is_the_uninterrupted_run(tmp_path):
    x, y = _data()
    settings = dict(epochs=6, batch_size=8, patience=10, seed=3, verbose=0)
    model = _model()
    whole = fit_with_early_stopping(model, x, y, **settings)
    assert whole["epochs"] == 6 and not whole["stopped_early"]
    assert whole["resumed_from"] == 0 and len(whole["history"]["val_loss"]) == 6

    killed = _model()
    _interrupt_after(killed, 4)
    with pytest.raises(KeyboardInterrupt):
        fit_with_early_stopping(
            killed, x, y, checkpoint_dir=tmp_path, fingerprint=FINGERPRINT, **settings
        )
    resumed_model = _model()
    resumed = fit_with_early_stopping(
        resumed_model,
        x,
        y,
        checkpoint_dir=tmp_path,
        fingerprint=FINGERPRINT,
        **settings,
    )
    # Epochs 5 and 6 only; the optimizer's state (Adam's moments) came back
    # with the weights, or the last two epochs would differ.
    assert resumed["resumed_from"] == 4 and resumed["epochs"] == 6
    assert resumed_model.optimizer.iterations.numpy() == 6 * 9
    for key in ("loss", "val_loss"):
        np.testing.assert_allclose(
            resumed["history"][key], whole["history"][key], rtol=1e-5
        )
    for got, want in zip(resumed_model.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert resumed["best_epoch"] == whole["best_epoch"]

    # Finished: a rerun trains nothing and returns the stored run.
    again_model = _model()
    _interrupt_after(again_model, 0)
    again = fit_with_early_stopping(
        again_model,
        x,
        y,
        checkpoint_dir=tmp_path,
        fingerprint=FINGERPRINT,
        **settings,
    )
    assert again["history"] == resumed["history"] and again["resumed_from"] == 6
    for got, want in zip(again_model.get_weights(), resumed_model.get_weights()):
        np.testing.assert_array_equal(got, want)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "final.weights.h5",
        "result.json",
        "run.json",
    ]


def test_stops_early_and_keeps_the_best_epoch(tmp_path):
    x, y = _data(flip_validation=True)
    model = _model()
    patience = 2
    result = fit_with_early_stopping(
        model, x, y, epochs=20, batch_size=8, patience=patience, verbose=0
    )
    val_loss = result["history"]["val_loss"]
    best = int(np.argmin(val_loss)) + 1
    assert result["best_epoch"] == best
    assert result["epochs"] == best + patience < 20 and result["stopped_early"]
    # The model ends with the best epoch's weights: it scores that epoch's
    # validation loss on the held-out tenth.
    held_out = model.evaluate(x[72:], y[72:], verbose=0)
    assert held_out == pytest.approx(val_loss[best - 1], rel=1e-5)
    assert held_out < val_loss[-1]


def test_resumed_early_stopping_keeps_its_best_weights(tmp_path):
    """Killed after the best epoch: the resumed run still ends with the best
    epoch's weights (kept beside the checkpoint) and the same stopping epoch."""
    x, y = _data(flip_validation=True)
    settings = dict(epochs=20, batch_size=8, patience=3, verbose=0)
    whole = fit_with_early_stopping(_model(), x, y, **settings)
    killed = _model()
    _interrupt_after(killed, whole["best_epoch"] + 1)
    with pytest.raises(KeyboardInterrupt):
        fit_with_early_stopping(
            killed, x, y, checkpoint_dir=tmp_path, fingerprint=FINGERPRINT, **settings
        )
    model = _model()
    resumed = fit_with_early_stopping(
        model, x, y, checkpoint_dir=tmp_path, fingerprint=FINGERPRINT, **settings
    )
    assert resumed["resumed_from"] == whole["best_epoch"] + 1
    assert resumed["epochs"] == whole["epochs"]
    assert resumed["best_epoch"] == whole["best_epoch"]
    held_out = model.evaluate(x[72:], y[72:], verbose=0)
    best_loss = whole["history"]["val_loss"][whole["best_epoch"] - 1]
    assert held_out == pytest.approx(best_loss, rel=1e-5)


def test_refuses_another_runs_checkpoints(tmp_path):
    x, y = _data()
    settings = dict(epochs=1, batch_size=8, verbose=0, checkpoint_dir=tmp_path)
    fit_with_early_stopping(_model(), x, y, fingerprint=FINGERPRINT, **settings)
    with pytest.raises(CheckpointMismatch, match="checkpoint_dir"):
        fit_with_early_stopping(
            _model(), x, y, fingerprint={"model": "other"}, **settings
        )


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(epochs=0), "epochs"),
        (dict(batch_size=0), "batch_size"),
        (dict(patience=0), "patience"),
        (dict(validation_split=1.0), "validation_split"),
        (dict(validation_split=0.001), "validation_split"),
        (dict(checkpoint_dir="somewhere"), "fingerprint"),
    ],
)
def test_bad_arguments_are_named(kwargs, name):
    x, y = _data()
    settings = dict(epochs=1, batch_size=8, verbose=0)
    settings.update(kwargs)
    with pytest.raises(ValueError, match=f"`{name}`"):
        fit_with_early_stopping(_model(), x, y, **settings)
    with pytest.raises(ValueError, match="`y`"):
        fit_with_early_stopping(_model(), x, y[:-1], epochs=1, batch_size=8)
