"""`benchmarks/memory_speed.py`: every model it times has one output layer."""

import importlib.util
import pathlib
import sys

import keras
import pytest

import keras_rda

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def memory_speed():
    sys.path.insert(0, str(BENCHMARKS))  # its `from rnn_speed import ...`
    try:
        spec = importlib.util.spec_from_file_location(
            "memory_speed", BENCHMARKS / "memory_speed.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCHMARKS))


def _dense_layers(model):
    return [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]


def _memory_cell(model):
    for layer in model.layers:
        cell = getattr(layer, "cell", None)
        if isinstance(cell, (keras_rda.DNCCell, keras_rda.NTMCell)):
            return cell
    return None


@pytest.mark.parametrize(
    "name", ["LSTM", "no memory", "DNC cell", "DNC+UW", "DNC+CUW", "NTM+UW"]
)
def test_every_model_maps_to_the_features_through_one_output_layer(memory_speed, name):
    # The LSTM's output layer is a Dense on o_t; a memory model's is its own
    # y_t = W_y [o_t, r_t] (`output_units`), with no Dense after it, as the
    # zoo builds the UW paper's models: the ratios compare like with like.
    length = 10
    model = memory_speed.build(name, length, jit=False)
    assert tuple(model.output_shape) == (None, length, memory_speed.FEATURES)
    cell = _memory_cell(model)
    if name in ("LSTM", "no memory"):
        assert cell is None
        (dense,) = _dense_layers(model)
        assert dense.units == memory_speed.FEATURES
        assert model.layers[-1] is dense
    else:
        assert _dense_layers(model) == []
        assert cell.output_size == memory_speed.FEATURES
    keras.backend.clear_session()
