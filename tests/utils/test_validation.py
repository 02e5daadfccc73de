"""Argument checks: accepted values pass through, others raise in Keras's wording."""

import re

import numpy as np
import pytest

from keras_rda.utils import validation


def test_int_in_range_accepts_the_bounds_and_numpy_ints():
    assert validation.int_in_range("n", 5, 5, 9) == 5
    assert validation.int_in_range("n", np.int64(9), 5, 9) == 9
    assert type(validation.int_in_range("n", np.int32(7), 5, 9)) is int


@pytest.mark.parametrize("value", [4, 10, 7.0, True, "7", None])
def test_int_in_range_rejects(value):
    with pytest.raises(
        ValueError,
        match=r"argument `n`, expected an integer in \[5, 9\], got " + repr(value),
    ):
        validation.int_in_range("n", value, 5, 9)


def test_positive_int_rejects_zero_and_bool():
    assert validation.positive_int("units", 3) == 3
    for value in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="argument `units`, expected a positive"):
            validation.positive_int("units", value)


def test_int_at_least_names_the_bound():
    assert validation.int_at_least("length", np.int64(21), 21) == 21
    with pytest.raises(
        ValueError, match=r"`length`, expected an integer >= 21, got 20"
    ):
        validation.int_at_least("length", 20, 21)
    with pytest.raises(ValueError, match="expected a non-negative integer, got -1"):
        validation.int_at_least("low", -1, 0)


def test_positive_int_allow_none():
    assert validation.positive_int("interval", None, allow_none=True) is None
    with pytest.raises(ValueError, match="`interval`"):
        validation.positive_int("interval", None)


def test_one_of_rejects_unhashable_and_array_values():
    assert validation.one_of("pool", np.int64(4), (1, 2, 4)) == 4
    for value in ([4], np.array([4, 4]), None, "4"):
        with pytest.raises(ValueError, match="`pool`, expected one of 1, 2, 4"):
            validation.one_of("pool", value, (1, 2, 4))


def test_boolean_accepts_python_and_numpy_booleans_only():
    assert validation.boolean("flag", np.bool_(True)) is True
    assert validation.boolean("flag", False) is False
    for value in (1, 0, "True", None):
        with pytest.raises(ValueError, match="argument `flag`, expected True or"):
            validation.boolean("flag", value)


def test_initializer_takes_what_keras_reads_and_names_the_argument():
    import keras

    assert validation.initializer("init", None) is None
    ones = validation.initializer("init", "ones")
    assert np.all(keras.ops.convert_to_numpy(ones((2, 2))) == 1.0)
    normal = validation.initializer(
        "init", {"class_name": "RandomNormal", "config": {"stddev": 0.1}}
    )
    assert isinstance(normal, keras.initializers.RandomNormal)
    assert normal.stddev == 0.1
    instance = keras.initializers.Zeros()
    assert validation.initializer("init", instance) is instance
    for value in ("no_such", 3, {"class_name": "NoSuch"}):
        with pytest.raises(ValueError, match="argument `init`, expected a Keras ini"):
            validation.initializer("init", value)


def test_fractions():
    assert validation.fractions("split", [0.5, 0.25, 0.25], 3) == (0.5, 0.25, 0.25)
    for value in ([0.5, 0.5], [0.5, 0.6, -0.1], "abc", None):
        with pytest.raises(ValueError, match="`split`, expected 3 positive fractions"):
            validation.fractions("split", value, 3)


def test_step_input_dim_names_the_cell():
    class Cell:
        pass

    assert validation.step_input_dim(Cell(), (None, 7)) == 7
    with pytest.raises(ValueError, match="`inputs` of Cell, expected a step input"):
        validation.step_input_dim(Cell(), (None, 5, 7))


@pytest.mark.parametrize(
    "make",
    [
        lambda n: __import__("keras_rda").RDACell(n),
        lambda n: __import__("keras_rda").RWACell(n),
        lambda n: __import__("keras_rda").WeiNetCell(n),
        lambda n: __import__("keras_rda").FastWeightsCell(n),
        lambda n: __import__("keras_rda").LayerNormLSTMCell(n),
        lambda n: __import__("keras_rda").RecurrentHighwayCell(n),
        lambda n: __import__("keras_rda").DNCCell(
            __import__("keras").layers.LSTMCell(n), memory_size=n, word_size=n
        ),
        lambda n: __import__("keras_rda").NTMCell(
            __import__("keras").layers.LSTMCell(n), memory_size=n, word_size=n
        ),
    ],
)
def test_every_unit_accepts_numpy_ints_and_rejects_zero(make):
    """One validation module: NumPy integers are integers everywhere."""
    make(np.int64(8))
    with pytest.raises(ValueError, match="expected a positive integer, got 0"):
        make(0)


def test_sequence_steps_refuses_only_a_known_empty_time_axis():
    validation.sequence_steps((2, 5, 3))
    validation.sequence_steps((None, None, 3))
    validation.sequence_steps((0, 5, 3))  # no samples is not no steps
    with pytest.raises(
        ValueError,
        match=r"argument `inputs`, expected a sequence \[batch, time, features\] "
        r"of at least one time step, got \(2, 0, 3\)",
    ):
        validation.sequence_steps((2, 0, 3))


def test_sequence_mask_must_be_the_inputs_batch_and_time():
    validation.sequence_mask((2, 5), (2, 5, 3))
    validation.sequence_mask((None, 5), (2, None, 3))
    validation.sequence_mask(np.ones((2, 5), bool), np.zeros((2, 5, 3)))
    for shape in [(2, 4), (3, 5), (2, 5, 1), (10,)]:
        with pytest.raises(
            ValueError,
            match=r"argument `mask`, expected a mask of shape \[batch, time\] = "
            r"\(2, 5\), the inputs' first two dimensions \(inputs of shape "
            r"\(2, 5, 3\)\), got shape " + re.escape(str(shape)),
        ):
            validation.sequence_mask(shape, (2, 5, 3))


class _Cell:
    """Only what `cell_states` reads of a cell: its `state_size`."""

    state_size = [4, 16]


@pytest.mark.parametrize(
    "shapes, batch",
    [
        ([(2, 4), (2, 16)], 2),
        ([(None, 4), (2, 16)], None),  # unknown when tracing: agrees
        ([(2, None), (2, 16)], 2),
    ],
)
def test_cell_states_pass_one_batch_by_size_tensor_per_size(shapes, batch):
    validation.cell_states(_Cell(), _Cell.state_size, shapes, batch)


@pytest.mark.parametrize(
    "shapes, batch",
    [
        ([(2, 4)], 2),  # one state too few
        ([(2, 4), (2, 16), (2, 4)], 2),  # one too many
        ([(2, 16), (2, 4)], 2),  # sizes swapped
        ([(2, 4), (3, 16)], None),  # two batch sizes
        ([(3, 4), (3, 16)], 2),  # not the inputs' batch size
        ([(2, 4, 1), (2, 16)], 2),  # not [batch, size]
    ],
)
def test_cell_states_name_the_argument_the_owner_and_both_shapes(shapes, batch):
    expected = "(2, 4), (2, 16)" if batch else "(batch, 4), (batch, 16)"
    with pytest.raises(
        ValueError,
        match=r"argument `initial_state` of _Cell, expected 2 tensor\(s\) of shapes "
        rf"\[{re.escape(expected)}\].*got {len(shapes)} of shapes "
        + re.escape("[" + ", ".join(str(s) for s in shapes) + "]"),
    ):
        validation.cell_states(_Cell(), _Cell.state_size, shapes, batch)


def test_cell_states_leave_a_nested_state_size_unchecked():
    validation.cell_states(_Cell(), [[4, 4], 16], [(2, 9)], 2)


def test_no_lstm_arguments_names_the_argument_and_its_counterpart():
    counterparts = {"activation": "Use `hidden_activation`."}
    validation.no_lstm_arguments("RDA", {"dtype": "float32"}, counterparts)
    with pytest.raises(ValueError) as info:
        validation.no_lstm_arguments("RDA", {"activation": "tanh"}, counterparts)
    assert str(info.value) == (
        "Received an invalid argument `activation='tanh'` for `RDA`: `activation` "
        "is an argument of `keras.layers.LSTM`, which `RDA` does not take. Use "
        "`hidden_activation`."
    )
