"""Tests of the UW paper's zoo entries ("dnc", "dnc-uw", ..., "ntm-uw")."""

import keras
import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo.registry import get_model_spec

NAMES = ["dnc", "dnc-uw", "dnc-cuw", "dnc-rw", "ntm", "ntm-uw"]
SMALL = dict(units=8, word_size=4)


def _cell_layer(model):
    return next(layer for layer in model.layers if hasattr(layer, "cell"))


def _cell(model):
    return _cell_layer(model).cell


@pytest.mark.parametrize("name", NAMES)
def test_paper_settings(name):
    spec = get_model_spec(name)
    assert spec.learning_rate == 1e-3 and spec.clipvalue == 10.0
    assert spec.batch_size == 64 and spec.units == 100
    assert "Table 1" in spec.paper


def test_schedules_follow_the_encoding_part():
    task = get_task("uw-copy", length=50)
    configs = {n: _cell(get_model_spec(n).build(task, **SMALL)) for n in NAMES}
    assert configs["dnc"].write_schedule.get_config() == {}
    for name in ("dnc-uw", "ntm-uw"):
        schedule = configs[name].write_schedule
        assert schedule.sequence_length == 50 and schedule.encoding_steps == 50
        # eq. 8: floor(T / (D + 1)) with T = 50, D = 4.
        assert schedule.interval_for(4) == 50 // 5 == 10
    cuw = configs["dnc-cuw"].write_schedule
    assert cuw.cache_size == 5 and cuw.encoding_steps == 50
    rw = configs["dnc-rw"].write_schedule
    assert rw.sequence_length == 50 and rw.encoding_steps == 50
    for cell in configs.values():
        assert cell.memory_size == 4 and cell.num_read_heads == 1


def _lstm_params(inputs, units):
    return 4 * units * (inputs + units + 1)


@pytest.mark.parametrize("units", [100, 7])
def test_parameter_counts_of_table_1(units):
    """Counted by hand: LSTM([x, r]) + interface + output y = W[o, r] + b."""
    task = get_task("uw-copy", length=50)
    x, out, w, r, n_slots = task.input_dim, task.output_dim, 64, 1, 4
    del n_slots
    dnc_iface = r * w + r + w + 1 + 2 * w + r + 1 + 1 + 3 * r
    ntm_iface = (r + 1) * (w + 1 + 1 + 3 + 1) + 2 * w
    common = _lstm_params(x + r * w, units) + (units + r * w + 1) * out
    dnc = get_model_spec("dnc").build(task, units=units)
    ntm = get_model_spec("ntm").build(task, units=units)
    assert dnc.count_params() == common + (units + 1) * dnc_iface
    assert ntm.count_params() == common + (units + 1) * ntm_iface
    if units == 100:
        # Table 1 lists 98,840 (DNC) and 99,112 (NTM).
        assert abs(dnc.count_params() - 98840) / 98840 < 0.005
        assert abs(ntm.count_params() - 99112) / 99112 < 0.001


@pytest.mark.parametrize("name", NAMES)
def test_models_map_a_uw_task(name):
    task = get_task("uw-reverse", length=6)
    model = get_model_spec(name).build(task, **SMALL)
    x, _, _ = task.generate(4, np.random.default_rng(0))
    out = np.asarray(model(x))
    assert out.shape == (4, task.sequence_length, task.output_dim)
    assert np.all(np.isfinite(out))


def test_model_trains_with_fit():
    """One zoo model through the runner's compile and `model.fit` (the
    memory cells' own tests train every schedule)."""
    from keras_rda.lab.runs import compile_for_task

    # Two cache writes (steps 5 and 10), so that the second one sees a
    # non-zero read vector and every weight gets a gradient.
    task = get_task("uw-reverse", length=10)
    spec = get_model_spec("dnc-cuw")
    model = spec.build(task, **SMALL)
    x, y, w = task.generate(4, np.random.default_rng(0))
    compile_for_task(model, task, spec.optimizer())
    before = [np.array(v) for v in model.trainable_weights]
    history = model.fit(x, y, sample_weight=w, epochs=1, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    # Any change at all means a non-zero gradient: the cache read kernel's is
    # small (Adam moves it by ~1e-6, inside `allclose`'s tolerance).
    unchanged = [
        v.path
        for a, v in zip(before, model.trainable_weights)
        if np.array_equal(a, np.array(v))
    ]
    assert not unchanged


def test_regression_and_controller_options():
    task = get_task("sinusoid", length=5)
    model = get_model_spec("dnc-uw").build(task, controller="gru", **SMALL)
    x, _, _ = task.generate(3, np.random.default_rng(1))
    assert tuple(model(x).shape) == (3, 10, 1)
    cell = _cell(model)
    assert type(cell.controller).__name__ == "GRUCell"
    assert cell.write_schedule.interval_for(4) == 1  # floor(5 / 5)
    with pytest.raises(ValueError, match="argument `controller`"):
        get_model_spec("dnc").build(task, controller="transformer")


def test_the_uw_authors_controller_and_clip():
    """`controller="lstm_ln"` and `clip_value=20`: the UW authors' code's
    layer-normalised controller and its clip of the interface and output."""
    task = get_task("uw-copy", length=5)
    model = get_model_spec("dnc-uw").build(
        task, controller="lstm_ln", clip_value=20, **SMALL
    )
    cell = _cell(model)
    assert type(cell.controller).__name__ == "LayerNormLSTMCell"
    assert cell.clip_value == 20.0
    assert _cell(get_model_spec("dnc-uw").build(task, **SMALL)).clip_value is None
    x, _, _ = task.generate(2, np.random.default_rng(0))
    assert np.all(np.isfinite(keras.ops.convert_to_numpy(model(x))))


def test_the_uw_authors_initializer_from_the_command_line():
    """`--model-arg 'kernel_initializer={...RandomNormal, stddev 0.1}'`: the
    authors' N(0, 0.1^2) interface and output weights, parsed as the command
    line parses it; each weight its own draw."""
    from keras_rda.lab.cli.options import parse_kv

    task = get_task("uw-copy", length=5)
    argument = (
        'kernel_initializer={"class_name": "RandomNormal", "config": {"stddev": 0.1}}'
    )
    kwargs = parse_kv([argument], "--model-arg")
    model = get_model_spec("dnc").build(task, units=64, word_size=16, **kwargs)
    cell = _cell(model)
    interface = keras.ops.convert_to_numpy(cell.interface.kernel)
    output = keras.ops.convert_to_numpy(cell.output_projection.kernel)
    for kernel in (interface, output):
        np.testing.assert_allclose(kernel.std(), 0.1, rtol=0.1)
        assert abs(kernel.mean()) < 0.02
    n = output.size
    assert abs(np.corrcoef(interface.ravel()[:n], output.ravel())[0, 1]) < 0.2
    # The default stays Glorot uniform: std sqrt(2 / (fan_in + fan_out)).
    default = _cell(get_model_spec("dnc").build(task, units=64, word_size=16))
    glorot = keras.ops.convert_to_numpy(default.interface.kernel)
    np.testing.assert_allclose(glorot.std(), np.sqrt(2 / sum(glorot.shape)), rtol=0.1)


def test_schedule_that_does_not_fit_is_rejected():
    # T = 3 with 4 slots: floor(3 / 5) = 0 steps between writes.
    task = get_task("uw-copy", length=3)
    with pytest.raises(ValueError):
        get_model_spec("dnc-uw").build(task, **SMALL)


@pytest.mark.parametrize("name", ["dnc-cuw", "ntm-uw"])
def test_zoo_models_are_the_layers_with_a_declared_length(name):
    """The `DNC` / `NTM` layers over a declared length: the static schedule
    path (no conditional, XLA) also on `tf.data` batches."""
    import keras_rda

    task = get_task("uw-copy", length=10)
    model = get_model_spec(name).build(task, **SMALL)
    layer = _cell_layer(model)
    assert isinstance(layer, (keras_rda.DNC, keras_rda.NTM))
    assert model.inputs[0].shape[1] == task.sequence_length
    x, _, _ = task.generate(2, np.random.default_rng(0))
    assert layer.uses_static_schedule(x)
    assert model(x).shape == (2, task.sequence_length, task.output_dim)


def test_loop_intervals_reaches_the_layer():
    """`--model-arg loop_intervals=true`: the layer loops over the write
    intervals and computes what the default layer computes."""
    task = get_task("uw-copy", length=10)
    looped = get_model_spec("dnc-uw").build(task, loop_intervals=True, **SMALL)
    default = get_model_spec("dnc-uw").build(task, **SMALL)
    assert _cell_layer(looped).loop_intervals is True
    assert _cell_layer(default).loop_intervals is False
    looped.set_weights(default.get_weights())
    x, _, _ = task.generate(2, np.random.default_rng(0))
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(looped(x)),
        keras.ops.convert_to_numpy(default(x)),
        rtol=1e-5,
        atol=1e-6,
    )
