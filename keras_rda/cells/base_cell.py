"""Keras RNN-cell plumbing shared by the package's recurrent cells.

`FastWeightsCell`, `WeiNetCell`, `LayerNormLSTMCell`, `RecurrentHighwayCell`
and the RWA / RDA family (`BaseRDACell`: `RWACell`, `RDACell`,
`ParallelRDACell`) take the arguments of `keras.layers.LSTMCell` that are
not about their equations: a regularizer and a constraint for each of their
weight groups (kernel, recurrent, bias, and for the RWA / RDA cells the
learned initial state), input and recurrent dropout with one mask per
sequence (Gal & Ghahramani 2016, through Keras's `DropoutRNNCell`, so
`keras.layers.RNN` resets the masks at every call) and the dropout seed.
`BaseCell` holds these, creates weights with the right regularizer and
constraint, applies the masks, and writes `get_config` from the cell's list
of constructor arguments.
"""

import keras
from keras import ops

from keras_rda.utils import validation
from keras_rda.utils.initializers import independent
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


class BaseCell(keras.layers.Layer, DropoutRNNCell):
    """Base of the package's recurrent cells (not public).

    A public subclass lists every argument in its own signature (Keras's
    style: `help()` shows them all), passes this class's with
    `super().__init__(units, **self.base_cell_arguments(locals()),
    **kwargs)`, lists its own constructor arguments in `config_arguments`
    (a name, or `(name, attribute)` where the value is stored under another
    attribute; `*_initializer`, `*_regularizer` and `*_constraint` values
    are serialised), creates weights with `add_cell_weight`, and passes the
    step input and the recurrent vector through `drop_input` /
    `drop_recurrent` in `call`.

    A subclass whose weights form other groups than `WEIGHT_GROUPS` names
    them in `weight_groups`; the constructor then takes (and the config
    holds) `{group}_regularizer` and `{group}_constraint` for exactly those
    groups. A cell without a `recurrent` group has no recurrent dropout
    either (nothing reads a carried vector through weights): it takes no
    `recurrent_dropout` argument and `self.recurrent_dropout` is 0.

    Args:
        units: positive int, the size of the cell's hidden state.
        dropout: float in [0, 1), the fraction of the step input to drop
            (one mask for all steps of a sequence, during training only).
        seed: the dropout seed.
        **kwargs: for each group `g` of `weight_groups`, `g_regularizer` and
            `g_constraint` (default None); `recurrent_dropout` (float in
            [0, 1), the fraction of the recurrent vector to drop, one mask
            per sequence, training only) where there is a `recurrent`
            group; any `*_initializer` of `config_arguments` the subclass
            passes on (stored under its name through
            `validation.initializer`, in `config_arguments` order, before
            the dropout seed generator is made: the order in which they
            draw their seeds); the rest is passed to `keras.layers.Layer`.
    """

    #: The groups of weights that share a regularizer and a constraint.
    weight_groups = WEIGHT_GROUPS
    #: Whether `call` reads the weights in the compute dtype under mixed
    #: precision (Keras's autocasting); a cell that computes in float32
    #: there sets False and reads them in their own dtype (float32).
    autocast_weights = True
    config_arguments = ()
    #: `{argument: what to use instead}` for the arguments of
    #: `keras.layers.LSTM` that the cell (and its sequence layer) refuses:
    #: the constructor's `ValueError` names the counterpart
    #: (`validation.no_lstm_arguments`; `base_rnn.make_cell` for the layer).
    lstm_counterparts = {}
    #: Whether a step's output is a function of the states it leaves
    #: (`output_from_states`).
    output_in_states = False

    def __init__(self, units, dropout=0.0, seed=None, **kwargs):
        validation.no_lstm_arguments(
            type(self).__name__, kwargs, self.lstm_counterparts
        )
        initializers = {
            name: kwargs.pop(name)
            for name in self.config_arguments
            if isinstance(name, str)
            and name.endswith("_initializer")
            and name in kwargs
        }
        options = {name: kwargs.pop(name, None) for name in self._group_arguments()}
        recurrent_dropout = (
            kwargs.pop("recurrent_dropout", 0.0) if self._has_recurrent else 0.0
        )
        super().__init__(**kwargs)
        self.units = validation.positive_int("units", units)
        # Before the seed generator: an initializer made from a name and the
        # generator made without a seed both draw their seeds from Python's
        # global random state, so this order fixes the weights drawn under
        # `keras.utils.set_random_seed`.
        for name, value in initializers.items():
            setattr(self, name, validation.initializer(name, value))
        for name, value in options.items():
            get = (
                keras.regularizers.get
                if name.endswith("_regularizer")
                else keras.constraints.get
            )
            setattr(self, name, get(value))
        self.dropout = validation.rate("dropout", dropout)
        self.recurrent_dropout = validation.rate("recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed=seed)

    @classmethod
    def base_cell_arguments(cls, local_variables):
        """This class's arguments among a subclass constructor's `locals()`.

        Args:
            local_variables: `locals()` of the subclass's `__init__`.

        Returns:
            `{name: value}` for `dropout`, `recurrent_dropout`, `seed` and
            every `{group}_regularizer` / `{group}_constraint` of
            `weight_groups` that the constructor has.
        """
        names = ("dropout", "recurrent_dropout", "seed", *cls._group_arguments())
        return {
            name: local_variables[name] for name in names if name in local_variables
        }

    @property
    def _has_recurrent(self):
        return "recurrent" in self.weight_groups

    @classmethod
    def _group_arguments(cls):
        """`{group}_regularizer`, `{group}_constraint` for every group."""
        names = [f"{group}_regularizer" for group in cls.weight_groups]
        return names + [f"{group}_constraint" for group in cls.weight_groups]

    def step_input_dim(self, input_shape):
        """The feature size of the step input `[batch, features]` given to
        `build` (checked by `validation.step_input_dim`). Sets the cell's
        `input_spec`, so that a later call on another feature size (also
        inside `keras.layers.RNN`) gets Keras's message naming both sizes."""
        input_dim = validation.step_input_dim(self, input_shape)
        self.input_spec = keras.layers.InputSpec(axes={-1: input_dim})
        return input_dim

    def add_cell_weight(self, name, shape, initializer, group):
        """A weight of `group` (one of `weight_groups`), with that group's
        regularizer and constraint, drawn on its own (`independent`: one
        initializer argument may serve several weights), autocast under
        mixed precision as `autocast_weights` says."""
        validation.one_of("group", group, self.weight_groups)
        return self.add_weight(
            shape=shape,
            name=name,
            initializer=independent(initializer, name),
            regularizer=getattr(self, f"{group}_regularizer"),
            constraint=getattr(self, f"{group}_constraint"),
            autocast=self.autocast_weights,
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

    def output_from_states(self, states):
        """The output of the step that left `states`, where
        `output_in_states` (else None).

        Keras's recurrent layers repeat the previous output at a masked
        step, which keeps the states (zeros before the first real step); a
        streaming step model (`keras_rda.streaming`) computes that output
        from the kept states where it can, and otherwise carries it as one
        more state.

        Args:
            states: the flat states after a step, each `[batch, size]`.

        Returns:
            `[batch, output_size]`, or None.
        """
        del states
        return None

    def get_config(self):
        config = super().get_config()
        names = ["units", *self.config_arguments, *self._group_arguments()]
        names.append("dropout")
        if self._has_recurrent:
            names.append("recurrent_dropout")
        names.append("seed")
        for entry in names:
            name, attribute = (entry, entry) if isinstance(entry, str) else entry
            value = getattr(self, attribute)
            for suffix, serialize in _SERIALIZERS.items():
                if name.endswith(suffix):
                    value = serialize(value)
            config[name] = value
        return config
