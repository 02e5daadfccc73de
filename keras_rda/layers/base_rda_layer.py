"""Base class of the RWA and RDA sequence layers: the fast recurrence."""

from keras import ops

from keras_rda.layers.base_rnn import BaseRNN
from keras_rda.ops import attention_average
from keras_rda.ops import rda_recurrence
from keras_rda.utils import keras_compat


class BaseRDALayer(BaseRNN):
    """`keras.layers.RNN` over a `BaseRDACell`, computed faster.

    The same unit as `keras.layers.RNN(cell)` (outputs, states and gradients
    are tested equal), computed as cuDNN computes an LSTM:

    - the input projections `W x_t + b` of all time steps are one matmul
      `[time, batch, input_dim] x [input_dim, k * units]` before the loop;
    - on TensorFlow and JAX the loop is the fused recurrence of
      `keras_rda.ops.rda_recurrence`, with a hand-written backward pass
      whose weight gradients are one matmul each over all time steps;
    - with mixed precision the running sums stay in float32 throughout.

    On other backends (PyTorch), with `unroll=True`, with ReLU attention and
    a learned `s0` (whose empty average is `s0`), or with
    `fused_recurrence = False` (an attribute, not part of the config: the
    reference the fused pass is tested against), the loop is Keras's
    `rnn` over the cell's own step, differentiated by the backend.

    Subclasses (`RWA`, `RDA`) only build their cell.
    """

    #: Whether to use the fused recurrence where the backend supports it.
    fused_recurrence = True

    def inner_loop(self, sequences, initial_state, mask, training=False):
        cell = self.cell
        if training and cell.dropout > 0:
            dp_mask = cell.get_dropout_mask(sequences[:, 0, :])
            sequences = sequences * ops.expand_dims(dp_mask, 1)
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        acc = cell.accumulation_dtype
        h0, n0, d0, m0 = initial_state
        n0, d0, m0 = (ops.cast(s, acc) for s in (n0, d0, m0))
        # A zero (reset) state starts from `h_0` (see `BaseRDACell`).
        initial_state = [cell.read_hidden_state(h0, d0), n0, d0, m0]
        if (
            self.fused_recurrence
            and not self.unroll
            and rda_recurrence.supports_fused()
            and not _empties_to_s0(cell)
        ):
            return self._fused_loop(sequences, initial_state, mask, training)
        return self._autodiff_loop(sequences, initial_state, mask, training)

    def _autodiff_loop(self, sequences, initial_state, mask, training):
        """Keras's loop over the cell's step, differentiated by the backend."""
        cell = self.cell
        projected = cell.project_inputs(sequences)  # [batch, time, k * units]

        def step(inputs, states):
            return cell.recurrent_step(inputs, states, training=training)

        return keras_compat.rnn(
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

    def _fused_loop(self, sequences, initial_state, mask, training):
        """The fused recurrence, time-major, with Keras's `rnn` conventions:
        `go_backwards` returns the outputs in processing order, and a masked
        step repeats the previous output (0 before the first real step), or
        gives 0 with `zero_output_for_mask`."""
        cell = self.cell
        time_major = ops.transpose(sequences, (1, 0, 2))
        if mask is not None:
            mask = ops.expand_dims(ops.transpose(ops.cast(mask, "bool")), -1)
        if self.go_backwards:
            time_major = ops.flip(time_major, axis=0)
            mask = None if mask is None else ops.flip(mask, axis=0)
        projected = cell.project_inputs(time_major)  # [time, batch, k * units]
        recurrent_mask = None
        if training and cell.recurrent_dropout > 0:
            recurrent_mask = cell.get_recurrent_dropout_mask(initial_state[0])
        spec = rda_recurrence.RecurrenceSpec(
            units=cell.units,
            discount=cell.discount,
            attention_activation=cell.attention_activation,
            hidden_activation=cell.hidden_activation,
            acc_dtype=cell.accumulation_dtype,
        )
        hidden, n, d, m = rda_recurrence.fused_recurrence(
            projected,
            ops.cast(cell.recurrent_kernel, projected.dtype),
            initial_state,
            spec,
            mask=mask,
            recurrent_mask=recurrent_mask,
        )
        h = hidden[-1]
        outputs = ops.cast(
            attention_average.apply_activation(hidden, cell.output_activation),
            cell.compute_dtype,
        )
        if mask is not None:
            keep = (
                mask
                if self.zero_output_for_mask
                else ops.cumsum(ops.cast(mask, "int32"), axis=0) > 0
            )
            outputs = ops.where(keep, outputs, ops.zeros_like(outputs))
        last_output = outputs[-1]
        if self.return_sequences:
            outputs = ops.transpose(outputs, (1, 0, 2))
        else:
            outputs = ops.expand_dims(last_output, 1)
        return last_output, outputs, [h, n, d, m]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    @property
    def units(self):
        return self.cell.units


def _empties_to_s0(cell):
    """Whether the average can be empty after a step with a learned `s0`
    (ReLU attention): the fused recurrence treats the empty average as 0,
    so this case runs the cell's own step."""
    return cell.initial_state is not None and cell.attention_activation == "relu"
