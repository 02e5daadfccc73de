"""WeiNetCell against a NumPy reference of the WeiNet paper's eq. 2-7."""

import keras
import numpy as np
import pytest

from keras_rda.cells.wei_net_cell import WeiNetCell
from tests.cells import associative_reference as ref
from tests.helpers import perturb_weights

UNITS, INPUT_DIM, BATCH = 4, 3, 2


def random_states(rng, cell):
    h = np.tanh(rng.normal(size=(BATCH, UNITS)))
    e = rng.normal(size=(BATCH, UNITS))
    A = rng.normal(size=(BATCH, cell.num_memories, UNITS, UNITS))
    a = rng.dirichlet(np.ones(cell.num_memories), size=BATCH)
    return h, e, A, a


@pytest.mark.parametrize(
    "update,memories,router",
    [
        ("elementwise", 1, False),
        ("row_col", 1, False),
        ("gated", 1, False),
        ("elementwise", 3, True),
        ("row_col", 2, True),
        ("gated", 2, False),
    ],
)
def test_one_step_matches_numpy(update, memories, router, rng):
    cell = WeiNetCell(UNITS, num_memories=memories, update=update, router=router)
    cell.build((None, INPUT_DIM))
    perturb_weights(cell, rng)
    x = rng.normal(size=(BATCH, INPUT_DIM))
    h, e, A, a = random_states(rng, cell)
    # The router state holds a - 1/K (zero is the initial state).
    states = [h, e, A.reshape(BATCH, -1)] + ([a - 1 / memories] if router else [])
    out, new = cell(x.astype("float32"), [s.astype("float32") for s in states])
    w = ref.weights_by_name(cell)
    h_ref, e_ref, A_ref, a_ref = ref.weinet_step(
        x, h, e, A, a, w, update, router, clip=cell.memory_clip
    )
    np.testing.assert_allclose(out, e_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(new[0], h_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new[1], e_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(new[2], A_ref.reshape(BATCH, -1), rtol=1e-4, atol=1e-4)
    if router:
        np.testing.assert_allclose(new[3] + 1 / memories, a_ref, rtol=1e-4, atol=1e-5)


def test_options_tanh_update_no_layer_norm_and_clip(rng):
    cell = WeiNetCell(
        UNITS, update_activation="tanh", layer_norm=False, memory_clip=0.5
    )
    cell.build((None, INPUT_DIM))
    perturb_weights(cell, rng)
    x = rng.normal(size=(BATCH, INPUT_DIM))
    h, e, A, a = random_states(rng, cell)
    A = 3 * A
    out, new = cell(
        x.astype("float32"),
        [
            h.astype("float32"),
            e.astype("float32"),
            A.reshape(BATCH, -1).astype("float32"),
        ],
    )
    w = ref.weights_by_name(cell)
    _, e_ref, A_ref, _ = ref.weinet_step(
        x, h, e, A, a, w, "elementwise", False, layer_norm=False, f_u=np.tanh, clip=0.5
    )
    np.testing.assert_allclose(out, e_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new[2], A_ref.reshape(BATCH, -1), rtol=1e-4, atol=1e-5)
    assert np.abs(np.asarray(new[2])).max() <= 0.5 + 1e-6


@pytest.mark.parametrize("update,router", [("elementwise", False), ("row_col", True)])
def test_sequence_through_rnn_matches_numpy(update, router, rng):
    cell = WeiNetCell(UNITS, num_memories=2, update=update, router=router)
    layer = keras.layers.RNN(cell, return_sequences=True)
    x = rng.normal(size=(BATCH, 5, INPUT_DIM)).astype("float32")
    y = np.asarray(layer(x))
    w = ref.weights_by_name(cell)
    h = np.zeros((BATCH, UNITS))
    e = np.zeros((BATCH, UNITS))
    A = np.zeros((BATCH, 2, UNITS, UNITS))
    a = np.full((BATCH, 2), 0.5)
    for t in range(5):
        h, e, A, a = ref.weinet_step(x[:, t], h, e, A, a, w, update, router, clip=100.0)
        np.testing.assert_allclose(y[:, t], e, rtol=1e-4, atol=1e-4)


def test_initialisation_follows_appendix():
    cell = WeiNetCell(50)
    cell.build((None, 37))
    w = ref.weights_by_name(cell)
    for name, mean in (
        ("decay_weight", 0.9),
        ("write_weight", 0.5),
        ("cross_weight", 0.0),
    ):
        assert w[name].shape == (1, 50, 50)
        assert abs(w[name].mean() - mean) < 0.02, name
        assert abs(w[name].std() - 0.1) < 0.02, name
    assert abs(w["kernel"].std() - 0.1) < 0.02
    assert abs(w["reader_kernel"].std() - 0.1) < 0.02
    # row x column factors reproduce the same means for the products.
    rc = WeiNetCell(50, update="row_col")
    rc.build((None, 37))
    W = ref.weinet_memory_weights(ref.weights_by_name(rc), "row_col")
    assert abs(W["decay"].mean() - 0.9) < 0.05
    assert abs(W["write"].mean() - 0.5) < 0.05
    assert abs(W["cross"].mean()) < 0.05
    assert (
        sum(
            np.prod(v.shape) for v in rc.weights if "_col" in v.name or "_row" in v.name
        )
        == 6 * 50
    )


def decay_products(cell):
    """`W_A` as `[K, units, units]` (the product `c r^T` for "row_col")."""
    w = ref.weights_by_name(cell)
    return ref.weinet_memory_weights(w, cell.update)["decay"]


NARROW = {"class_name": "RandomNormal", "config": {"mean": 0.9, "stddev": 0.01}}
# For "row_col": factors whose product c_i r_j has mean 0.9, spread 0.01.
NARROW_FACTORS = {
    "class_name": "RandomNormal",
    "config": {"mean": 0.9**0.5, "stddev": 0.01 / 1.8**0.5},
}


@pytest.mark.parametrize("update", ["elementwise", "row_col", "gated"])
def test_decay_initializer_default_is_the_appendix(update):
    # None is the appendix's W_A ~ N(0.9, 0.1); the same draw as no argument.
    keras.utils.set_random_seed(3)
    cell = WeiNetCell(50, update=update, decay_initializer=None)
    cell.build((None, 7))
    keras.utils.set_random_seed(3)
    plain = WeiNetCell(50, update=update)
    plain.build((None, 7))
    for a, b in zip(cell.weights, plain.weights):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    decay = decay_products(cell)
    assert abs(decay.mean() - 0.9) < 0.02
    # The factor form matches the spread to first order only (0.087 here).
    assert abs(decay.std() - 0.1) < (0.02 if update == "row_col" else 0.01)
    assert cell.decay_initializer is None
    assert cell.get_config()["decay_initializer"] is None


@pytest.mark.parametrize(
    "update,init",
    [
        ("elementwise", NARROW),
        ("gated", NARROW),
        ("row_col", NARROW_FACTORS),
    ],
)
def test_decay_initializer_takes_effect_on_decay_only(update, init):
    keras.utils.set_random_seed(3)
    cell = WeiNetCell(50, update=update, decay_initializer=init)
    cell.build((None, 7))
    decay = decay_products(cell)
    assert abs(decay.mean() - 0.9) < 0.005
    assert abs(decay.std() - 0.01) < 0.002  # the appendix's is 0.1
    write = ref.weinet_memory_weights(ref.weights_by_name(cell), update)["write"]
    assert abs(write.mean() - 0.5) < 0.05 and write.std() > 0.05
    if update == "row_col":
        # Two independent draws, not one vector used twice.
        col, row = (np.asarray(v) for v in cell.memory_weights["decay"])
        assert not np.allclose(col, row)


def test_decay_initializer_instance_and_seeded_draws_repeat():
    init = keras.initializers.Constant(0.5)
    cell = WeiNetCell(UNITS, decay_initializer=init)
    cell.build((None, INPUT_DIM))
    np.testing.assert_array_equal(decay_products(cell), np.full((1, 4, 4), 0.5))
    seeded = keras.initializers.RandomNormal(0.9, 0.01, seed=7)
    draws = []
    for _ in range(2):
        rc = WeiNetCell(UNITS, update="row_col", decay_initializer=seeded)
        rc.build((None, INPUT_DIM))
        draws.append(decay_products(rc))
        # A seeded initializer called twice draws the same values: the
        # factors must still differ (`add_cell_weight` derives a seed per
        # weight).
        col, row = (np.asarray(v) for v in rc.memory_weights["decay"])
        assert not np.allclose(col, row)
    np.testing.assert_array_equal(draws[0], draws[1])


def test_memory_decays_with_zero_controller_output():
    """With h_t = 0, eq. 5 reduces to A_t = W_A * A_{t-1}: A decays."""
    cell = WeiNetCell(UNITS)
    cell.build((None, INPUT_DIM))
    for v in (cell.kernel, cell.recurrent_kernel, cell.bias):
        v.assign(np.zeros(v.shape))
    cell.memory_weights["decay"].assign(np.full((1, UNITS, UNITS), 0.9))
    A = np.ones((1, UNITS * UNITS), np.float32)
    states = [np.zeros((1, UNITS), np.float32)] * 2 + [A]
    norms = []
    for _ in range(4):
        _, states = cell(np.zeros((1, INPUT_DIM), np.float32), states)
        norms.append(float(np.abs(np.asarray(states[2])).max()))
    np.testing.assert_allclose(norms, [0.9, 0.81, 0.729, 0.6561], rtol=1e-5)


def test_router_weights_sum_to_one(rng):
    cell = WeiNetCell(UNITS, num_memories=3, router=True)
    layer = keras.layers.RNN(cell, return_state=True)
    x = 5 * rng.normal(size=(BATCH, 7, INPUT_DIM)).astype("float32")
    *_, attention = layer(x)
    attention = np.asarray(attention) + 1 / 3  # the state is a - 1/K
    assert attention.shape == (BATCH, 3)
    assert (attention >= 0).all()
    np.testing.assert_allclose(attention.sum(-1), 1.0, rtol=1e-5)
    # a_0 = 1/K is the all-zero state, the one `reset_state` restores.
    initial = cell.get_initial_state(2)
    np.testing.assert_array_equal(np.asarray(initial[3]), np.zeros((2, 3)))


def test_state_declared_flat():
    cell = WeiNetCell(5, num_memories=2, router=True)
    assert cell.state_size == [5, 5, 50, 2]
    assert cell.output_size == 5
    assert WeiNetCell(5).state_size == [5, 5, 25]


@pytest.mark.parametrize("update", ["elementwise", "row_col", "gated"])
def test_finite_for_long_sequences_and_large_inputs(update, rng):
    cell = WeiNetCell(6, num_memories=2, update=update, router=True)
    inputs = keras.Input((None, 3))
    model = keras.Model(inputs, keras.layers.RNN(cell, return_state=True)(inputs))
    if update == "elementwise":
        # W_A entries well above 1 make the plain eq. 5 overflow; the clip holds.
        cell.memory_weights["decay"].assign(np.full((2, 6, 6), 1.5))
    x = (1e4 * rng.normal(size=(1, 2000, 3))).astype("float32")
    for t in model.predict(x, verbose=0):
        assert np.isfinite(t).all()


def test_round_trips(tmp_path, rng):
    inputs = keras.Input((None, INPUT_DIM))
    y = keras.layers.RNN(
        WeiNetCell(UNITS, num_memories=2, update="row_col", router=True)
    )(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2)(y))
    x = rng.normal(size=(BATCH, 6, INPUT_DIM)).astype("float32")
    ref.assert_round_trips(model, x, tmp_path)
    config = WeiNetCell(UNITS, update="gated", memory_clip=None).get_config()
    clone = WeiNetCell.from_config(config)
    assert clone.update == "gated" and clone.memory_clip is None


def test_decay_initializer_round_trips(tmp_path, rng):
    config = WeiNetCell(UNITS, decay_initializer=NARROW).get_config()
    assert config["decay_initializer"]["class_name"] == "RandomNormal"
    assert config["decay_initializer"]["config"]["stddev"] == 0.01
    clone = WeiNetCell.from_config(config)
    assert isinstance(clone.decay_initializer, keras.initializers.RandomNormal)
    assert clone.decay_initializer.get_config()["mean"] == 0.9
    inputs = keras.Input((None, INPUT_DIM))
    cell = WeiNetCell(UNITS, update="row_col", decay_initializer=NARROW_FACTORS)
    model = keras.Model(inputs, keras.layers.RNN(cell)(inputs))
    x = rng.normal(size=(BATCH, 6, INPUT_DIM)).astype("float32")
    ref.assert_round_trips(model, x, tmp_path)


def test_works_in_stacked_and_bidirectional(rng):
    x = rng.normal(size=(BATCH, 4, INPUT_DIM)).astype("float32")
    stacked = keras.layers.RNN(
        keras.layers.StackedRNNCells(
            [WeiNetCell(3), WeiNetCell(2, router=True, num_memories=2)]
        )
    )
    assert stacked(x).shape == (BATCH, 2)
    bi = keras.layers.Bidirectional(keras.layers.RNN(WeiNetCell(3)))
    assert bi(x).shape == (BATCH, 6)


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"units": 0}, "units"),
        ({"units": 4, "num_memories": 0}, "num_memories"),
        ({"units": 4, "update": "full"}, "update"),
        ({"units": 4, "router": "yes"}, "router"),
        ({"units": 4, "update_activation": "relu"}, "update_activation"),
        ({"units": 4, "memory_clip": -1.0}, "memory_clip"),
        ({"units": 4, "decay_initializer": "narrow_normal"}, "decay_initializer"),
        ({"units": 4, "decay_initializer": 0.9}, "decay_initializer"),
        (
            {"units": 4, "decay_initializer": {"class_name": "NoSuchInit"}},
            "decay_initializer",
        ),
    ],
)
def test_bad_arguments_raise(kwargs, argument):
    bad = kwargs.get(argument)
    with pytest.raises(ValueError, match=f"argument `{argument}`.*got {bad!r}"):
        WeiNetCell(**kwargs)


def test_bad_input_rank_raises():
    with pytest.raises(ValueError, match="inputs"):
        WeiNetCell(4).build((None, 3, 2))


def test_mixed_precision(rng):
    keras.config.set_dtype_policy("mixed_float16")
    cell = WeiNetCell(UNITS, num_memories=2, update="gated", router=True)
    y = keras.layers.RNN(cell)(
        rng.normal(size=(BATCH, 50, INPUT_DIM)).astype("float32")
    )
    assert "float16" in str(y.dtype)
    assert np.isfinite(np.asarray(y, np.float32)).all()


@pytest.mark.parametrize("update", ["elementwise", "row_col", "gated"])
def test_finite_gradients_after_a_long_run_of_zero_inputs(update):
    # With zero biases the all-zero state is a fixed point where layer
    # normalisation's gain is ~300 per step; 20 such steps gave NaN.
    ref.assert_finite_gradients_after_zero_steps(WeiNetCell(8, update=update), 5)
