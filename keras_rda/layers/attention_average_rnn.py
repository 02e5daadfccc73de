"""Base class of the RWA and RDA sequence layers: the fast recurrence."""

import keras
from keras import ops
from keras.src import backend

# Keys of a cell config that belong to the layer, not to the unit.
_LAYER_KEYS = ("name", "trainable", "dtype")


class AttentionAverageRNN(keras.layers.RNN):
    """`keras.layers.RNN` over an `AttentionAverageCell`, computed faster.

    Numerically the same as `keras.layers.RNN(cell)`: the same cell code
    computes every step. The difference is where the input projection
    happens: `W [x_t] + b` for all time steps is one matmul
    `[batch, time, input_dim] x [input_dim, k * units]` before the loop, and
    only the recurrent matmul `h_{t-1} W_h` and the element-wise average stay
    inside it. With mixed precision the running sums travel through the
    loop in float32.

    Subclasses (`RWA`, `RDA`) only build their cell.
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

    def inner_loop(self, sequences, initial_state, mask, training=False):
        cell = self.cell
        if training and cell.dropout > 0:
            dp_mask = cell.get_dropout_mask(sequences[:, 0, :])
            sequences = sequences * ops.expand_dims(dp_mask, 1)
        projected = cell.project_inputs(sequences)  # [batch, time, k * units]

        acc = cell.accumulation_dtype
        h0, n0, d0, m0 = initial_state
        initial_state = [h0] + [ops.cast(s, acc) for s in (n0, d0, m0)]

        def step(inputs, states):
            return cell.recurrent_step(inputs, states, training=training)

        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return backend.rnn(
            step,
            projected,
            initial_state,
            go_backwards=self.go_backwards,
            mask=mask,
            unroll=self.unroll,
            input_length=sequences.shape[1],
            zero_output_for_mask=self.zero_output_for_mask,
            return_all_outputs=self.return_sequences,
        )

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def reset_state(self):
        """Resets a stateful layer to the cell's initial state (`h_0 = f_h(s0)`
        when learned, rather than zeros)."""
        if self.states is None:
            return
        batch_size = self.states[0].shape[0]
        for variable, value in zip(
            self.states, self.cell.get_initial_state(batch_size)
        ):
            variable.assign(ops.cast(value, variable.dtype))

    @property
    def units(self):
        return self.cell.units

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
