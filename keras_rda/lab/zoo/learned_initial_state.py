"""`LearnedInitialState`: trained initial states for Keras's LSTM and GRU."""

import keras

from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class LearnedInitialState(keras.layers.Wrapper):
    """Runs a Keras recurrent layer from trained initial states.

    `keras.layers.LSTM` and `keras.layers.GRU` start from zeros; the RDA
    paper lets every model of its comparison learn its initial state
    (section 6.3, Table 2). This wrapper holds `num_states` trained vectors
    `[units]` (zeros at the start) and calls the wrapped layer with them,
    tiled to the batch, as `initial_state`, and the mask passed on
    explicitly (Keras's functional API does not hand a mask to a recurrent
    layer called with `initial_state=`).

    Args:
        layer: a Keras recurrent layer with `units` (e.g. `keras.layers.LSTM`).
        num_states: how many states the layer takes (2 for an LSTM's
            `[h, c]`, 1 for a GRU).

    Example:
        >>> layer = LearnedInitialState(keras.layers.LSTM(250), num_states=2)
    """

    def __init__(self, layer, num_states, **kwargs):
        super().__init__(layer, **kwargs)
        self.num_states = validation.positive_int("num_states", num_states)
        self.supports_masking = True

    def build(self, input_shape):
        if not self.layer.built:
            self.layer.build(input_shape)
        self.states = [
            self.add_weight(
                shape=(self.layer.units,), initializer="zeros", name=f"state_{i}"
            )
            for i in range(self.num_states)
        ]
        self.built = True

    def call(self, sequences, mask=None, training=False):
        batch_size = keras.ops.shape(sequences)[0]
        initial_state = [
            keras.ops.broadcast_to(
                keras.ops.cast(state, sequences.dtype), (batch_size, self.layer.units)
            )
            for state in self.states
        ]
        return self.layer(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def compute_mask(self, sequences, mask=None):
        return self.layer.compute_mask(sequences, mask)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(num_states=self.num_states)
        return config
