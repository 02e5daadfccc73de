"""Backend selection: the markers of the suite and the TensorFlow-only guard."""

import keras
import pytest

from keras_rda.utils import validation
from tests import conftest


def test_tensorflow_only_parts_fail_clearly_on_other_backends(monkeypatch):
    monkeypatch.setattr(keras.backend, "backend", lambda: "jax")
    with pytest.raises(ValueError, match="expected 'tensorflow'.*got 'jax'"):
        validation.tensorflow_backend("the enwik8 training loop")


def test_enwik8_trainer_refuses_other_backends(monkeypatch):
    training = pytest.importorskip("keras_rda.training.enwik8_trainer")
    monkeypatch.setattr(keras.backend, "backend", lambda: "torch")
    with pytest.raises(ValueError, match="the enwik8 training loop is TensorFlow-only"):
        training.Enwik8Trainer(data=None, out_dir="unused")


def test_tensorflow_backend_passes_on_tensorflow(monkeypatch):
    monkeypatch.setattr(keras.backend, "backend", lambda: "tensorflow")
    validation.tensorflow_backend("anything")  # no error


@pytest.mark.parametrize(
    "nodeid, prefix, expected",
    [
        ("tests/training/test_bpc.py::test_a", "tests/training/", True),
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
