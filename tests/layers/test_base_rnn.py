"""`keras_rda.layers.base_rnn`: how the sequence layers build their cell and
write their flat config."""

import keras
import pytest

import keras_rda
from keras_rda.layers.base_rnn import RNN_ARGUMENTS
from keras_rda.layers.base_rnn import make_cell


def test_make_cell_splits_the_cell_and_rnn_arguments():
    arguments = {"units": 3, "dropout": 0.25, "return_sequences": True, "unroll": True}
    cell, rnn_arguments = make_cell(
        keras.layers.GRUCell,
        "gru_cell",
        arguments,
        {"dtype": "float64", "trainable": False, "name": "layer"},
    )
    assert rnn_arguments == {"return_sequences": True, "unroll": True}
    assert (cell.units, cell.dropout, cell.name) == (3, 0.25, "gru_cell")
    assert cell.dtype_policy.name == "float64"
    assert not cell.trainable
    assert arguments["return_sequences"]  # the caller's dict is left as it was


def test_an_unknown_argument_reaches_the_cell_and_fails():
    with pytest.raises(ValueError, match="bogus"):
        make_cell(keras.layers.GRUCell, "gru_cell", {"units": 3, "bogus": 1}, {})


@pytest.mark.parametrize(
    "make",
    [
        lambda: keras_rda.RDA(3),
        lambda: keras_rda.ParallelRDA(3),
        lambda: keras_rda.NTM(keras.layers.LSTMCell(4), memory_size=3, word_size=2),
    ],
)
def test_sequence_layers_take_3d_inputs_with_known_features(make):
    with pytest.raises(ValueError, match="argument `inputs`"):
        make().build((2, 5))
    with pytest.raises(ValueError, match="argument `inputs`"):
        make().build((2, 5, None))


@pytest.mark.parametrize(
    "make",
    [
        lambda: keras_rda.RWA(3, return_sequences=True, go_backwards=True),
        lambda: keras_rda.DNC(
            keras.layers.LSTMCell(4), memory_size=3, word_size=2, stateful=True
        ),
    ],
)
def test_config_is_flat_and_rebuilds_the_layer(make):
    layer = make()
    config = layer.get_config()
    assert "cell" not in config
    cell_config = layer.cell.get_config()
    for key, value in cell_config.items():
        if key not in ("name", "trainable", "dtype"):
            assert config[key] == value, key
    for key in set(RNN_ARGUMENTS) - {"activity_regularizer"}:
        assert key in config
    again = type(layer).from_config(config)
    assert again.get_config() == config


@pytest.mark.parametrize(
    "make,argument,counterpart",
    [
        (lambda: keras_rda.RDA(3, activation="tanh"), "activation", "`variant`"),
        (
            lambda: keras_rda.RDA(3, recurrent_activation="sigmoid"),
            "recurrent_activation",
            "`attention_activation`",
        ),
        (
            lambda: keras_rda.RDA(3, unit_forget_bias=True),
            "unit_forget_bias",
            "`unit_discount_bias`",
        ),
        (lambda: keras_rda.RDA(3, use_cudnn=False), "use_cudnn", "`use_kernel`"),
        (
            lambda: keras_rda.RWA(3, recurrent_initializer="orthogonal"),
            "recurrent_initializer",
            "`kernel_initializer`",
        ),
        (
            lambda: keras_rda.RWA(3, unit_forget_bias=True),
            "unit_forget_bias",
            "no discount",
        ),
        (
            lambda: keras_rda.ParallelRDA(3, activation="tanh"),
            "activation",
            "`output_activation`",
        ),
    ],
)
def test_an_lstm_argument_names_the_layers_counterpart(make, argument, counterpart):
    # Not Keras's "Unrecognized keyword arguments": the layer says what it
    # takes instead.
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert f"argument `{argument}=" in message
    assert counterpart in message
    assert "Unrecognized" not in message
