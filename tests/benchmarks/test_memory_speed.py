"""`benchmarks/memory_speed.py`: every model it times has one output layer,
and several copies of a model are recorded copy by copy."""

import json

import keras
import numpy as np
import pytest

import keras_rda
from tests.benchmarks.conftest import benchmark_script


@pytest.fixture(scope="module")
def memory_speed():
    with benchmark_script("memory_speed") as module:
        yield module


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


def test_a_row_of_several_copies_gives_the_median_copy_and_each_copys_ratios(
    memory_speed,
):
    # Three copies of each model: the row's time is the median copy, its
    # ratios are of medians, and each copy k is also set against copy k of
    # the LSTM and of the regular cell.
    seconds = {
        "LSTM": [0.020, 0.030, 0.025],
        "DNC cell": [0.040, 0.050, 0.100],
        "DNC+UW": [0.024, 0.036, 0.030],
    }
    medians = {
        memory_speed.copy_label(name, k, 3): value
        for name, values in seconds.items()
        for k, value in enumerate(values)
    }
    first_step = {label: 1.0 + i for i, label in enumerate(medians)}
    row = memory_speed.speed_row("DNC+UW", 50, True, medians, first_step, 3)
    assert row["ms_per_step"] == pytest.approx(30.0)
    assert row["ratio_to_lstm"] == pytest.approx(0.030 / 0.025)
    assert row["ratio_to_reference"] == pytest.approx(0.030 / 0.050)
    assert row["instance_ms"] == pytest.approx([24.0, 36.0, 30.0])
    assert row["instance_ratios_to_lstm"] == pytest.approx([1.2, 1.2, 1.2])
    assert row["instance_ratios_to_reference"] == pytest.approx([0.6, 0.72, 0.3])
    assert row["first_step_s"] == first_step["DNC+UW #1"]
    # One copy: the model's own name, and no per-copy fields.
    single = memory_speed.speed_row(
        "DNC+UW",
        50,
        True,
        {"LSTM": 0.02, "DNC cell": 0.04, "DNC+UW": 0.03},
        {"DNC+UW": 2.0},
        1,
    )
    assert single["ratio_to_reference"] == pytest.approx(0.75)
    assert "instance_ms" not in single


def test_instances_are_timed_and_recorded(memory_speed, tmp_path):
    path = tmp_path / "speed.json"
    argv = ["--repeats", "1", "--lengths", "3", "--jit", "off", "--instances", "2"]
    argv += ["--models", "LSTM", "DNC cell", "--json", str(path)]
    memory_speed.main(argv)
    record = json.loads(path.read_text())
    assert record["instances"] == 2 and record["kind"] == "memory_speed"
    lstm, cell = record["rows"]
    assert lstm["length"] == 3
    assert len(cell["instance_ms"]) == 2
    assert cell["ms_per_step"] == pytest.approx(np.median(cell["instance_ms"]))
    assert cell["instance_ratios_to_lstm"] == pytest.approx(
        np.divide(cell["instance_ms"], lstm["instance_ms"])
    )
    with pytest.raises(SystemExit):
        memory_speed.main(["--instances", "0"])


def test_a_run_without_the_lstm_is_printed_and_recorded(memory_speed, tmp_path):
    # No LSTM and no regular cell timed: the ratios are blank, not a crash
    # after the timing (which would lose the run).
    path = tmp_path / "speed.json"
    argv = ["--repeats", "1", "--lengths", "10", "--jit", "off"]
    memory_speed.main(argv + ["--models", "DNC+UW", "--json", str(path)])
    (row,) = json.loads(path.read_text())["rows"]
    assert row["ratio_to_lstm"] is None and row["ratio_to_reference"] is None
