"""The Keras arguments shared by the associative-memory cells (`BaseCell`):
dropout, recurrent dropout, regularizers, constraints and their config."""

import keras
import numpy as np
import pytest

import keras_rda

CELLS = {
    "fast_weights": lambda **kw: keras_rda.FastWeightsCell(4, **kw),
    "wei_net": lambda **kw: keras_rda.WeiNetCell(
        4, num_memories=2, router=True, update="row_col", **kw
    ),
    "layer_norm_lstm": lambda **kw: keras_rda.LayerNormLSTMCell(4, **kw),
    "highway": lambda **kw: keras_rda.RecurrentHighwayCell(4, layer_norm=True, **kw),
}

# The weights of each regularizer group, by name.
GROUPS = {
    "fast_weights": {
        "kernel": ["kernel"],
        "recurrent": ["recurrent_kernel"],
        "bias": ["bias"],
    },
    "wei_net": {
        "kernel": ["kernel", "reader_kernel"],
        "recurrent": [
            "recurrent_kernel",
            "decay_col",
            "decay_row",
            "write_col",
            "write_row",
            "cross_col",
            "cross_row",
            "router_weight",
        ],
        "bias": ["bias", "reader_bias"],
    },
    "layer_norm_lstm": {
        "kernel": ["kernel"],
        "recurrent": ["recurrent_kernel"],
        "bias": ["bias"],
    },
    "highway": {
        "kernel": ["kernel"],
        "recurrent": ["recurrent_kernel"],
        "bias": ["bias"],
    },
}


# The RWA / RDA cells (a fourth group, `initial_state`) and the parallel RDA
# cell (no recurrent weights, so no recurrent group and no recurrent dropout)
# take the same arguments through `BaseCell`.
ATTENTION_CELLS = {
    "rda": lambda **kw: keras_rda.RDACell(4, learn_initial_state=True, **kw),
    "rwa": lambda **kw: keras_rda.RWACell(4, **kw),
    "parallel_rda": lambda **kw: keras_rda.ParallelRDACell(4, **kw),
}
_RDA_GROUPS = {
    "kernel": ["kernel"],
    "recurrent": ["recurrent_kernel"],
    "bias": ["bias"],
    "initial_state": ["initial_state"],
}
ATTENTION_GROUPS = {
    "rda": _RDA_GROUPS,
    "rwa": _RDA_GROUPS,
    "parallel_rda": {"kernel": ["kernel"], "bias": ["bias"]},
}
ALL_CELLS = {**CELLS, **ATTENTION_CELLS}
ALL_GROUPS = {**GROUPS, **ATTENTION_GROUPS}


def _inputs(rng, batch=3, steps=6, features=5):
    return rng.normal(size=(batch, steps, features)).astype("float32")


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("argument", ["dropout", "recurrent_dropout"])
def test_dropout_changes_training_outputs_only(name, argument, rng):
    x = _inputs(rng)
    plain = keras.layers.RNN(CELLS[name]())
    dropped = keras.layers.RNN(CELLS[name](**{argument: 0.5, "seed": 3}))
    plain.build(x.shape)
    dropped.build(x.shape)
    dropped.set_weights(plain.get_weights())
    reference = np.asarray(plain(x))
    np.testing.assert_allclose(np.asarray(dropped(x)), reference, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(dropped(x, training=False)), reference, atol=1e-6
    )
    trained = np.asarray(dropped(x, training=True))
    assert np.all(np.isfinite(trained))
    assert np.max(np.abs(trained - reference)) > 1e-3
    # Without dropout, training and inference agree.
    np.testing.assert_allclose(np.asarray(plain(x, training=True)), reference, 1e-6)


@pytest.mark.parametrize(
    "name, group",
    [(name, group) for name in sorted(ALL_GROUPS) for group in ALL_GROUPS[name]],
)
def test_regularizer_adds_the_groups_penalty(name, group, rng):
    cell = ALL_CELLS[name](**{f"{group}_regularizer": keras.regularizers.L2(0.1)})
    layer = keras.layers.RNN(cell)
    layer(_inputs(rng))
    for weight in cell.weights:  # non-zero everywhere (some biases start at 0)
        weight.assign(rng.normal(size=weight.shape).astype("float32"))
    weights = {w.name: np.asarray(w) for w in cell.weights}
    expected = sum(0.1 * np.sum(weights[n] ** 2) for n in ALL_GROUPS[name][group])
    assert len(layer.losses) == len(ALL_GROUPS[name][group])
    assert float(sum(layer.losses)) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_constraints_hold_after_a_training_step(name, rng):
    cell = CELLS[name](
        kernel_constraint="non_neg",
        recurrent_constraint=keras.constraints.MaxNorm(0.5, axis=-1),
        bias_constraint="non_neg",
    )
    model = keras.Sequential(
        [keras.Input((None, 5)), keras.layers.RNN(cell), keras.layers.Dense(1)]
    )
    model.compile(keras.optimizers.SGD(0.5), "mse")
    model.fit(_inputs(rng, batch=8), rng.normal(size=(8, 1)), verbose=0, epochs=2)
    weights = {w.name: np.asarray(w) for w in cell.weights}
    for weight in GROUPS[name]["kernel"] + GROUPS[name]["bias"]:
        assert weights[weight].min() >= 0.0, weight
    for weight in GROUPS[name]["recurrent"]:
        value = weights[weight]
        norms = np.sqrt(np.sum(value**2, axis=-1))
        assert norms.max() <= 0.5 + 1e-5, weight


@pytest.mark.parametrize("name", sorted(CELLS))
def test_config_carries_the_arguments(name):
    cell = CELLS[name](
        kernel_regularizer="l2",
        recurrent_constraint="non_neg",
        dropout=0.25,
        recurrent_dropout=0.1,
        seed=7,
    )
    config = cell.get_config()
    again = type(cell).from_config(config)
    assert again.get_config() == config
    assert (again.dropout, again.recurrent_dropout, again.seed) == (0.25, 0.1, 7)
    assert isinstance(again.kernel_regularizer, keras.regularizers.L2)
    assert isinstance(again.recurrent_constraint, keras.constraints.NonNeg)
    assert again.bias_regularizer is None


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize(
    "argument, value", [("dropout", 1.0), ("recurrent_dropout", -0.1)]
)
def test_bad_dropout_rates(name, argument, value):
    with pytest.raises(ValueError, match=f"argument `{argument}`"):
        CELLS[name](**{argument: value})


@pytest.mark.parametrize("name", sorted(ATTENTION_CELLS))
def test_attention_cells_config_holds_exactly_their_groups(name):
    groups = ATTENTION_GROUPS[name]
    arguments = {f"{group}_constraint": "non_neg" for group in groups}
    arguments.update(kernel_regularizer="l2", dropout=0.25, seed=7)
    if "recurrent" in groups:
        arguments["recurrent_dropout"] = 0.1
    cell = ATTENTION_CELLS[name](**arguments)
    config = cell.get_config()
    for group in ("kernel", "recurrent", "bias", "initial_state"):
        for kind in ("regularizer", "constraint"):
            assert (f"{group}_{kind}" in config) == (group in groups)
    assert ("recurrent_dropout" in config) == ("recurrent" in groups)
    again = type(cell).from_config(config)
    assert again.get_config() == config
    for group in groups:
        assert isinstance(
            getattr(again, f"{group}_constraint"), keras.constraints.NonNeg
        )
    assert isinstance(again.kernel_regularizer, keras.regularizers.L2)
    assert (again.dropout, again.seed) == (0.25, 7)


@pytest.mark.parametrize(
    "argument, value",
    [
        ("recurrent_regularizer", "l2"),
        ("recurrent_constraint", "non_neg"),
        ("recurrent_dropout", 0.5),
        ("initial_state_regularizer", "l2"),
    ],
)
def test_parallel_rda_cell_takes_no_recurrent_arguments(argument, value):
    with pytest.raises(ValueError, match=argument):
        keras_rda.ParallelRDACell(4, **{argument: value})
    assert keras_rda.ParallelRDACell(4).recurrent_dropout == 0.0
