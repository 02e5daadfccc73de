"""Backend selection: the markers of the suite and the TensorFlow-only guard."""

import keras
import pytest

from keras_rda.utils import validation
from tests import conftest


def test_tensorflow_only_parts_fail_clearly_on_other_backends(monkeypatch):
    monkeypatch.setattr(keras.backend, "backend", lambda: "jax")
    with pytest.raises(
        ValueError, match="needs the TensorFlow backend.*backend is 'jax'"
    ):
        validation.tensorflow_backend("The enwik8 training loop")


def test_enwik8_trainer_refuses_other_backends(monkeypatch):
    from keras_rda.lab.enwik8 import enwik8_trainer as training

    monkeypatch.setattr(keras.backend, "backend", lambda: "torch")
    with pytest.raises(
        ValueError, match="enwik8 loop runs on the backends tensorflow, jax.*'torch'"
    ):
        training.Enwik8Trainer(data=None, out_dir="unused")


def test_tensorflow_backend_passes_on_tensorflow(monkeypatch):
    monkeypatch.setattr(keras.backend, "backend", lambda: "tensorflow")
    validation.tensorflow_backend("anything")  # no error


@pytest.mark.parametrize(
    "nodeid, prefix, expected",
    [
        ("tests/lab/enwik8/test_bpc.py::test_a", "tests/lab/enwik8/", True),
        ("tests/a.py::test_x[1-2]", "tests/a.py::test_x", True),
        ("tests/a.py::test_x", "tests/a.py::test_x", True),
        ("tests/a.py::test_x_other", "tests/a.py::test_x", False),
        ("tests/a.py::test_y", "tests/a.py", True),
        ("tests/ab.py::test_y", "tests/a.py", False),
    ],
)
def test_marker_prefixes(nodeid, prefix, expected):
    assert conftest._matches(nodeid, prefix) is expected


def test_on_other_backends_tensorflow_only_tests_are_skipped(request):
    """This session: every tensorflow_only test is skipped unless on TF."""
    marked = [
        item
        for item in request.session.items
        if item.get_closest_marker("tensorflow_only")
    ]
    for item in marked + [request.node]:
        skipped = any(m.name == "skip" for m in item.iter_markers())
        tensorflow_only = item.get_closest_marker("tensorflow_only") is not None
        expected = tensorflow_only and keras.backend.backend() != "tensorflow"
        assert skipped == expected, item.nodeid


def _units():
    import keras_rda

    def dnc(schedule):
        return lambda: keras.layers.RNN(
            keras_rda.DNCCell(
                keras.layers.LSTMCell(4),
                memory_size=3,
                word_size=4,
                write_schedule=schedule,
            )
        )

    return {
        "RDACell": lambda: keras.layers.RNN(keras_rda.RDACell(4)),
        "RDA": lambda: keras_rda.RDA(4),
        "RWACell": lambda: keras.layers.RNN(keras_rda.RWACell(4)),
        "RWA": lambda: keras_rda.RWA(4),
        "FastWeightsCell": lambda: keras.layers.RNN(keras_rda.FastWeightsCell(4)),
        "WeiNetCell": lambda: keras.layers.RNN(keras_rda.WeiNetCell(4)),
        "LayerNormLSTMCell": lambda: keras.layers.RNN(keras_rda.LayerNormLSTMCell(4)),
        "RecurrentHighwayCell": lambda: keras.layers.RNN(
            keras_rda.RecurrentHighwayCell(4)
        ),
        "DNCCell": dnc("regular"),
        "DNCCell+UniformWriting": dnc(
            keras_rda.UniformWriting(sequence_length=6, encoding_steps=6)
        ),
        "DNCCell+CachedUniformWriting": dnc(keras_rda.CachedUniformWriting(3)),
        "NTMCell": lambda: keras.layers.RNN(
            keras_rda.NTMCell(keras.layers.LSTMCell(4), memory_size=3, word_size=4)
        ),
        "FeedForwardAttention": lambda: keras_rda.FeedForwardAttention(),
    }


UNITS = sorted(_units())


@pytest.mark.parametrize("name", UNITS)
def test_unit_trains_and_round_trips_on_this_backend(name, tmp_path):
    """model.fit, then `.keras` save/load with identical outputs (README table)."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 6, 3)).astype("float32")
    y = rng.normal(size=(8, 1)).astype("float32")
    model = keras.Sequential(
        [keras.Input((6, 3)), _units()[name](), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(1e-2), "mse")
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    after = model.evaluate(x, y, verbose=0)
    assert np.isfinite(after) and after < before  # it learned something
    model.save(tmp_path / "m.keras")
    restored = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(restored(x)),
        keras.ops.convert_to_numpy(model(x)),
        rtol=1e-6,
        atol=1e-6,
    )
