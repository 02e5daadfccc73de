"""Saving, exporting and compiling models built from the RDA/RWA units."""

import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

import keras_rda

BUILDERS = {
    "rda-layer": lambda: keras_rda.RDA(6, variant="exp-tanh", learn_initial_state=True),
    "rwa-layer": lambda: keras_rda.RWA(6),
    "rnn-rda-cell": lambda: keras.layers.RNN(
        keras_rda.RDACell(6, attention_activation="softplus")
    ),
    "rnn-rwa-cell": lambda: keras.layers.RNN(keras_rda.RWACell(6)),
    "bidirectional": lambda: keras.layers.Bidirectional(keras_rda.RDA(3)),
}


def make_model(recurrent):
    return keras.Sequential([keras.Input((None, 2)), recurrent, keras.layers.Dense(1)])


def perturbed(model, rng):
    """Random weights (so that s0, biases etc. are non-trivial)."""
    model.set_weights(
        [rng.normal(0, 0.5, w.shape).astype(np.float32) for w in model.get_weights()]
    )
    return model


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_keras_format_round_trip(name, tmp_path):
    rng = np.random.default_rng(0)
    model = perturbed(make_model(BUILDERS[name]()), rng)
    x = rng.normal(size=(3, 11, 2)).astype(np.float32)
    path = tmp_path / "model.keras"
    model.save(path)
    restored = keras.models.load_model(path)
    np.testing.assert_array_equal(
        model.predict(x, verbose=0), restored.predict(x, verbose=0)
    )
    as_json = lambda layer: json.loads(json.dumps(layer.get_config()))  # noqa: E731
    assert as_json(restored.layers[0]) == as_json(model.layers[0])


def test_export_and_load_in_a_process_without_keras_rda(tmp_path):
    rng = np.random.default_rng(1)
    inputs = keras.Input((None, 2))
    rda = keras_rda.RDA(5, return_sequences=True)(inputs)
    rwa = keras.layers.RNN(keras_rda.RWACell(4))(rda)
    model = perturbed(keras.Model(inputs, keras.layers.Dense(1)(rwa)), rng)
    x = rng.normal(size=(3, 13, 2)).astype(np.float32)
    expected = model.predict(x, verbose=0)
    export_dir = tmp_path / "exported"
    model.export(str(export_dir), verbose=False)
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(
        f"""
        import sys
        import numpy as np
        import tensorflow as tf
        loaded = tf.saved_model.load({str(export_dir)!r})
        y = loaded.serve(tf.constant(np.load({str(tmp_path / "x.npy")!r})))
        np.save({str(tmp_path / "y.npy")!r}, y.numpy())
        assert "keras_rda" not in sys.modules, "keras_rda was imported"
        """
    )
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    np.testing.assert_allclose(
        np.load(tmp_path / "y.npy"), expected, rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("name", ["rda-layer", "rwa-layer", "rnn-rda-cell"])
def test_fit_with_jit_compile(name):
    rng = np.random.default_rng(2)
    model = make_model(BUILDERS[name]())
    model.compile(keras.optimizers.Adam(1e-2), "mse", jit_compile=True)
    # Six steps: torch.compile traces the PyTorch loop step by step, so its
    # compile time grows with the length (five minutes at 20 steps on CI).
    x = rng.normal(size=(32, 6, 2)).astype(np.float32)
    y = x[:, :, :1].mean(axis=1)
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert np.isfinite(losses).all()
    assert losses[-1] < losses[0]
