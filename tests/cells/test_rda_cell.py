"""RDACell and RWACell against the NumPy reference of the papers' equations."""

import itertools
import zlib

import keras
import numpy as np
import pytest

import keras_rda
from tests.cells import numpy_reference as ref

INPUT_DIM, UNITS, STEPS, BATCH = 3, 5, 24, 4

COMBINATIONS = list(
    itertools.product(
        ["exp", "sigmoid", "softplus", "relu"], ["linear", "tanh"], ["linear", "tanh"]
    )
)


def run_cell(cell, x, weights):
    layer = keras.layers.RNN(cell, return_sequences=True, return_state=True)
    layer.build((None, None, x.shape[-1]))
    cell.set_weights(weights)
    outputs, h, n, d, m = (np.asarray(v, np.float64) for v in layer(x))
    return outputs, h, n, d, m


@pytest.mark.parametrize("attention,hidden,output", COMBINATIONS)
def test_rda_cell_matches_numpy_reference(attention, hidden, output):
    # A stable seed per combination: Python's str hash changes per process.
    rng = np.random.default_rng(zlib.crc32(f"{attention}-{hidden}-{output}".encode()))
    params = ref.random_params(rng, INPUT_DIM, UNITS, discount=True)
    x = rng.normal(size=(BATCH, STEPS, INPUT_DIM)).astype(np.float32)
    cell = keras_rda.RDACell(
        UNITS,
        attention_activation=attention,
        hidden_activation=hidden,
        output_activation=output,
    )
    outputs, h, n, d, m = run_cell(
        cell, x, ref.to_keras_weights(params, INPUT_DIM, True)
    )
    want, want_h, want_n, want_d = ref.run(params, x, True, attention, hidden, output)

    assert np.isfinite(want).all()
    np.testing.assert_allclose(outputs, want, rtol=1e-4, atol=1e-5)
    # The state holds n and d scaled by exp(-m): the unscaled sums match.
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(n * np.exp(m), want_n, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(d * np.exp(m), want_d, rtol=1e-3, atol=1e-6)
    if attention == "relu":
        # The run exercises the empty case (d = 0 after the first step).
        *_, first_d = ref.run(params, x[:, :1], True, attention, hidden, output)
        assert (first_d == 0).any()


@pytest.mark.parametrize(
    "variant,expected",
    [
        ("sigmoid-id", ("sigmoid", "linear", "linear")),
        ("exp-tanh", ("exp", "linear", "tanh")),
    ],
)
def test_named_variants(variant, expected):
    cell = keras_rda.RDACell(4, variant=variant)
    got = (cell.attention_activation, cell.hidden_activation, cell.output_activation)
    assert got == expected
    assert keras_rda.RDACell(4).attention_activation == "sigmoid"


def test_variant_conflicting_with_explicit_activation_is_rejected():
    with pytest.raises(ValueError, match="variant"):
        keras_rda.RDACell(4, variant="exp-tanh", attention_activation="relu")


def test_rwa_cell_with_learned_initial_state_matches_reference():
    rng = np.random.default_rng(7)
    params = ref.random_params(rng, INPUT_DIM, UNITS, discount=False)
    s0 = rng.normal(0, np.sqrt(3.0), UNITS)
    x = rng.normal(size=(BATCH, STEPS, INPUT_DIM)).astype(np.float32)
    cell = keras_rda.RWACell(UNITS)
    outputs, h, n, d, m = run_cell(
        cell, x, ref.to_keras_weights(params, INPUT_DIM, False, s0=s0)
    )
    want, want_h, want_n, want_d = ref.run(params, x, False, h0=np.tanh(s0))
    np.testing.assert_allclose(outputs, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(n * np.exp(m), want_n, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(d * np.exp(m), want_d, rtol=1e-3)


def test_rwa_initial_state_is_tanh_of_s0():
    cell = keras_rda.RWACell(6)
    cell.build((None, 2))
    h0, n0, d0, m0 = cell.get_initial_state(batch_size=3)
    np.testing.assert_allclose(
        np.asarray(h0),
        np.tile(np.tanh(np.asarray(cell.initial_state)), (3, 1)),
        rtol=1e-6,
    )
    for s in (n0, d0, m0):
        np.testing.assert_array_equal(np.asarray(s), 0.0)


def test_rda_learned_initial_state_is_used():
    rng = np.random.default_rng(3)
    params = ref.random_params(rng, 2, 4, discount=True)
    s0 = rng.normal(size=4)
    x = rng.normal(size=(2, 5, 2)).astype(np.float32)
    cell = keras_rda.RDACell(4, learn_initial_state=True)
    outputs, *_ = run_cell(cell, x, ref.to_keras_weights(params, 2, True, s0=s0))
    want, *_ = ref.run(params, x, True, "sigmoid", "linear", "linear", h0=s0)
    np.testing.assert_allclose(outputs, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("hidden", ["linear", "tanh"])
def test_relu_attention_with_learned_s0_averages_to_s0_until_attended(hidden):
    # ReLU attention leaves d = 0 on some units for some steps: there the
    # average is s0 (h = f_h(s0)), as before the first step.
    rng = np.random.default_rng(zlib.crc32(f"relu-s0-{hidden}".encode()))
    params = ref.random_params(rng, INPUT_DIM, UNITS, discount=True)
    params["b_a"] -= 1.0  # more steps with nothing attended
    s0 = rng.normal(size=UNITS)
    x = rng.normal(size=(BATCH, STEPS, INPUT_DIM)).astype(np.float32)
    kwargs = dict(
        attention_activation="relu",
        hidden_activation=hidden,
        learn_initial_state=True,
    )
    weights = ref.to_keras_weights(params, INPUT_DIM, True, s0=s0)
    want, want_h, _, want_d = ref.run(params, x, True, "relu", hidden, "linear", s0=s0)
    *_, first_d = ref.run(params, x[:, :3], True, "relu", hidden, "linear", s0=s0)
    assert (first_d == 0).any()

    outputs, h, *_ = run_cell(keras_rda.RDACell(UNITS, **kwargs), x, weights)
    np.testing.assert_allclose(outputs, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)

    layer = keras_rda.RDA(UNITS, return_sequences=True, **kwargs)
    layer.build((None, None, INPUT_DIM))
    layer.set_weights(weights)
    np.testing.assert_allclose(np.asarray(layer(x)), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: keras_rda.RWACell(UNITS),
        lambda: keras_rda.RDACell(
            UNITS, learn_initial_state=True, initial_state_initializer="ones"
        ),
    ],
    ids=["rwa", "rda-s0"],
)
def test_an_all_zero_state_is_the_initial_state(make):
    # What keras.layers.RNN.reset_state() and zero initial states give.
    x = np.random.default_rng(5).normal(size=(BATCH, STEPS, INPUT_DIM))
    layer = keras.layers.RNN(make(), return_sequences=True)
    fresh = np.asarray(layer(x))
    zeros = [np.zeros((BATCH, UNITS), np.float32)] * 4
    np.testing.assert_allclose(np.asarray(layer(x, initial_state=zeros)), fresh)
    h0 = np.asarray(layer.cell.get_initial_state(BATCH)[0])
    assert np.abs(h0).min() > 0  # the learned h_0 is not the zero state


def test_weight_layout_and_initialisation():
    cell = keras_rda.RDACell(8)
    cell.build((None, 3))
    assert tuple(cell.kernel.shape) == (3, 32)
    assert tuple(cell.recurrent_kernel.shape) == (8, 24)
    bias = np.asarray(cell.bias)
    # Biases 0, discount-gate bias 1 (RDA section 6.1).
    np.testing.assert_array_equal(bias[:24], 0.0)
    np.testing.assert_array_equal(bias[24:], 1.0)
    # Glorot uniform per block: the limit of one [3, 8] block.
    limit = np.sqrt(6.0 / (3 + 8))
    assert np.abs(np.asarray(cell.kernel)).max() <= limit
    assert cell.initial_state is None
    rwa = keras_rda.RWACell(8)
    rwa.build((None, 3))
    assert tuple(rwa.kernel.shape) == (3, 24)
    assert tuple(rwa.recurrent_kernel.shape) == (8, 16)
    np.testing.assert_array_equal(np.asarray(rwa.bias), 0.0)
    assert tuple(rwa.initial_state.shape) == (8,)


def test_unit_discount_bias_can_be_disabled():
    cell = keras_rda.RDACell(4, unit_discount_bias=False)
    cell.build((None, 2))
    np.testing.assert_array_equal(np.asarray(cell.bias), 0.0)


@pytest.mark.parametrize("cls", [keras_rda.RDACell, keras_rda.ParallelRDACell])
@pytest.mark.parametrize("unit_discount_bias", [True, False])
def test_discount_bias_initializer_sets_the_discount_block_alone(
    cls, unit_discount_bias
):
    keras.utils.set_random_seed(1)
    default = cls(4, unit_discount_bias=unit_discount_bias)
    default.build((None, 3))
    keras.utils.set_random_seed(1)
    cell = cls(
        4,
        unit_discount_bias=unit_discount_bias,
        discount_bias_initializer=keras.initializers.Constant(4.0),
    )
    cell.build((None, 3))
    bias, default_bias = np.asarray(cell.bias), np.asarray(default.bias)
    np.testing.assert_array_equal(bias[-4:], 4.0)  # the gamma block, last
    np.testing.assert_array_equal(bias[:-4], default_bias[:-4])
    np.testing.assert_array_equal(np.asarray(cell.kernel), np.asarray(default.kernel))
    clone = cls.from_config(cell.get_config())
    clone.build((None, 3))
    np.testing.assert_array_equal(np.asarray(clone.bias)[-4:], 4.0)
    assert clone.get_config() == cell.get_config()


@pytest.mark.parametrize("bias", [1.0, 4.0])
def test_a_step_reaches_the_end_through_the_discount_power(bias):
    # One input, then K blank (zero) steps; gates read nothing but their
    # biases after the first step, so gamma = sigmoid(b), a = sigmoid(0) and
    # z = 0 on the blank steps (RDA paper, section 5):
    #   n_T = gamma^K n_1,  d_T = gamma^K d_1 + a (1 - gamma^K) / (1 - gamma),
    # so the first step reaches h_T = n_T / d_T scaled by gamma^K: 3e-14
    # after 100 steps at the paper's start (b = 1), 0.16 at b = 4.
    steps = 100
    cell = keras_rda.RDACell(
        1, discount_bias_initializer=keras.initializers.Constant(bias)
    )
    layer = keras.layers.RNN(cell)
    layer.build((None, None, 1))
    kernel = np.array([[1.0, 1.0, 0.0, 0.0]])  # u = x, g = x, no a/gamma input
    cell.set_weights([kernel, np.zeros((1, 3)), np.array([0.0, 0.0, 0.0, bias])])
    x = np.zeros((1, steps + 1, 1), np.float32)
    x[0, 0, 0] = 2.0
    h = float(np.asarray(layer(x))[0, 0])
    gamma, a = 1.0 / (1.0 + np.exp(-bias)), 0.5
    z1 = 2.0 * np.tanh(2.0)
    n = gamma**steps * z1 * a
    d = gamma**steps * a + a * (1.0 - gamma**steps) / (1.0 - gamma)
    assert h == pytest.approx(n / d, rel=1e-4)


@pytest.mark.parametrize("cls", [keras_rda.RDACell, keras_rda.RWACell])
def test_config_round_trip(cls):
    cell = cls(
        7,
        dropout=0.25,
        recurrent_dropout=0.1,
        kernel_regularizer="l2",
        bias_constraint="non_neg",
        seed=3,
    )
    config = cell.get_config()
    clone = cls.from_config(config)
    assert clone.get_config() == config
    restored = keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(cell)
    )
    assert type(restored) is cls and restored.get_config() == config


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"units": 0}, "units"),
        ({"units": -3}, "units"),
        ({"units": 2.5}, "units"),
        ({"units": 4, "attention_activation": "softmax"}, "attention_activation"),
        ({"units": 4, "hidden_activation": "relu"}, "hidden_activation"),
        ({"units": 4, "output_activation": "sigmoid"}, "output_activation"),
        ({"units": 4, "variant": "exp-id"}, "variant"),
        ({"units": 4, "dropout": 1.5}, "dropout"),
        ({"units": 4, "recurrent_dropout": -0.1}, "recurrent_dropout"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, argument):
    with pytest.raises(ValueError, match=f"argument `{argument}`") as info:
        keras_rda.RDACell(**kwargs)
    bad = [v for k, v in kwargs.items() if k == argument][0]
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    "cls,argument,counterpart",
    [
        (keras_rda.RDACell, "activation", "`variant`"),
        (keras_rda.RDACell, "recurrent_activation", "`attention_activation`"),
        (keras_rda.RDACell, "unit_forget_bias", "`unit_discount_bias`"),
        (keras_rda.ParallelRDACell, "unit_forget_bias", "`unit_discount_bias`"),
        (keras_rda.RWACell, "activation", "fixed"),
        (keras_rda.RWACell, "recurrent_activation", "fixed"),
        (keras_rda.RWACell, "unit_forget_bias", "no discount"),
        (keras_rda.RDACell, "recurrent_initializer", "`kernel_initializer`"),
        (keras_rda.RWACell, "recurrent_initializer", "`kernel_initializer`"),
    ],
)
def test_an_lstm_argument_names_the_cells_counterpart(cls, argument, counterpart):
    with pytest.raises(ValueError) as info:
        cls(4, **{argument: True})
    message = str(info.value)
    assert message.startswith(
        f"Received an invalid argument `{argument}=True` for `{cls.__name__}`"
    )
    assert counterpart in message
    assert "Unrecognized" not in message


def test_units_error_message_is_in_keras_form():
    with pytest.raises(ValueError) as info:
        keras_rda.RWACell(0)
    assert str(info.value) == (
        "Received an invalid value for argument `units`, expected a positive "
        "integer, got 0"
    )


def test_wrong_input_rank_is_rejected():
    cell = keras_rda.RDACell(4)
    with pytest.raises(ValueError, match="argument `inputs`"):
        cell.build((2, 3, 4))
    with pytest.raises(ValueError, match="argument `inputs`"):
        keras.layers.RNN(keras_rda.RDACell(4))(np.zeros((2, 3), np.float32))


def gate_matrices(cell, input_dim):
    """Each gate's paper-style matrix over [x, h]: `[input_dim + units, units]`."""
    kernel = np.asarray(cell.kernel, np.float64)
    recurrent = np.asarray(cell.recurrent_kernel, np.float64)
    units = cell.units
    return [
        np.concatenate(
            [
                kernel[:, (i + 1) * units : (i + 2) * units],
                recurrent[:, i * units : (i + 1) * units],
            ]
        )
        for i in range(cell.num_blocks - 1)
    ]


@pytest.mark.parametrize("cls", [keras_rda.RDACell, keras_rda.RWACell])
def test_paper_initialisation_is_one_glorot_matrix_over_x_and_h(cls):
    """RWA section 3.1 / RDA section 6.1: each W_g, W_a (W_gamma) is one
    Glorot-uniform matrix with fan-in input_dim + units, so its input rows and
    recurrent rows have the same spread; W_u has fan-in input_dim."""
    input_dim, units = 2, 250
    cell = cls(units)
    cell.build((None, input_dim))
    limit = np.sqrt(6.0 / (input_dim + units + units))
    inputs_rows, recurrent_rows = [], []
    for matrix in gate_matrices(cell, input_dim):
        assert np.abs(matrix).max() <= limit
        assert np.abs(matrix).max() > 0.99 * limit
        # Uniform(-l, l) has variance l^2 / 3 (63,000 draws: +-1%).
        np.testing.assert_allclose(matrix.var(), limit**2 / 3, rtol=0.03)
        inputs_rows.append(matrix[:input_dim])
        recurrent_rows.append(matrix[input_dim:])
    ratio = np.var(inputs_rows) / np.var(recurrent_rows)
    assert 0.85 < ratio < 1.15
    w_u = np.asarray(cell.kernel)[:, :units]
    u_limit = np.sqrt(6.0 / (input_dim + units))
    assert u_limit * 0.95 < np.abs(w_u).max() <= u_limit


def test_only_relu_attention_with_a_learned_s0_empties_to_s0():
    """The one case where a step can leave the average empty and the empty
    average is not 0 (`empties_to_s0`): the layers then run the cell's own
    step, and the output is not a function of the states."""
    cell = keras_rda.RDACell(4, attention_activation="relu", learn_initial_state=True)
    assert cell.empties_to_s0 and not cell.output_in_states
    others = [
        keras_rda.RDACell(4, attention_activation="relu"),
        keras_rda.RDACell(4, learn_initial_state=True),
        keras_rda.RWACell(4),
        keras_rda.ParallelRDACell(4, attention_activation="relu"),
    ]
    for other in others:
        assert not other.empties_to_s0 and other.output_in_states


def test_output_from_states_is_the_steps_output():
    """`output_from_states(new_states)` is the output of the step that left
    them, and 0 from the initial state where `s0` is learned (Keras's zeros
    before the first real step)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 2)).astype("float32")
    learned = keras_rda.RDACell(
        4,
        variant="exp-tanh",
        learn_initial_state=True,
        initial_state_initializer="random_normal",
    )
    for cell in [learned, keras_rda.ParallelRDACell(4, output_activation="tanh")]:
        cell.build((None, 2))
        initial = cell.get_initial_state(batch_size=3)
        output, states = cell(x, initial)
        np.testing.assert_allclose(
            np.asarray(cell.output_from_states(states)), np.asarray(output), atol=1e-6
        )
    initial = learned.get_initial_state(batch_size=3)
    assert np.abs(np.asarray(initial[0])).min() > 0  # h_0 = f_h(s0), not 0
    np.testing.assert_array_equal(np.asarray(learned.output_from_states(initial)), 0.0)
    relu = keras_rda.RDACell(4, attention_activation="relu", learn_initial_state=True)
    relu.build((None, 2))
    assert relu.output_from_states(relu.get_initial_state(batch_size=3)) is None
