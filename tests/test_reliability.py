"""The library's reliability probes (issue 58), one case each.

Bad input to a public class gets one `ValueError` naming the argument and
the value, in the package's wording ("Received an invalid value for argument
`units`, expected a positive integer, got 0"), or Keras's own clear message,
never a backend's error from deep inside a loop; what has an obvious answer
(a batch of no samples) gets it; and faults stay where they are (a NaN in
one sample, a masked step's input, float16's range). The command line's and
the lab's probes are tests of the lab (tests/lab).

Every case below failed before the fix it names: a string taken as a
boolean, a backend's strided-slice / `IndexError` / `ZeroDivisionError` /
`SelectV2` / matmul error, inf or NaN gradients under mixed precision.
"""

import inspect
import re

import keras
import numpy as np
import pytest

import keras_rda
from tests.layers.gradients import loss_and_gradients

UNITS = 4
FEATURES = 3
STEPS = 5

# ------------------------------------------------ strings taken as booleans

# Values for the arguments without a default, by name.
_REQUIRED = {
    "units": lambda: UNITS,
    "controller": lambda: keras.layers.LSTMCell(UNITS),
    "memory_size": lambda: 4,
    "word_size": lambda: 4,
    "cache_size": lambda: 2,
}

PUBLIC_CLASSES = sorted(
    (
        getattr(keras_rda, name)
        for name in keras_rda.__all__
        if inspect.isclass(getattr(keras_rda, name))
    ),
    key=lambda cls: cls.__name__,
)


def _parameters(cls):
    return [
        p
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]


def make(cls, **kwargs):
    """An instance of a public class: its required arguments from
    `_REQUIRED`, the others their defaults or `kwargs`."""
    required = {
        p.name: _REQUIRED[p.name]()
        for p in _parameters(cls)
        if p.default is inspect.Parameter.empty
    }
    return cls(**required, **kwargs)


# Every boolean argument of every public class: those with a bool default.
BOOLEAN_ARGUMENTS = [
    (cls.__name__, p.name, p.default)
    for cls in PUBLIC_CLASSES
    for p in _parameters(cls)
    if isinstance(p.default, bool)
]


def test_the_boolean_arguments_are_found():
    found = {(name, argument) for name, argument, _ in BOOLEAN_ARGUMENTS}
    # The strings taken as booleans, and the two that refused them.
    assert {
        ("RDACell", "learn_initial_state"),
        ("RDACell", "use_bias"),
        ("RDACell", "unit_discount_bias"),
        ("ParallelRDACell", "use_bias"),
        ("RecurrentHighwayCell", "layer_norm"),
        ("LayerNormLSTMCell", "unit_forget_bias"),
        ("FeedForwardAttention", "use_bias"),
        ("FastWeightsCell", "layer_norm"),
        ("DNC", "loop_intervals"),
        ("RDA", "return_sequences"),
    } <= found
    assert len(found) > 40


@pytest.mark.parametrize(
    "name, argument",
    [pytest.param(n, a, id=f"{n}-{a}") for n, a, _ in BOOLEAN_ARGUMENTS],
)
def test_a_string_is_not_a_boolean(name, argument):
    with pytest.raises(
        ValueError,
        match=f"argument `{argument}`, expected True or False, got 'no'",
    ):
        make(getattr(keras_rda, name), **{argument: "no"})


@pytest.mark.parametrize(
    "name, argument, default",
    [pytest.param(*case, id=f"{case[0]}-{case[1]}") for case in BOOLEAN_ARGUMENTS],
)
def test_numpy_booleans_are_booleans(name, argument, default):
    instance = make(getattr(keras_rda, name), **{argument: np.bool_(default)})
    config = instance.get_config()
    if argument in config:  # a Python bool, so the config is JSON
        assert type(config[argument]) is bool
        assert config[argument] is default


# ------------------------------------------------- initializers Keras can't read

# Every `*_initializer` argument a public class names in its signature.
INITIALIZER_ARGUMENTS = [
    (cls.__name__, p.name)
    for cls in PUBLIC_CLASSES
    for p in _parameters(cls)
    if p.name.endswith("_initializer")
]


def test_the_initializer_arguments_are_found():
    found = set(INITIALIZER_ARGUMENTS)
    assert {
        ("RDACell", "kernel_initializer"),
        ("RWA", "initial_state_initializer"),
        ("WeiNetCell", "decay_initializer"),
        ("FastWeightsCell", "recurrent_initializer"),
        ("FeedForwardAttention", "bias_initializer"),
        ("DNCCell", "kernel_initializer"),
    } <= found
    assert len(found) > 25


@pytest.mark.parametrize(
    "name, argument",
    [pytest.param(n, a, id=f"{n}-{a}") for n, a in INITIALIZER_ARGUMENTS],
)
def test_an_initializer_keras_cannot_read_names_the_argument(name, argument):
    # Keras's own message names the value only; ours also names the argument,
    # at construction (not when the weights are first built).
    with pytest.raises(
        ValueError,
        match=f"argument `{argument}`, expected a Keras initializer .*got 'no_such'",
    ):
        make(getattr(keras_rda, name), **{argument: "no_such"})


# ------------------------------------------------- inputs of sequence layers

SEQUENCE_LAYERS = {
    "RDA": lambda **kw: keras_rda.RDA(UNITS, **kw),
    "RWA": lambda **kw: keras_rda.RWA(UNITS, **kw),
    "ParallelRDA": lambda **kw: keras_rda.ParallelRDA(UNITS, **kw),
    "DNC": lambda **kw: keras_rda.DNC(keras.layers.LSTMCell(UNITS), 4, 4, **kw),
    "NTM": lambda **kw: keras_rda.NTM(keras.layers.LSTMCell(UNITS), 4, 4, **kw),
}
# Each sequence layer and the pooling layer (no state, no `return_*`).
LAYERS = {**SEQUENCE_LAYERS, "FeedForwardAttention": keras_rda.FeedForwardAttention}
CELLS = {
    "RDACell": keras_rda.RDACell,
    "RWACell": keras_rda.RWACell,
    "ParallelRDACell": keras_rda.ParallelRDACell,
    "FastWeightsCell": keras_rda.FastWeightsCell,
    "WeiNetCell": keras_rda.WeiNetCell,
    "LayerNormLSTMCell": keras_rda.LayerNormLSTMCell,
    "RecurrentHighwayCell": keras_rda.RecurrentHighwayCell,
    "DNCCell": lambda units: keras_rda.DNCCell(keras.layers.LSTMCell(units), 4, 4),
    "NTMCell": lambda units: keras_rda.NTMCell(keras.layers.LSTMCell(units), 4, 4),
}


def _inputs(batch=2, steps=STEPS, features=FEATURES, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(batch, steps, features)).astype(np.float32)


@pytest.mark.parametrize("name", SEQUENCE_LAYERS)
@pytest.mark.parametrize("return_sequences", [False, True])
def test_a_sequence_of_no_steps_names_the_inputs(name, return_sequences):
    # Was a strided-slice InvalidArgumentError (TensorFlow) or an
    # IndexError (JAX) from inside the loop.
    layer = SEQUENCE_LAYERS[name](return_sequences=return_sequences)
    with pytest.raises(
        ValueError,
        match=r"argument `inputs`, expected a sequence \[batch, time, features\] "
        r"of at least one time step, got \(2, 0, 3\)",
    ):
        layer(_inputs(steps=0))


@pytest.mark.parametrize("name", SEQUENCE_LAYERS)
@pytest.mark.parametrize("masked", [False, True])
def test_a_batch_of_no_samples_gives_outputs_of_no_samples(name, masked):
    # Was Keras's LSTMCell failing in a BiasAdd on TensorFlow (the memory
    # layers' controller) and a ZeroDivisionError in parallel_scan on JAX.
    layer = SEQUENCE_LAYERS[name](return_sequences=True, return_state=True)
    one = layer(_inputs(batch=1))
    kwargs = {"mask": np.ones((0, STEPS), bool)} if masked else {}
    none = layer(_inputs(batch=0), **kwargs)
    assert len(none) == len(one)
    for empty, full in zip(none, one):
        assert tuple(empty.shape) == (0, *full.shape[1:])
        assert keras.backend.standardize_dtype(empty.dtype) == (
            keras.backend.standardize_dtype(full.dtype)
        )


@pytest.mark.parametrize("name", LAYERS)
@pytest.mark.parametrize("mask_shape", [(2, STEPS - 1), (3, STEPS), (2, STEPS, 1)])
def test_a_mask_of_another_shape_names_the_mask(name, mask_shape):
    # Was "... must be broadcastable [Op:SelectV2]" or a strided slice.
    layer = LAYERS[name]()
    with pytest.raises(
        ValueError,
        match=r"argument `mask`, expected a mask of shape \[batch, time\] = "
        rf"\(2, {STEPS}\).*got shape " + re.escape(str(mask_shape)),
    ):
        layer(_inputs(), mask=np.ones(mask_shape, bool))


@pytest.mark.parametrize("name", LAYERS)
def test_another_feature_size_after_build_gets_kerass_message(name):
    # Was a matmul error from the backend (the layers set no input_spec).
    layer = LAYERS[name]()
    layer(_inputs())
    with pytest.raises(
        ValueError,
        match="expected axis -1 of input shape to have value 3, but received "
        r"input with shape \(2, 5, 6\)",
    ):
        layer(_inputs(features=6))


@pytest.mark.parametrize("name", CELLS)
def test_a_cell_in_keras_rnn_on_another_feature_size_gets_kerass_message(name):
    layer = keras.layers.RNN(CELLS[name](UNITS))
    layer(_inputs())
    with pytest.raises(
        ValueError, match="expected axis -1 of input shape to have value 3"
    ):
        layer(_inputs(features=6))


@pytest.mark.parametrize("name", SEQUENCE_LAYERS)
@pytest.mark.parametrize("case", ["one too few", "another size", "another batch"])
def test_an_initial_state_that_does_not_fit_names_it(name, case):
    # Was a backend's matmul or SelectV2 error, or Python's "not enough
    # values to unpack" / "combine_summaries() missing 2 required
    # positional arguments" from inside the layer.
    layer = SEQUENCE_LAYERS[name]()
    sizes = layer.cell.state_size
    states = [np.zeros((2, size), np.float32) for size in sizes]
    if case == "one too few":
        states = states[:-1]
    elif case == "another size":
        states[-1] = np.zeros((2, sizes[-1] + 1), np.float32)
    else:
        states = [np.zeros((3, size), np.float32) for size in sizes]
    with pytest.raises(
        ValueError,
        match=rf"argument `initial_state` of {name}, expected {len(sizes)} tensor",
    ):
        layer(_inputs(), initial_state=states)


@pytest.mark.parametrize("name", CELLS)
def test_a_cell_in_keras_rnn_names_states_that_do_not_fit(name):
    cell = CELLS[name](UNITS)
    sizes = cell.state_size
    states = [np.zeros((2, size + 1), np.float32) for size in sizes]
    with pytest.raises(
        ValueError,
        match=rf"argument `states` of {type(cell).__name__}, expected {len(sizes)} ",
    ):
        keras.layers.RNN(cell)(_inputs(), initial_state=states)


@pytest.mark.parametrize("name", SEQUENCE_LAYERS)
def test_an_initial_state_that_fits_goes_on_from_it(name):
    layer = SEQUENCE_LAYERS[name](return_state=True)
    x = _inputs(steps=2 * STEPS)
    whole, *_ = layer(x)
    _, *state = layer(x[:, :STEPS])
    second, *_ = layer(x[:, STEPS:], initial_state=state)
    np.testing.assert_allclose(second, whole, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- non-finite

# Every unit, as a sequence layer or in keras.layers.RNN, returning every
# step's output.
EVERY_UNIT = {
    **{
        name: (lambda make=make: make(return_sequences=True))
        for name, make in SEQUENCE_LAYERS.items()
    },
    **{
        f"RNN({name})": (
            lambda make=make: keras.layers.RNN(make(UNITS), return_sequences=True)
        )
        for name, make in CELLS.items()
    },
}


@pytest.mark.parametrize("name", EVERY_UNIT)
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_non_finite_input_stays_in_its_sample(name, value):
    # The "Numerics" note of every unit's docstring.
    layer = EVERY_UNIT[name]()
    x = _inputs()
    clean = np.asarray(layer(x))
    x[0, 2, 1] = value
    outputs = np.asarray(layer(x))
    np.testing.assert_array_equal(outputs[1], clean[1])  # the other sample
    np.testing.assert_array_equal(outputs[0, :2], clean[0, :2])  # earlier steps


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_non_finite_input_stays_in_its_sample_when_pooled(value):
    layer = keras_rda.FeedForwardAttention()
    x = _inputs()
    clean = np.asarray(layer(x))
    x[0, 2, 1] = value
    outputs = np.asarray(layer(x))
    np.testing.assert_array_equal(outputs[1], clean[1])
    assert not np.isfinite(outputs[0]).all()


@pytest.mark.parametrize("name", LAYERS)
def test_a_masked_steps_nan_changes_nothing(name):
    # ParallelRDA and FeedForwardAttention read it (0 * NaN); now no layer
    # does, and the gradients stay finite too.
    layer = LAYERS[name]()
    x = _inputs()
    mask = np.ones((2, STEPS), bool)
    mask[0, 3:] = False
    clean = np.asarray(layer(x, mask=mask))
    x[0, 3:] = np.nan
    outputs, _, grads = loss_and_gradients(
        layer, x, lambda y: keras.ops.sum(y), mask=mask
    )
    np.testing.assert_array_equal(outputs[0], clean)
    for grad in grads:
        assert np.isfinite(grad).all()


# ------------------------------------------------------------ mixed precision


@pytest.mark.parametrize("name", ["RDA", "RWA", "ParallelRDA"])
def test_mixed_precision_gradients_are_finite_for_large_inputs(name):
    # Inputs of 1e4 under mixed_float16: the gradients of the attention
    # logits (a sum over every later step) overflowed float16, inf for the
    # RDA and NaN for ParallelRDA already at T = 1 (the case is
    # T = 2,000). The head is float32, as Keras's mixed-precision guide
    # says for a model's last layer.
    keras.config.set_dtype_policy("mixed_float16")
    steps = 20
    model = keras.Sequential(
        [
            keras.Input((steps, FEATURES)),
            SEQUENCE_LAYERS[name](),
            keras.layers.Dense(1, dtype="float32"),
        ]
    )
    x = 1e4 * _inputs(batch=4, steps=steps)
    # A tensor: PyTorch's `outputs - ndarray` goes through NumPy, off the graph.
    y = keras.ops.convert_to_tensor(
        np.random.default_rng(1).normal(size=(4, 1)).astype(np.float32)
    )

    def loss_fn(outputs):
        return keras.ops.mean(keras.ops.square(outputs - y))

    _, loss, grads = loss_and_gradients(model, x, loss_fn, training=True)
    assert np.isfinite(loss)
    for weight, grad in zip(model.trainable_weights, grads):
        assert np.isfinite(grad).all(), weight.path


# ---------------------------------------------- write schedules and lengths


def _memory_layer(layer_class, schedule, **kwargs):
    return layer_class(
        keras.layers.LSTMCell(UNITS), 4, 4, write_schedule=schedule, **kwargs
    )


# (schedule, input steps, what the message says): the four cases
# (a memory that is never written, or written 50 times into 4 slots), and
# their relatives.
LENGTH_MISMATCHES = {
    "uw-length-100-on-10": (
        lambda: keras_rda.UniformWriting(sequence_length=100),
        10,
        r"expected sequences of 100 steps, the length write_schedule="
        r"UniformWriting\(.*sequence_length=100.*\) is made for, got inputs of "
        r"10 steps",
    ),
    "cuw-50-on-10": (
        lambda: keras_rda.CachedUniformWriting(50),
        10,
        r"expected inputs of at least 50 steps \(its first access\) for "
        r"write_schedule=CachedUniformWriting\(cache_size=50.*got inputs of 10 "
        r"steps: the memory would never be written or read",
    ),
    "uw-interval-50-on-10": (
        lambda: keras_rda.UniformWriting(interval=50),
        10,
        r"expected inputs of at least 50 steps \(its first access\) for "
        r"write_schedule=UniformWriting\(interval=50.*got inputs of 10 steps",
    ),
    "uw-length-10-on-100": (
        lambda: keras_rda.UniformWriting(sequence_length=10),
        100,
        r"expected sequences of 10 steps, .*got inputs of 100 steps: it would "
        r"access memory on the wrong steps",
    ),
    "uw-encoding-10-on-5": (
        lambda: keras_rda.UniformWriting(sequence_length=10, encoding_steps=10),
        5,
        r"expected an encoding part of 10 steps .*got inputs of 5 steps",
    ),
    "random-length-10-on-20": (
        lambda: keras_rda.RandomWriting(sequence_length=10, seed=0),
        20,
        r"expected sequences of 10 steps, .*RandomWriting.*got inputs of 20 steps",
    ),
    "cuw-encoding-governs-no-write": (
        lambda: keras_rda.CachedUniformWriting(6, encoding_steps=6),
        4,
        r"expected inputs of at least 6 steps .*got inputs of 4 steps",
    ),
}


@pytest.mark.parametrize("layer_class", [keras_rda.DNC, keras_rda.NTM])
@pytest.mark.parametrize("case", LENGTH_MISMATCHES)
def test_a_schedule_made_for_another_length_names_both(layer_class, case):
    make_schedule, steps, message = LENGTH_MISMATCHES[case]
    layer = _memory_layer(layer_class, make_schedule())
    # Called on a batch ...
    with pytest.raises(ValueError, match="argument `inputs`, " + message):
        layer(_inputs(steps=steps))
    # ... and as soon as a model declares the length.
    with pytest.raises(ValueError, match=message):
        keras.Sequential(
            [
                keras.Input((steps, FEATURES)),
                _memory_layer(layer_class, make_schedule()),
            ]
        )


@pytest.mark.parametrize(
    "schedule, steps",
    [
        (lambda: keras_rda.UniformWriting(sequence_length=10), 10),
        (lambda: keras_rda.UniformWriting(sequence_length=10, encoding_steps=10), 30),
        (lambda: keras_rda.UniformWriting(interval=5), 12),
        (lambda: keras_rda.CachedUniformWriting(5), 5),
        (lambda: keras_rda.RandomWriting(sequence_length=10, seed=0), 10),
        (lambda: "regular", 1),
    ],
)
def test_a_schedule_that_fits_the_length_runs(schedule, steps):
    layer = _memory_layer(keras_rda.DNC, schedule())
    assert tuple(layer(_inputs(steps=steps)).shape) == (2, UNITS)


def test_a_call_that_goes_on_from_a_state_is_not_checked():
    # Truncated BPTT: a 12-step schedule over two 6-step segments.
    layer = _memory_layer(
        keras_rda.DNC, keras_rda.UniformWriting(sequence_length=12), return_state=True
    )
    _, *state = layer(_inputs(steps=12))
    layer(_inputs(steps=6), initial_state=state)


@pytest.mark.parametrize("layer_class", [keras_rda.DNC, keras_rda.NTM])
def test_an_unknown_length_refuses_a_schedule_made_for_a_length(layer_class):
    # The dynamic case, decided: a schedule whose steps depend on the length
    # cannot be checked against a None time axis, so it is refused ...
    with pytest.raises(
        ValueError,
        match=r"argument `inputs`, expected sequences of a known length for "
        r"write_schedule=UniformWriting\(.*sequence_length=10.*\), which is made "
        r"for 10 steps, got a time axis of unknown length \(None\)",
    ):
        schedule = keras_rda.UniformWriting(sequence_length=10)
        keras.Sequential(
            [keras.Input((None, FEATURES)), _memory_layer(layer_class, schedule)]
        )


@pytest.mark.parametrize(
    "schedule",
    [
        lambda: keras_rda.UniformWriting(interval=3),
        lambda: keras_rda.UniformWriting(sequence_length=6, encoding_steps=6),
        lambda: keras_rda.CachedUniformWriting(3),
        lambda: keras_rda.RandomWriting(rate=0.5, encoding_steps=6, seed=0),
    ],
)
def test_an_unknown_length_runs_a_schedule_made_for_any_length(schedule):
    # ... and one defined for any length runs as made, as on a known length.
    schedule = schedule()
    dynamic = keras.Sequential(
        [keras.Input((None, FEATURES)), _memory_layer(keras_rda.DNC, schedule)]
    )
    static = keras.Sequential(
        [keras.Input((8, FEATURES)), _memory_layer(keras_rda.DNC, schedule)]
    )
    static.set_weights(dynamic.get_weights())
    x = _inputs(steps=8)
    run = dynamic
    if keras.backend.backend() == "tensorflow":
        # A trace whose time axis is None (JAX and PyTorch always trace
        # with the batch's length, which is then checked).
        import tensorflow as tf

        run = tf.function(
            dynamic, input_signature=[tf.TensorSpec((None, None, FEATURES))]
        )
        assert run.get_concrete_function().outputs[0].shape[0] is None
    np.testing.assert_allclose(
        np.asarray(run(x)), np.asarray(static(x)), rtol=1e-5, atol=1e-6
    )
