"""`DNC` and `NTM` layers: the static schedule path against the cell path."""

import keras
import numpy as np
import pytest
import tensorflow as tf  # loads the SavedModel on any backend

import keras_rda
from keras_rda.memory import CachedUniformWriting
from keras_rda.memory import RandomWriting
from keras_rda.memory import RegularWriting
from keras_rda.memory import UniformWriting
from keras_rda.memory import base_memory_rnn
from keras_rda.memory.held_reads_lstm import lstm_step_with_held_reads
from tests.helpers import exports_saved_model
from tests.layers.gradients import loss_and_gradients
from tests.memory.helpers import np_

T = 14  # 9 governed (encoding) steps, then 5 steps with an access each
SCHEDULES = {
    "regular": RegularWriting(),
    "uniform": UniformWriting(sequence_length=9, encoding_steps=9),  # 2, 4, 6, 8
    "cached_uniform": CachedUniformWriting(3, encoding_steps=9),
    "random": RandomWriting(sequence_length=9, encoding_steps=9, seed=4),
}
LAYERS = {"dnc": keras_rda.DNC, "ntm": keras_rda.NTM}
# The XLA tests trace and compile every access of the schedule, so they use a
# shorter sequence, with fewer accesses to compile: two writes in 6 governed
# steps (held stretches of 2 steps, in the backend's loop), then 2 steps with
# an access each.
T_XLA = 8
XLA_SCHEDULES = {
    "regular": RegularWriting(),
    "uniform": UniformWriting(interval=3, encoding_steps=6),  # 3, 6
    "cached_uniform": CachedUniformWriting(3, encoding_steps=6),
    "random": RandomWriting(sequence_length=6, encoding_steps=6, seed=4),
}


def _layer(kind, schedule, controller=None, **kwargs):
    kwargs = {"return_sequences": True, "return_state": True, **kwargs}
    return LAYERS[kind](
        controller or keras.layers.LSTMCell(5),
        memory_size=3,
        word_size=4,
        num_read_heads=2,
        write_schedule=schedule,
        output_units=3,
        **kwargs,
    )


def _randomise(layer, rng):
    for weight in layer.weights:
        weight.assign(0.5 * rng.normal(size=weight.shape))


def _random_input_and_weights(layer, rng):
    """Builds `layer` for `[2, T, 3]` inputs, randomises its weights and
    returns such an input."""
    x = rng.normal(size=(2, T, 3)).astype("float32")
    layer.build((None, T, 3))
    _randomise(layer, rng)
    return x


def _assert_layer_equals_rnn_of_its_cell(layer, x):
    """Outputs, states and gradients of `layer` and of `RNN(layer.cell)`
    agree; returns the layer's `(values, gradients)`."""
    reference = keras.layers.RNN(layer.cell, return_sequences=True, return_state=True)
    got_values, got_grads = _outputs_and_gradients(layer, x)
    want_values, want_grads = _outputs_and_gradients(reference, x)
    assert len(got_grads) == len(want_grads) == 1 + len(layer.trainable_weights)
    for got, want in zip(got_values + got_grads, want_values + want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    return got_values, got_grads


def _outputs_and_gradients(layer, x):
    """`[output, *states]` and the gradients for the inputs, then the weights."""

    def loss_fn(outputs):
        output, *states = outputs
        return keras.ops.sum(output**2) + sum(
            keras.ops.sum(keras.ops.sin(s)) for s in states[2:]
        )

    values, _, grads = loss_and_gradients(layer, x, loss_fn)
    return values, grads[-1:] + grads[:-1]


@pytest.mark.parametrize("unroll_limit", [32, 1], ids=["unrolled", "loops"])
@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("kind", list(LAYERS))
def test_layer_equals_rnn_of_its_cell(kind, schedule, unroll_limit, rng, monkeypatch):
    monkeypatch.setattr(base_memory_rnn, "UNROLL_LIMIT", unroll_limit)
    layer = _layer(kind, SCHEDULES[schedule])
    x = _random_input_and_weights(layer, rng)
    assert layer.uses_static_schedule(x)
    _, got_grads = _assert_layer_equals_rnn_of_its_cell(layer, x)
    # The memory was used: the gradient reaches the interface.
    assert np.any(got_grads[1 + _index(layer, "interface/kernel")] != 0)


@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("kind", list(LAYERS))
def test_layer_with_unroll_equals_rnn_of_its_cell(kind, schedule, rng):
    # `unroll=True` (the setting for TensorFlow without XLA, docs/memory.md)
    # unrolls every stretch and every run of access steps, the decoding
    # steps' regular writing included.
    layer = _layer(kind, SCHEDULES[schedule], unroll=True)
    x = _random_input_and_weights(layer, rng)
    assert layer.uses_static_schedule(x)
    _assert_layer_equals_rnn_of_its_cell(layer, x)


@pytest.mark.parametrize("schedule", ["uniform", "cached_uniform"])
def test_layer_equals_rnn_of_its_cell_with_a_single_state_controller(schedule, rng):
    # A GRU's state is one tensor, not a list: the stretches between writes
    # loop the controller alone and must pass it the same structure.
    layer = keras_rda.DNC(
        keras.layers.GRUCell(5),
        memory_size=3,
        word_size=4,
        write_schedule=SCHEDULES[schedule],
        return_sequences=True,
        return_state=True,
    )
    x = _random_input_and_weights(layer, rng)
    _assert_layer_equals_rnn_of_its_cell(layer, x)


@pytest.mark.parametrize(
    "controller",
    [
        dict(use_bias=False),
        dict(activation="softsign", recurrent_activation="hard_sigmoid"),
        dict(implementation=1),
    ],
    ids=["no_bias", "activations", "implementation_1"],
)
@pytest.mark.parametrize("schedule", ["uniform", "cached_uniform"])
def test_lstm_stretch_follows_the_controllers_settings(controller, schedule, rng):
    # An LSTMCell controller's stretches compute its gates themselves, with
    # the held reads' part once per stretch: they must read the cell's bias,
    # activations and kernel layout as `LSTMCell.call` does.
    layer = _layer(
        "dnc", SCHEDULES[schedule], controller=keras.layers.LSTMCell(5, **controller)
    )
    x = _random_input_and_weights(layer, rng)
    reads = keras.ops.ones((2, 8))
    assert lstm_step_with_held_reads(layer.cell.controller, reads) is not None
    _assert_layer_equals_rnn_of_its_cell(layer, x)


@pytest.mark.parametrize("kind", list(LAYERS))
def test_trains_on_a_stream_of_unknown_shape(kind, rng):
    # A `tf.data` stream whose batches have no static shape: the length
    # comes from the model's `keras.Input`, and the width of `x_t` is
    # unknown while tracing.
    layer = _layer(kind, XLA_SCHEDULES["cached_uniform"], return_state=False)
    model = keras.Sequential([keras.Input((T_XLA, 3)), layer])
    model.compile("adam", "mse")
    x = rng.normal(size=(4, T_XLA, 3)).astype("float32")
    y = rng.normal(size=(4, T_XLA, 3)).astype("float32")
    spec = tf.TensorSpec((None, None, None), tf.float32)
    stream = tf.data.Dataset.from_generator(
        lambda: iter([(x, y)]), output_signature=(spec, spec)
    )
    history = model.fit(stream, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    np.testing.assert_allclose(
        np_(model.predict(stream, verbose=0)), np_(model(x)), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("kind", list(LAYERS))
def test_layer_equals_rnn_of_its_cell_with_clipping(kind, rng):
    # `clip_value` clips the interface and y_t; the layer projects and clips
    # a whole sequence of y_t at once, the cell one step at a time.
    layer = _layer(kind, SCHEDULES["cached_uniform"], clip_value=0.3)
    x = _random_input_and_weights(layer, rng)
    got_values, _ = _assert_layer_equals_rnn_of_its_cell(layer, x)
    outputs = np_(got_values[0])
    assert np.abs(outputs).max() <= 0.3 + 1e-7
    assert np.any(np.isclose(np.abs(outputs), 0.3))  # the clip acted


def _index(layer, suffix):
    paths = [w.path for w in layer.trainable_weights]
    return next(i for i, p in enumerate(paths) if p.endswith(suffix))


@pytest.mark.parametrize("kind", list(LAYERS))
def test_dynamic_length_mask_and_initial_state_use_the_cell_path(kind, rng):
    layer = _layer(kind, SCHEDULES["uniform"], return_state=False)
    x = rng.normal(size=(2, T, 3)).astype("float32")
    static = keras.Sequential([keras.Input((T, 3)), layer])
    dynamic = keras.Sequential([keras.Input((None, 3)), layer])
    np.testing.assert_allclose(np_(dynamic(x)), np_(static(x)), rtol=1e-5, atol=1e-6)
    mask = np.ones((2, T), bool)
    mask[1, 10:] = False
    assert not layer.uses_static_schedule(x, mask)
    reference = keras.layers.RNN(layer.cell, return_sequences=True)
    np.testing.assert_allclose(
        np_(layer(x, mask=mask)), np_(reference(x, mask=mask)), atol=1e-6
    )


@pytest.mark.parametrize("kind", list(LAYERS))
def test_weights_are_the_cells_in_the_same_order(kind):
    layer = _layer(kind, SCHEDULES["cached_uniform"])
    layer.build((None, T, 3))
    cls = keras_rda.DNCCell if kind == "dnc" else keras_rda.NTMCell
    cell = cls(
        keras.layers.LSTMCell(5),
        3,
        4,
        num_read_heads=2,
        write_schedule=SCHEDULES["cached_uniform"],
        output_units=3,
    )
    rnn = keras.layers.RNN(cell)
    rnn.build((None, T, 3))
    assert [w.shape for w in layer.weights] == [w.shape for w in rnn.weights]
    assert [w.path.split("/")[-1] for w in layer.weights] == [
        w.path.split("/")[-1] for w in rnn.weights
    ]


@pytest.mark.parametrize(
    "kind,schedule", [("dnc", "cached_uniform"), ("ntm", "random")]
)
def test_keras_file_and_savedmodel_round_trips(kind, schedule, tmp_path, rng):
    layer = _layer(kind, SCHEDULES[schedule], return_state=False)
    model = keras.Sequential([keras.Input((T, 3)), layer, keras.layers.Dense(2)])
    x = rng.normal(size=(2, T, 3)).astype("float32")
    _randomise(layer, rng)
    expected = np_(model(x))
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded.layers[0], LAYERS[kind])
    config, loaded_config = layer.get_config(), loaded.layers[0].get_config()
    assert loaded_config.pop("controller")["config"]["units"] == 5
    config.pop("controller")
    assert loaded_config == config
    np.testing.assert_allclose(np_(loaded(x)), expected, atol=1e-6)
    if not exports_saved_model():
        return
    model.export(str(tmp_path / "saved"), verbose=False)
    reloaded = tf.saved_model.load(str(tmp_path / "saved"))
    np.testing.assert_allclose(np_(reloaded.serve(x)), expected, atol=1e-6)


# Every schedule once, each layer twice: the DNC and the NTM share the
# schedule's loop (`base_memory_rnn`); crossing them compiled the same loop
# twice for ~3 minutes of CI time.
@pytest.mark.parametrize(
    "kind, schedule",
    [
        ("ntm", "regular"),
        ("dnc", "uniform"),
        ("ntm", "cached_uniform"),
        ("dnc", "random"),
    ],
)
def test_trains_under_xla_with_every_schedule(kind, schedule, rng):
    layer = _layer(kind, XLA_SCHEDULES[schedule], return_state=False)
    model = keras.Sequential([keras.Input((T_XLA, 3)), layer])
    model.compile(keras.optimizers.Adam(1e-2), "mse", jit_compile=True)
    assert model.jit_compile  # not turned off for an unsupported layer
    x = rng.normal(size=(4, T_XLA, 3)).astype("float32")
    y = rng.normal(size=(4, T_XLA, 3)).astype("float32")
    before = [np_(w) for w in model.trainable_weights]
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    interface = _index(layer, "interface/kernel")
    after = np_(model.trainable_weights[interface])
    assert np.any(after != before[interface])


@pytest.mark.parametrize("schedule", ["uniform", "cached_uniform"])
def test_mixed_precision_layer_equals_rnn_of_its_cell(schedule, rng):
    keras.config.set_dtype_policy("mixed_float16")
    layer = _layer("dnc", SCHEDULES[schedule])
    x = rng.normal(size=(2, T, 3)).astype("float32")
    layer.build((None, T, 3))
    reference = keras.layers.RNN(layer.cell, return_sequences=True, return_state=True)
    got = [np_(v) for v in layer(x)]
    want = [np_(v) for v in reference(x)]
    assert got[0].dtype == np.float16
    for a, b in zip(got, want):
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, atol=2e-3)


def test_schedule_runs():
    access = np.array([0, 0, 1, 0, 1, 1, 1], bool)
    attend = np.array([0, 0, 1, 0, 0, 0, 0], bool)
    assert base_memory_rnn.schedule_runs(access, attend) == [
        (0, 2, False, False),
        (2, 3, True, True),
        (3, 4, False, False),
        (4, 7, True, False),
    ]


def test_repeated_block():
    held, write = (False, False), (True, False)
    runs = []
    for start in range(0, 50, 10):  # Uniform Writing, T = 50, 4 slots
        runs += [(start, start + 9, *held), (start + 9, start + 10, *write)]
    runs.append((50, 53, True, False))  # a tail of regular writing
    assert base_memory_rnn.repeated_block(runs) == (runs[:2], 5)
    # With a cache of 4 an interval of 10 steps would fill different slots
    # each time, so two intervals (20 steps) make the block.
    assert base_memory_rnn.repeated_block(runs, cache_size=4) == (runs[:4], 2)
    assert base_memory_rnn.repeated_block(runs, cache_size=3) == (runs, 1)
    assert base_memory_rnn.repeated_block([(0, 50, True, False)]) == (
        [(0, 50, True, False)],
        1,
    )


@pytest.mark.parametrize(
    "loop_intervals", [True, False], ids=["intervals", "stretches"]
)
@pytest.mark.parametrize("schedule", ["uniform", "cached_uniform"])
@pytest.mark.parametrize("kind", list(LAYERS))
def test_interval_loop_equals_rnn_of_its_cell(kind, schedule, loop_intervals, rng):
    # Both ways of running the encoding phase's equal write intervals (2 and
    # 3 steps, 4 and 3 times) give the cell's values and gradients.
    layer = _layer(kind, SCHEDULES[schedule], loop_intervals=loop_intervals)
    cell = layer.cell
    runs = base_memory_rnn.schedule_runs(
        cell.write_schedule.access_pattern(T, cell.memory_size),
        cell.write_schedule.cache_pattern(T),
    )
    assert base_memory_rnn.repeated_block(runs, cell.cache_size)[1] > 2
    x = _random_input_and_weights(layer, rng)
    _assert_layer_equals_rnn_of_its_cell(layer, x)


# The DNC only: the interval loop is the two layers' shared base
# (`base_memory_rnn`); `test_interval_loop_equals_rnn_of_its_cell` runs it
# for both.
@pytest.mark.parametrize("kind", ["dnc"])
def test_interval_loop_trains_under_xla_and_round_trips(kind, rng):
    # Cached Uniform Writing: the encoding phase is 3 intervals
    # of 3 steps in one loop, whose gradient XLA must compile (TensorFlow's
    # did not while the held reads were tiled with `ops.repeat`, nor with
    # `ops.broadcast_to` when the traced batch size is unknown: 5 samples in
    # batches of 4, as `fit` traces a last, smaller batch).
    layer = _layer(
        kind, SCHEDULES["cached_uniform"], return_state=False, loop_intervals=True
    )
    model = keras.Sequential([keras.Input((T, 3)), layer])
    model.compile(keras.optimizers.Adam(1e-2), "mse", jit_compile=True)
    x = rng.normal(size=(5, T, 3)).astype("float32")
    history = model.fit(x, x, batch_size=4, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    config = layer.get_config()
    assert config["loop_intervals"] is True
    assert type(layer).from_config(config).loop_intervals is True


@pytest.mark.parametrize("kind", list(LAYERS))
def test_weights_saved_with_one_loop_setting_load_into_the_other(kind, rng, tmp_path):
    # `loop_intervals` changes how the steps run, not the weights: a model
    # trained with the interval loop (fast to compile on a GPU) can be
    # loaded for the per-interval program, and the outputs agree.
    def model(loop_intervals):
        layer = _layer(
            kind,
            SCHEDULES["uniform"],
            return_state=False,
            loop_intervals=loop_intervals,
        )
        return keras.Sequential([keras.Input((T, 3)), layer])

    looped, default = model(True), model(False)
    path = str(tmp_path / "looped.weights.h5")
    looped.save_weights(path)
    default.load_weights(path)
    x = rng.normal(size=(2, T, 3)).astype("float32")
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(default(x)),
        keras.ops.convert_to_numpy(looped(x)),
        rtol=1e-5,
        atol=1e-6,
    )


def test_loop_intervals_must_be_a_bool():
    with pytest.raises(ValueError, match="loop_intervals.*'yes'"):
        _layer("dnc", SCHEDULES["uniform"], loop_intervals="yes")
