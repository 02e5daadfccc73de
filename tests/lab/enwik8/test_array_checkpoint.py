"""ArrayCheckpoint (the JAX loop's `.npz` checkpoints): a round trip of
model, optimizer, step and carried state, the last 3 kept, and the refusals:
another run's configuration, a damaged file, the TensorFlow loop's files.

It needs Keras and NumPy only, so it is tested on the suite's backend."""

import json

import keras
import numpy as np
import pytest

from keras_rda.lab.enwik8.array_checkpoint import ArrayCheckpoint
from keras_rda.lab.files import DamagedFile

CONFIG = {"model": "dense", "units": 3}


def make(out_dir, config=CONFIG):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adam(name="adam")
    optimizer.build(model.trainable_variables)
    checkpoint = ArrayCheckpoint(out_dir, model, optimizer, [3, 1], 4, config)
    return model, optimizer, checkpoint


def test_round_trip_and_the_last_three_kept(tmp_path, rng):
    model, optimizer, checkpoint = make(tmp_path)
    assert checkpoint.restored_from is None
    values = [rng.normal(size=v.shape).astype("float32") for v in model.weights]
    moments = [rng.normal(size=v.shape).astype(v.dtype) for v in optimizer.variables]
    state = [rng.normal(size=(4, 3)), rng.normal(size=(4, 1))]
    for v, x in zip(model.weights, values):
        v.assign(x)
    for v, x in zip(optimizer.variables, moments):
        v.assign(x)
    for step in range(1, 6):
        checkpoint.step.assign(step)
        path = checkpoint.save(state if step == 5 else None)
    names = sorted(p.name for p in (tmp_path / "checkpoints").iterdir())
    assert names == ["ckpt-3.npz", "ckpt-4.npz", "ckpt-5.npz"]
    assert json.loads((tmp_path / "config.json").read_text()) == CONFIG

    model2, optimizer2, restored = make(tmp_path)
    assert restored.restored_from == path
    assert int(restored.step.numpy()) == 5
    for v, x in zip(model2.weights, values):
        np.testing.assert_array_equal(v.numpy(), x)
    for v, x in zip(optimizer2.variables, moments):
        np.testing.assert_array_equal(v.numpy(), x)
    for v, x in zip(restored.carried_state, state):
        np.testing.assert_allclose(v.numpy(), x, rtol=1e-6)


def test_another_runs_checkpoint_is_refused(tmp_path):
    checkpoint = make(tmp_path)[2]
    checkpoint.save()
    with pytest.raises(ValueError, match="different run.*'units': \\(3, 4\\)"):
        make(tmp_path, {"model": "dense", "units": 4})


def test_a_damaged_checkpoint_is_named(tmp_path):
    checkpoint = make(tmp_path)[2]
    path = checkpoint.save()
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(DamagedFile, match="ckpt-0.npz"):
        make(tmp_path)


def test_a_tensorflow_loop_checkpoint_is_refused(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "checkpoint").write_text('model_checkpoint_path: "x"')
    with pytest.raises(ValueError, match="KERAS_BACKEND=tensorflow"):
        make(tmp_path)


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow", reason="the TensorFlow loop's checkpoint"
)
def test_the_tensorflow_loop_refuses_a_jax_checkpoint(tmp_path):
    import tensorflow as tf

    from keras_rda.lab.enwik8.checkpointing import TrainingCheckpoint

    model, optimizer, checkpoint = make(tmp_path)
    checkpoint.save()
    strategy = tf.distribute.get_strategy()
    with pytest.raises(ValueError, match="ckpt-0.npz.*KERAS_BACKEND=jax"):
        TrainingCheckpoint(tmp_path, model, optimizer, strategy, [3, 1], 4, CONFIG)
