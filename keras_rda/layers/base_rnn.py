"""What the package's sequence layers over one cell share.

`RWA`, `RDA`, `ParallelRDA`, `DNC` and `NTM` are used like
`keras.layers.LSTM`: each constructor lists the arguments of its cell and of
`keras.layers.RNN` explicitly (the signature `help()` and IDEs show), builds
the cell from the former and passes the latter on (`make_cell`). Their
config is flat, the cell's arguments next to the layer's (`BaseRNN`), so
`from_config` is the constructor.
"""

import keras
from keras import ops
from keras import tree

from keras_rda.utils import validation

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

    Raises:
        ValueError: for an argument of `keras.layers.LSTM` in
            `layer_kwargs` that the cell names in its `lstm_counterparts`
            (`activation=` to an `RDA`), saying what the layer takes
            instead (the layer is the cell class's name without `Cell`).
    """
    validation.no_lstm_arguments(
        cell_class.__name__.removesuffix("Cell"),
        layer_kwargs,
        getattr(cell_class, "lstm_counterparts", {}),
    )
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

    Bad input gets a `ValueError` naming it before the backend sees it: the
    boolean arguments of `keras.layers.RNN` must be booleans; `build` checks
    for `[batch, time, features]` inputs with known features and sets the
    `input_spec` (a later call on another feature size gets Keras's
    message); `call` refuses a sequence of no steps (known when tracing),
    an `initial_state` that is not one `[batch, size]` tensor per entry of
    the cell's `state_size`, and a mask whose shape is not the inputs'
    `[batch, time]`, and zeroes the inputs of masked steps, so that a NaN
    or inf there changes nothing (masked steps are skipped; their inputs
    are not read). A batch of no samples (known when tracing) gives outputs
    and states of no samples, as on a batch of one with the sample left out
    (whatever the cell: Keras's `LSTMCell` controller fails on an empty
    batch on TensorFlow).
    """

    def __init__(self, cell, **kwargs):
        for name in RNN_ARGUMENTS:
            if name in kwargs and name != "activity_regularizer":
                kwargs[name] = validation.boolean(name, kwargs[name])
        super().__init__(cell, **kwargs)

    def build(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        if len(sequences_shape) != 3 or sequences_shape[-1] is None:
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected a 3D "
                "tensor [batch, time, features] with a known feature size, got "
                f"shape {sequences_shape}"
            )
        super().build(sequences_shape, initial_state_shape)
        self.input_spec = keras.layers.InputSpec(
            ndim=3, axes={-1: int(sequences_shape[-1])}
        )

    def call(self, sequences, initial_state=None, mask=None, training=False):
        validation.sequence_steps(sequences)
        if initial_state is not None:
            validation.cell_states(
                self, self.cell.state_size, initial_state, sequences.shape[0]
            )
        step_mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        if step_mask is not None:
            validation.sequence_mask(step_mask, sequences)
            # A masked step's input never reaches the outputs, states or
            # gradients, even where it is NaN or inf (0 * NaN is NaN).
            sequences = ops.where(
                ops.expand_dims(ops.cast(step_mask, "bool"), -1),
                sequences,
                ops.zeros_like(sequences),
            )
        if sequences.shape[0] == 0 and not self.stateful:
            return self._call_on_no_samples(sequences, initial_state, mask, training)
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def _call_on_no_samples(self, sequences, initial_state, mask, training):
        """`call` on a batch of no samples: the call on one zero sample
        (a real step where there is a mask), of which every output and
        state keeps no sample."""

        def add_sample(x, value=0):
            padding = [(0, 1)] + [(0, 0)] * (len(x.shape) - 1)
            return ops.pad(x, padding, constant_values=value)

        if initial_state is not None:
            initial_state = tree.map_structure(add_sample, initial_state)
        if mask is not None:
            mask = tree.map_structure(
                lambda m: ops.cast(add_sample(ops.cast(m, "int32"), 1), "bool"), mask
            )
        results = super().call(
            add_sample(sequences),
            initial_state=initial_state,
            mask=mask,
            training=training,
        )
        return tree.map_structure(lambda x: x[:0], results)

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
