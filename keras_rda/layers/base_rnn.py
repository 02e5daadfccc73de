"""What the package's sequence layers over one cell share.

`RWA`, `RDA`, `ParallelRDA`, `DNC` and `NTM` are used like
`keras.layers.LSTM`: each constructor lists the arguments of its cell and of
`keras.layers.RNN` explicitly (the signature `help()` and IDEs show), builds
the cell from the former and passes the latter on (`make_cell`). Their
config is flat, the cell's arguments next to the layer's (`BaseRNN`), so
`from_config` is the constructor.
"""

import keras

#: The arguments of the layers' constructors that are `keras.layers.RNN`'s.
RNN_ARGUMENTS = (
    "return_sequences",
    "return_state",
    "go_backwards",
    "stateful",
    "unroll",
    "zero_output_for_mask",
    "activity_regularizer",
)

# Keys of a cell config that belong to the layer, not to the unit.
_LAYER_KEYS = ("name", "trainable", "dtype")


def make_cell(cell_class, name, arguments, layer_kwargs):
    """The cell of a sequence layer, and the arguments left for `RNN`.

    Args:
        cell_class: the cell's class.
        name: the cell's name inside the layer.
        arguments: the layer constructor's named arguments
            (`keras_rda.utils.arguments.constructor_arguments(locals())`):
            those in `RNN_ARGUMENTS`
            are returned, the others are the cell's.
        layer_kwargs: the layer's `**kwargs`; the cell takes its `dtype`
            and `trainable`.

    Returns:
        `(cell, rnn_arguments)`.
    """
    cell_arguments = dict(arguments)
    rnn_arguments = {
        key: cell_arguments.pop(key) for key in RNN_ARGUMENTS if key in arguments
    }
    cell = cell_class(
        **cell_arguments,
        dtype=layer_kwargs.get("dtype"),
        trainable=layer_kwargs.get("trainable", True),
        name=name,
    )
    return cell, rnn_arguments


class BaseRNN(keras.layers.RNN):
    """`keras.layers.RNN` whose config holds its cell's arguments (not public).

    `get_config` is the RNN's config without `cell`, with the cell's
    arguments in its place; `from_config` calls the constructor with it.
    `build` checks for `[batch, time, features]` inputs with known features.
    """

    def build(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        if len(sequences_shape) != 3 or sequences_shape[-1] is None:
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected a 3D "
                "tensor [batch, time, features] with a known feature size, got "
                f"shape {sequences_shape}"
            )
        super().build(sequences_shape, initial_state_shape)

    def get_config(self):
        config = super().get_config()
        config.pop("cell")
        cell_config = self.cell.get_config()
        for key in _LAYER_KEYS:
            cell_config.pop(key, None)
        return {**config, **cell_config}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
