"""Memory cells through get_config, `.keras` files and SavedModel export."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_rda
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import RandomWriting
from keras_rda.memory import UniformWriting
from tests.helpers import exports_saved_model

CASES = [
    ("dnc", CachedUniformWriting(2, encoding_steps=4), keras.layers.LSTMCell, True),
    ("ntm", UniformWriting(interval=2), keras.layers.GRUCell, True),
    (
        "dnc",
        RandomWriting(sequence_length=6, seed=2),
        keras.layers.SimpleRNNCell,
        False,
    ),
]


def _model(kind, schedule, controller):
    cls = keras_rda.DNCCell if kind == "dnc" else keras_rda.NTMCell
    cell = cls(controller(5), 3, 4, num_read_heads=2, write_schedule=schedule)
    return keras.Sequential(
        [
            keras.Input((6, 2)),
            keras.layers.RNN(cell, return_sequences=True),
            keras.layers.Dense(3),
        ]
    )


@pytest.mark.parametrize("kind,schedule,controller,export", CASES)
def test_keras_file_and_savedmodel_round_trips(
    kind, schedule, controller, export, tmp_path, rng
):
    model = _model(kind, schedule, controller)
    x = rng.normal(size=(2, 6, 2)).astype("float32")
    y = model.predict(x, verbose=0)

    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), y)
    cell = loaded.layers[0].cell
    assert type(cell) is type(model.layers[0].cell)
    assert cell.write_schedule == schedule

    if not export or not exports_saved_model():
        return
    path = str(tmp_path / "export")
    model.export(path, verbose=False)
    restored = tf.saved_model.load(path)
    np.testing.assert_allclose(restored.serve(x).numpy(), y, atol=1e-6)


def test_get_config_round_trip():
    cell = keras_rda.DNCCell(
        keras.layers.LSTMCell(3),
        4,
        2,
        num_read_heads=2,
        num_write_heads=2,
        write_schedule="regular",
        output_units=5,
        clip_value=20,
        name="dnc",
    )
    clone = keras_rda.DNCCell.from_config(cell.get_config())
    assert clone.get_config() == cell.get_config()
    assert clone.controller.units == 3 and clone.num_write_heads == 2
    assert clone.clip_value == 20.0
    ntm = keras_rda.NTMCell(
        keras.layers.GRUCell(3),
        4,
        2,
        shift_range=1,
        write_schedule=UniformWriting(interval=2),
    )
    assert (
        keras_rda.NTMCell.from_config(ntm.get_config()).get_config() == ntm.get_config()
    )


@pytest.mark.parametrize("name", ["dnc_cuw", "ntm_uw"])
def test_files_saved_before_the_state_and_build_rework_still_load(name):
    """`.keras` files saved by commit 7f6b31a (sub-layers made in `__init__`,
    NTM weightings starting one-hot in the state) load with the same weight
    paths, in the same order, and give the same outputs. The files were
    written by `tests/memory/data/save_main_models.py` run on that commit."""
    data = os.path.join(os.path.dirname(__file__), "data")
    saved = np.load(os.path.join(data, "main_outputs.npz"))
    model = keras.saving.load_model(os.path.join(data, f"main_{name}.keras"))
    # Paths get other prefixes when loaded; the names say the order.
    assert [w.path.split("/")[-1] for w in model.weights] == [
        str(p).split("/")[-1] for p in saved[name + "_weights"]
    ]
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(model(saved["x"])), saved[name], atol=1e-6
    )
