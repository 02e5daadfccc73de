"""One contract for every public cell and layer, checked the same way.

For each unit: its config round trip (`get_config` / `from_config`, and a
`.keras` save and load giving identical outputs), its weight count (from
the documented weight layout), masking (a padded, masked sequence gives
the output of the unpadded one), mixed precision (finite outputs; float32
running sums where the unit promises them; with dropout and recurrent
dropout while training, finite outputs in the compute dtype and finite
gradients), training (a fit step gives finite gradients for every trainable
weight, and a small gradient step lowers the loss), bad arguments (a
`ValueError` naming the argument), dropout (fresh masks at
every call: two training calls differ, and a third with another batch size
works) and `reset_state` of a stateful RNN (it then gives what a fresh,
non-stateful copy gives).

Cells run inside `keras.layers.RNN`, as a user would run them. A known
defect would be marked `xfail(strict=True)` in `XFAIL`, so that the mark
must go when it is fixed.
"""

import dataclasses

import keras
import numpy as np
import pytest

import keras_rda
from tests.layers.gradients import loss_and_gradients

INPUT_DIM = 3
UNITS = 4
STEPS = 6
BATCH = 2


def _lstm(**kwargs):
    return keras.layers.LSTMCell(UNITS, **kwargs)


def _memory(cell_class, schedule, kwargs):
    """`make(**dropout)` of a memory cell with an LSTM(4) controller."""
    kwargs = {"memory_size": 4, "word_size": 3, **kwargs}
    return lambda **kw: cell_class(_lstm(**kw), write_schedule=schedule, **kwargs)


def _dnc(schedule="regular", **kwargs):
    return _memory(keras_rda.DNCCell, schedule, kwargs)


def _ntm(schedule="regular", **kwargs):
    return _memory(keras_rda.NTMCell, schedule, kwargs)


def _memory_layer(layer_class, **kwargs):
    """`make(**kw)` of a DNC/NTM layer: dropout goes to its LSTM(4)
    controller, the other arguments (`stateful`, ...) to the layer."""

    def make(**kw):
        dropout = {k: kw.pop(k) for k in ("dropout", "recurrent_dropout") if k in kw}
        return layer_class(_lstm(**dropout), memory_size=4, word_size=3, **kwargs, **kw)

    return make


@dataclasses.dataclass
class Unit:
    """A public unit and what its contract says.

    Attributes:
        make: `make(**dropout_kwargs)` -> a cell or a layer.
        kind: "cell" (run in `keras.layers.RNN`), "layer" (a sequence
            layer like `keras.layers.LSTM`) or "pooling" (sequence -> vector).
        weights: `(number of trainable weights, number of parameters)` for
            input dim 3 and 4 units, from the documented weight layout.
        bad: `(constructor, argument)`: building with a bad value of
            `argument` must raise a `ValueError` naming it.
        dropout: the dropout arguments of `make`, or None (no dropout).
        float32_sums: whether the unit promises float32 running sums under
            mixed precision.
    """

    make: object
    kind: str
    weights: tuple
    bad: tuple
    dropout: dict = None
    float32_sums: bool = False


# Parameters of a Keras LSTMCell(4) controller reading x (3) and one read
# vector (3): kernel 6 x 16, recurrent 4 x 16, bias 16.
_CONTROLLER = 6 * 16 + 4 * 16 + 16
# DNC interface, one write head, R = 1, W = 3 (Graves et al. 2016, Methods):
# R W + 3 W + 5 R + 3 = 20; NTM (Graves et al. 2014, 3.3) per head: key W,
# beta, g, shift 2 s + 1 = 3, gamma: W + 6 = 9, one read and one write
# head plus erase and add vectors: 2 * 9 + 2 W = 24. Output projection of
# [o_t, r_t] (4 + 3) to 4.
_DNC = (7, _CONTROLLER + (4 * 20 + 20) + (7 * 4 + 4))
_NTM = (7, _CONTROLLER + (4 * 24 + 24) + (7 * 4 + 4))
# Cached uniform writing adds W, U, V, v of eq. 9-10 (units 4, read 3).
_CUW = (11, _DNC[1] + 4 * 4 + 4 * 4 + 3 * 4 + 4)

UNITS_UNDER_TEST = {
    # RWA: kernel [3, 3u] (u, g, a), recurrent [u, 2u] (g, a), bias [3u], s0.
    "RWACell": Unit(
        lambda **kw: keras_rda.RWACell(UNITS, **kw),
        "cell",
        (4, 3 * 12 + 4 * 8 + 12 + 4),
        (lambda: keras_rda.RWACell(0), "units"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
        float32_sums=True,
    ),
    # RDA: kernel [3, 4u], recurrent [u, 3u], bias [4u].
    "RDACell": Unit(
        lambda **kw: keras_rda.RDACell(UNITS, **kw),
        "cell",
        (3, 3 * 16 + 4 * 12 + 16),
        (
            lambda: keras_rda.RDACell(UNITS, attention_activation="cube"),
            "attention_activation",
        ),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
        float32_sums=True,
    ),
    # C [3, u], W [u, u], b, layer-norm gain and bias.
    "FastWeightsCell": Unit(
        lambda **kw: keras_rda.FastWeightsCell(UNITS, **kw),
        "cell",
        (5, 3 * 4 + 4 * 4 + 4 + 4 + 4),
        (lambda: keras_rda.FastWeightsCell(UNITS, decay=1.5), "decay"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    # W_C [3 + 2u, u], b_C, W_D [5u, u], b_D, LN gain and bias, and the
    # row x column factors of W_A, W_h, W_AH (2 x [K, u] each), router w [K].
    "WeiNetCell": Unit(
        lambda **kw: keras_rda.WeiNetCell(
            UNITS, num_memories=2, update="row_col", router=True, **kw
        ),
        "cell",
        (14, 3 * 4 + 8 * 4 + 4 + 20 * 4 + 4 + 4 + 4 + 6 * 2 * 4 + 2),
        (lambda: keras_rda.WeiNetCell(UNITS, update="diagonal"), "update"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    # kernel [3, 4u], recurrent [u, 4u], bias [4u], gains [4u] x 2, cell LN.
    "LayerNormLSTMCell": Unit(
        lambda **kw: keras_rda.LayerNormLSTMCell(UNITS, **kw),
        "cell",
        (7, 3 * 16 + 4 * 16 + 16 + 16 + 16 + 4 + 4),
        (lambda: keras_rda.LayerNormLSTMCell(-1), "units"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    # kernel [3, 2u], recurrent [L, u, 2u], bias [L, 2u], gains [L, 2, u].
    "RecurrentHighwayCell": Unit(
        lambda **kw: keras_rda.RecurrentHighwayCell(UNITS, layer_norm=True, **kw),
        "cell",
        (4, 3 * 8 + 2 * 4 * 8 + 2 * 8 + 2 * 2 * 4),
        (lambda: keras_rda.RecurrentHighwayCell(UNITS, depth=0), "depth"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    "DNCCell-regular": Unit(
        _dnc(),
        "cell",
        _DNC,
        (_dnc(num_read_heads=0), "num_read_heads"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    "DNCCell-uniform": Unit(
        _dnc(keras_rda.UniformWriting(interval=2)),
        "cell",
        _DNC,
        (_dnc(keras_rda.UniformWriting(interval=2), memory_size=0), "memory_size"),
    ),
    "DNCCell-cached_uniform": Unit(
        _dnc(keras_rda.CachedUniformWriting(2)),
        "cell",
        _CUW,
        (lambda: _dnc(keras_rda.CachedUniformWriting(0))(), "cache_size"),
    ),
    "DNCCell-random": Unit(
        _dnc(keras_rda.RandomWriting(rate=0.5, sequence_length=STEPS, seed=1)),
        "cell",
        _DNC,
        (_dnc("sometimes"), "write_schedule"),
    ),
    "NTMCell-regular": Unit(
        _ntm(),
        "cell",
        _NTM,
        (_ntm(shift_range=-1), "shift_range"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    "NTMCell-uniform": Unit(
        _ntm(keras_rda.UniformWriting(interval=2)),
        "cell",
        _NTM,
        (_ntm(word_size=0), "word_size"),
    ),
    "RWA": Unit(
        lambda **kw: keras_rda.RWA(UNITS, **kw),
        "layer",
        (4, 3 * 12 + 4 * 8 + 12 + 4),
        (lambda: keras_rda.RWA(0), "units"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
        float32_sums=True,
    ),
    "RDA": Unit(
        lambda **kw: keras_rda.RDA(UNITS, **kw),
        "layer",
        (3, 3 * 16 + 4 * 12 + 16),
        (lambda: keras_rda.RDA(UNITS, variant="cube-tanh"), "variant"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
        float32_sums=True,
    ),
    # Score a(h) = h w + b: w [3, 1], b [1].
    # Parallel RDA: kernel [3, 4u] (u, g, a, gamma), bias [4u]; no recurrent
    # kernel (the gates read x_t only).
    "ParallelRDACell": Unit(
        lambda **kw: keras_rda.ParallelRDACell(UNITS, **kw),
        "cell",
        (2, 3 * 16 + 16),
        (
            lambda: keras_rda.ParallelRDACell(UNITS, attention_activation="cube"),
            "attention_activation",
        ),
        {"dropout": 0.5},
        float32_sums=True,
    ),
    "ParallelRDA": Unit(
        lambda **kw: keras_rda.ParallelRDA(UNITS, **kw),
        "layer",
        (2, 3 * 16 + 16),
        (lambda: keras_rda.ParallelRDA(0), "units"),
        {"dropout": 0.5},
        float32_sums=True,
    ),
    # The memory layers hold their cell's weights.
    "DNC-uniform": Unit(
        _memory_layer(
            keras_rda.DNC, write_schedule=keras_rda.UniformWriting(interval=2)
        ),
        "layer",
        _DNC,
        (lambda: keras_rda.DNC(_lstm(), memory_size=0, word_size=3), "memory_size"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    "NTM-regular": Unit(
        _memory_layer(keras_rda.NTM),
        "layer",
        _NTM,
        (lambda: keras_rda.NTM(_lstm(), memory_size=4, word_size=0), "word_size"),
        {"dropout": 0.5, "recurrent_dropout": 0.5},
    ),
    "FeedForwardAttention": Unit(
        lambda **kw: keras_rda.FeedForwardAttention(**kw),
        "pooling",
        (2, 3 + 1),
        (
            lambda: keras_rda.FeedForwardAttention(score_activation="cube"),
            "score_activation",
        ),
    ),
}

# Known defects, `(check, unit name) -> reason`, each an `xfail(strict=True)`
# so that the mark must go when the defect is fixed. None at present.
XFAIL = {}

# Write schedules whose cells run the same conditional step as the regular
# and Cached Uniform Writing cells, at other steps: checked in the default
# TensorFlow run, and on the other backends in their slow runs (each check
# of a memory cell takes 5-15 s there).
SLOW_ELSEWHERE = {"DNCCell-uniform", "DNCCell-random"}

# The dtype and dropout checks of the memory units, which run the same
# BaseMemoryCell code for dtypes and dropout masks: on the other backends
# the DNC cell (the DNC's addressing) and the NTM layer (the memory layers'
# own loop) carry them; the TensorFlow run checks every unit. Called
# eagerly, each such check of a memory unit takes 10-50 s on JAX.
DTYPE_AND_DROPOUT_CHECKS = {
    "mixed_precision",
    "mixed_precision_dropout",
    "dropout",
    "reset_state",
}
CHECKED_ON_TENSORFLOW_ONLY = {
    "DNC-uniform",
    "DNCCell-cached_uniform",
    "NTMCell-regular",
    "NTMCell-uniform",
}


def _slow_elsewhere(check, name):
    if keras.backend.backend() == "tensorflow":
        return False
    return name in SLOW_ELSEWHERE or (
        check in DTYPE_AND_DROPOUT_CHECKS and name in CHECKED_ON_TENSORFLOW_ONLY
    )


def _params(check, select=lambda unit: True):
    params = []
    for name, unit in UNITS_UNDER_TEST.items():
        if not select(unit):
            continue
        marks = []
        if (check, name) in XFAIL:
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[check, name])]
        if _slow_elsewhere(check, name):
            marks.append(pytest.mark.slow(reason="checked in the TensorFlow run"))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def _sequence_layer(name, **kwargs):
    """The unit as a sequence layer: cells inside `keras.layers.RNN`.

    `kwargs` are split between the unit (its dropout arguments) and the
    RNN layer (`stateful`, `return_state`, ...).
    """
    unit = UNITS_UNDER_TEST[name]
    dropout = {
        k: kwargs.pop(k) for k in ("dropout", "recurrent_dropout") if k in kwargs
    }
    if unit.kind == "cell":
        return keras.layers.RNN(unit.make(**dropout), **kwargs)
    return unit.make(**dropout, **kwargs)


def _model(name, **kwargs):
    inputs = keras.Input((None, INPUT_DIM), batch_size=kwargs.pop("batch_size", None))
    hidden = (
        keras.layers.Masking(0.0)(inputs) if kwargs.pop("masked", False) else inputs
    )
    outputs = keras.layers.Dense(1)(_sequence_layer(name, **kwargs)(hidden))
    return keras.Model(inputs, outputs)


def _inputs(rng, batch=BATCH, steps=STEPS, scale=1.0):
    return (scale * rng.normal(size=(batch, steps, INPUT_DIM))).astype("float32")


def _cell_of(layer):
    return getattr(layer, "cell", layer)


# --------------------------------------------------------------------- config
@pytest.mark.parametrize("name", _params("config"))
def test_config_round_trip(name, rng, tmp_path):
    unit = UNITS_UNDER_TEST[name].make()
    config = unit.get_config()
    again = type(unit).from_config(config)
    assert again.get_config() == config
    assert keras.saving.get_registered_name(type(unit)).startswith("keras_rda>")

    model = _model(name)
    x = _inputs(rng)
    expected = np.asarray(model(x))
    path = tmp_path / "unit.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(np.asarray(loaded(x)), expected)


# -------------------------------------------------------------------- weights
@pytest.mark.parametrize("name", _params("weights"))
def test_weight_counts(name, rng):
    layer = _sequence_layer(name)
    layer(_inputs(rng))
    count, parameters = UNITS_UNDER_TEST[name].weights
    assert len(layer.trainable_weights) == count
    assert sum(int(np.prod(w.shape)) for w in layer.trainable_weights) == parameters
    assert not layer.non_trainable_weights


def _initial_pieces(layer):
    """`(weight index, piece)` for each trainable weight and, where its last
    axis holds several `UNITS`-wide gate blocks, for each block."""
    for index, weight in enumerate(layer.trainable_weights):
        value = np.asarray(weight, np.float64)
        yield index, value
        if value.shape and value.shape[-1] > UNITS and value.shape[-1] % UNITS == 0:
            for block in np.split(value, value.shape[-1] // UNITS, axis=-1):
                yield index, block


@pytest.mark.parametrize("name", _params("independent_weights"))
def test_weights_start_independent(name, rng):
    """No two weights, and no two gate blocks of one weight, start equal or
    proportional (a Keras random initializer returns the same values on
    every call, so one argument serving several weights must be copied).
    Compared in flat order over the shorter one's length, where neither is
    constant there (zero biases, unit gains and the like are left out)."""
    layer = _sequence_layer(name)
    layer(_inputs(rng))
    pieces = list(_initial_pieces(layer))
    for i, (weight_a, a) in enumerate(pieces):
        for weight_b, b in pieces[i + 1 :]:
            if weight_a == weight_b and a.shape != b.shape:
                continue  # a weight and one of its own blocks
            n = min(a.size, b.size)
            a_head, b_head = a.reshape(-1)[:n], b.reshape(-1)[:n]
            if n < 4 or a_head.std() == 0 or b_head.std() == 0:
                continue
            correlation = np.corrcoef(a_head, b_head)[0, 1]
            assert abs(correlation) < 0.999, (
                f"{layer.trainable_weights[weight_a].path} and "
                f"{layer.trainable_weights[weight_b].path} start proportional"
            )


# -------------------------------------------------------------------- masking
@pytest.mark.parametrize("name", _params("masking"))
def test_masked_padding_is_ignored(name, rng):
    """The second sequence is 4 steps, zero-padded to 6 and masked."""
    model = _model(name, masked=True)
    x = _inputs(rng)
    x[1, 4:] = 0.0
    padded = np.asarray(model(x))
    alone = np.asarray(model(x[1:, :4]))
    np.testing.assert_allclose(padded[1:], alone, rtol=1e-5, atol=1e-6)
    # And the padding is not ignored without the mask.
    unmasked = keras.Model(
        model.inputs, model.layers[-1](model.layers[-2](model.inputs[0]))
    )
    assert not np.allclose(np.asarray(unmasked(x))[1:], alone, atol=1e-6)


# ----------------------------------------------------------- mixed precision
@pytest.mark.parametrize("name", _params("mixed_precision"))
def test_mixed_precision(name, rng):
    keras.config.set_dtype_policy("mixed_float16")
    layer = _sequence_layer(name)
    y = layer(_inputs(rng, steps=60, scale=10.0))
    assert keras.backend.standardize_dtype(y.dtype) == "float16"
    assert np.all(np.isfinite(np.asarray(y, np.float32)))
    for weight in layer.trainable_weights:
        assert keras.backend.standardize_dtype(weight.dtype) == "float32"
    if UNITS_UNDER_TEST[name].float32_sums:
        assert _cell_of(layer).accumulation_dtype == "float32"


@pytest.mark.parametrize(
    "name", _params("mixed_precision_dropout", lambda unit: unit.dropout)
)
def test_mixed_precision_with_dropout_while_training(name, rng):
    """Mixed precision x input dropout x recurrent dropout x training, as
    Keras's own RNN tests cross them: `keras.layers.RNN` makes the dropout
    masks from the step input and the state in the compute dtype (float16),
    and units that compute in float32 must read them there. The outputs come
    in the compute dtype, finite, with a finite gradient for every weight
    (compiled on JAX, whose eager gradients compile op by op)."""
    keras.config.set_dtype_policy("mixed_float16")
    inputs = keras.Input((None, INPUT_DIM))
    layer = _sequence_layer(name, **UNITS_UNDER_TEST[name].dropout)
    model = keras.Model(inputs, layer(inputs))

    def loss_fn(outputs):
        compute_dtype = keras.config.dtype_policy().compute_dtype
        assert keras.backend.standardize_dtype(outputs.dtype) == compute_dtype
        return keras.ops.mean(keras.ops.square(keras.ops.cast(outputs, "float32")))

    (outputs,), _, grads = loss_and_gradients(
        model,
        _inputs(rng),
        loss_fn,
        jit=keras.backend.backend() == "jax",
        training=True,
    )
    assert np.all(np.isfinite(outputs))
    for weight, grad in zip(model.trainable_weights, grads):
        assert np.all(np.isfinite(grad)), weight.path


# ------------------------------------------------------------------- training
@pytest.mark.parametrize("name", _params("training"))
def test_training_step(name, rng):
    model = _model(name)
    x, y = _inputs(rng, batch=8), rng.normal(size=(8, 1)).astype("float32")

    def loss_fn(outputs):
        return keras.ops.mean(keras.losses.mean_squared_error(y, outputs))

    _, loss, grads = loss_and_gradients(model, x, loss_fn, training=True)
    grads = grads[:-1]  # the weights' (the last is the inputs')
    assert len(grads) == len(model.trainable_weights)
    for weight, grad in zip(model.trainable_weights, grads):
        assert np.all(np.isfinite(grad)), weight.path
    # A short step down the gradient (length 1e-3) lowers the loss.
    norm = np.sqrt(sum(np.sum(np.square(np.asarray(g))) for g in grads))
    for weight, grad in zip(model.trainable_weights, grads):
        weight.assign(weight - (1e-3 / norm) * grad)
    after = keras.losses.mean_squared_error(y, model(x, training=True))
    assert float(np.mean(np.asarray(after))) < loss


# -------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("name", _params("bad_arguments"))
def test_bad_argument_names_the_argument(name, rng):
    make, argument = UNITS_UNDER_TEST[name].bad
    with pytest.raises(ValueError, match=f"argument `{argument}`"):
        unit = make()
        # Some arguments are checked against the input (at build).
        _cell_of(keras.layers.RNN(unit) if hasattr(unit, "state_size") else unit)(
            _inputs(rng)
        )


# -------------------------------------------------------------------- dropout
@pytest.mark.parametrize("name", _params("dropout", lambda unit: unit.dropout))
def test_dropout_masks_are_fresh_at_every_call(name, rng):
    layer = _sequence_layer(name, **UNITS_UNDER_TEST[name].dropout)
    x = _inputs(rng)
    first = np.asarray(layer(x, training=True))
    second = np.asarray(layer(x, training=True))
    assert not np.allclose(first, second)
    np.testing.assert_allclose(
        np.asarray(layer(x, training=False)), np.asarray(layer(x)), rtol=1e-6
    )
    third = np.asarray(layer(_inputs(rng, batch=BATCH + 1), training=True))
    assert third.shape[0] == BATCH + 1 and np.all(np.isfinite(third))


# ---------------------------------------------------------------- reset_state
@pytest.mark.parametrize(
    "name", _params("reset_state", lambda unit: unit.kind != "pooling")
)
def test_reset_state_returns_to_the_initial_state(name, rng):
    # Behaviour, not representation: after `reset_state()` the layer gives
    # what a fresh, non-stateful copy with the same weights gives.
    layer = _sequence_layer(name, stateful=True)
    first, second = _inputs(rng), _inputs(rng)
    layer(first)
    fresh = _sequence_layer(name)
    fresh(second)
    fresh.set_weights(layer.get_weights())
    from_start = np.asarray(fresh(second))
    carried = np.asarray(layer(second))
    assert not np.allclose(carried, from_start, atol=1e-5)  # the state moved
    layer.reset_state()
    np.testing.assert_allclose(np.asarray(layer(second)), from_start, atol=1e-5)


@pytest.mark.parametrize(
    "name", _params("reset_state", lambda unit: unit.kind != "pooling")
)
def test_initial_states_are_distinct_tensors(name):
    # A stateful RNN makes a variable of each initial state, and on PyTorch a
    # variable shares its initial tensor's storage: one tensor given for two
    # states ties the two variables together (assigning one assigns both).
    layer = _sequence_layer(name)
    layer.build((BATCH, None, INPUT_DIM))
    states = keras.tree.flatten(_cell_of(layer).get_initial_state(batch_size=BATCH))
    assert len({id(state) for state in states}) == len(states)
