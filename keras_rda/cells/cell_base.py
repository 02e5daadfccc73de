"""Keras RNN-cell plumbing shared by the associative-memory cells.

`FastWeightsCell`, `WeiNetCell`, `LayerNormLSTMCell` and
`RecurrentHighwayCell` take the arguments of `keras.layers.LSTMCell` that
are not about their equations: regularizers and constraints of the three
weight groups (kernel, recurrent, bias), input and recurrent dropout with
one mask per sequence (Gal & Ghahramani 2016, through Keras's
`DropoutRNNCell`, so `keras.layers.RNN` resets the masks at every call) and
the dropout seed. `CellBase` holds these, creates weights with the right
regularizer and constraint, applies the masks, and writes `get_config`
from the cell's list of constructor arguments.
"""

import keras
from keras import ops

from keras_rda.utils import validation
from keras_rda.utils.keras_compat import DropoutRNNCell

# The weight groups of `keras.layers.LSTMCell`'s regularizer and constraint
# arguments: `kernel` (weights that read the input or a read-out),
# `recurrent` (weights on the carried state), `bias`.
WEIGHT_GROUPS = ("kernel", "recurrent", "bias")

_SERIALIZERS = {
    "_initializer": keras.initializers.serialize,
    "_regularizer": keras.regularizers.serialize,
    "_constraint": keras.constraints.serialize,
}


class CellBase(keras.layers.Layer, DropoutRNNCell):
    """Base of the associative-memory cells (not public).

    Subclasses call `super().__init__(units, **kwargs)`, list their own
    constructor arguments in `config_arguments` (a name, or `(name,
    attribute)` where the value is stored under another attribute), create
    weights with `add_cell_weight`, and pass the step input and the
    recurrent vector through `drop_input` / `drop_recurrent` in `call`.

    Args:
        units: positive int, the size of the cell's hidden state.
        kernel_regularizer, recurrent_regularizer, bias_regularizer:
            regularizers of the kernel, recurrent and bias weight groups.
        kernel_constraint, recurrent_constraint, bias_constraint:
            constraints of the same groups.
        dropout: float in [0, 1), the fraction of the step input to drop
            (one mask for all steps of a sequence, during training only).
        recurrent_dropout: float in [0, 1), the fraction of the recurrent
            vector to drop (one mask per sequence, training only).
        seed: the dropout seed.
        **kwargs: passed to `keras.layers.Layer`.
    """

    config_arguments = ()

    def __init__(
        self,
        units,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.units = validation.positive_int("units", units)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = keras.regularizers.get(recurrent_regularizer)
        self.bias_regularizer = keras.regularizers.get(bias_regularizer)
        self.kernel_constraint = keras.constraints.get(kernel_constraint)
        self.recurrent_constraint = keras.constraints.get(recurrent_constraint)
        self.bias_constraint = keras.constraints.get(bias_constraint)
        self.dropout = validation.rate("dropout", dropout)
        self.recurrent_dropout = validation.rate("recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed=seed)

    def add_cell_weight(self, name, shape, initializer, group):
        """A weight of `group` ("kernel", "recurrent" or "bias"), with that
        group's regularizer and constraint."""
        validation.one_of("group", group, WEIGHT_GROUPS)
        return self.add_weight(
            shape=shape,
            name=name,
            initializer=initializer,
            regularizer=getattr(self, f"{group}_regularizer"),
            constraint=getattr(self, f"{group}_constraint"),
        )

    def drop_input(self, inputs, training):
        """`inputs * mask` while training with `dropout > 0`, else `inputs`."""
        if training and self.dropout > 0:
            return inputs * self.get_dropout_mask(inputs)
        return inputs

    def drop_recurrent(self, state, training):
        """`state * mask` while training with `recurrent_dropout > 0`."""
        if training and self.recurrent_dropout > 0:
            return state * self.get_recurrent_dropout_mask(state)
        return state

    def get_initial_state(self, batch_size=None):
        """All-zero states, `[batch, size]` for each entry of `state_size`."""
        return [
            ops.zeros((batch_size, size), dtype=self.compute_dtype)
            for size in self.state_size
        ]

    def get_config(self):
        config = super().get_config()
        names = ["units", *self.config_arguments]
        for group in WEIGHT_GROUPS:
            names += [f"{group}_regularizer", f"{group}_constraint"]
        names += ["dropout", "recurrent_dropout", "seed"]
        for entry in names:
            name, attribute = (entry, entry) if isinstance(entry, str) else entry
            value = getattr(self, attribute)
            for suffix, serialize in _SERIALIZERS.items():
                if name.endswith(suffix):
                    value = serialize(value)
            config[name] = value
        return config
