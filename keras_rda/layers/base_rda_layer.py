"""The base of the RWA / RDA family of sequence layers: `RWA`, `RDA`,
`ParallelRDA`."""

from keras import ops

from keras_rda.layers.base_rnn import BaseRNN
from keras_rda.ops import kernels
from keras_rda.ops import rda_recurrence
from keras_rda.utils import keras_compat


class BaseRDALayer(BaseRNN):
    """`keras.layers.RNN` over a cell of the RDA family (`BaseRDACell`),
    computed faster (not public).

    The same unit as `keras.layers.RNN(cell)` (outputs, states and gradients
    are tested equal). All three layers replace Keras's loop
    (`inner_loop`) by one that applies the input dropout to the whole
    sequence (one mask), projects the inputs `W x_t + b` of all time steps
    in one matmul before the recurrence, keeps the running sums in the
    cell's accumulation dtype (float32 under mixed precision), and follows
    Keras's conventions for masked steps (`hide_masked_outputs`). Where they
    differ is `sequence_loop`.

    Where the gates read `h_{t-1}` (`RWA`, `RDA`) the loop is computed as
    cuDNN computes an LSTM: on every backend it is the fused recurrence of
    `keras_rda.ops.rda_recurrence`, with a hand-written backward pass whose
    weight gradients are one matmul each over all time steps (on PyTorch
    one `torch.autograd.Function` with the loop inside). With `unroll=True`, where
    the average can empty to a learned `s0` (`cell.empties_to_s0`), or with
    `fused_recurrence = False` (an attribute, not part of the config: the
    reference the fused pass is tested against), it is Keras's `rnn` over
    the cell's own step, differentiated by the backend.

    `ParallelRDA`, whose gates read only `x_t`, overrides `sequence_loop`
    with a scan over time (`keras_rda.ops.parallel_scan`).

    Kernels. On a GPU with JAX or PyTorch the recurrence (and
    `ParallelRDA`'s scan) can run as one fused kernel per pass
    (`keras_rda.ops.kernels`: Pallas on JAX, Triton on PyTorch), chosen by
    `use_kernel` as Keras's LSTM chooses cuDNN by `use_cudnn`: `"auto"`
    runs it only on a device class where a committed GPU record shows it
    faster than the path above (`kernels.MEASURED_FASTER`; none yet), else
    that path, with the same results; `True` runs it wherever it can run
    (one `ValueError` saying why it cannot); `False` never runs it.
    `kernel_precision` (RWA, RDA) is that of the recurrence kernel's per-step
    matmuls, `"float32"` (IEEE, the default), `"tf32"` or `"bfloat16"`
    (`kernels.KERNEL_PRECISIONS`); the portable path ignores it, as PyTorch
    ignores its TF32 switch where no TF32 unit is, so that a model configured
    for a GPU loads and runs unchanged on any backend and device.
    `ParallelRDA`'s scan has no matmul and does not take it.

    Subclasses build their cell and pass the `keras.layers.RNN` arguments
    on (`keras_rda.layers.base_rnn.make_cell`).
    """

    #: Whether to use the fused recurrence where the backend supports it.
    fused_recurrence = True

    def __init__(self, cell, use_kernel="auto", kernel_precision="float32", **kwargs):
        super().__init__(cell, **kwargs)
        self.use_kernel = kernels.validate_use_kernel(use_kernel)
        self.kernel_precision = kernels.validate_kernel_precision(kernel_precision)

    @property
    def units(self):
        return self.cell.units

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def inner_loop(self, sequences, initial_state, mask, training=False):
        """Keras's loop, replaced; its contract: returns
        `(last_output, outputs, final_states)`."""
        cell = self.cell
        if training and cell.dropout > 0:
            dp_mask = cell.get_dropout_mask(sequences[:, 0, :])
            sequences = sequences * ops.expand_dims(dp_mask, 1)
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return self.sequence_loop(sequences, initial_state, mask, training)

    def hide_masked_outputs(self, outputs, mask, axis):
        """`keras.layers.RNN`'s outputs at masked steps: a masked step
        repeats the previous output (the loops leave the state, so its
        output, unchanged), zeros before the first real step; zeros at every
        masked step with `zero_output_for_mask`.

        Args:
            outputs: the outputs, time on `axis`.
            mask: boolean, broadcastable to `outputs`.
            axis: the time axis.
        """
        shown = mask
        if not self.zero_output_for_mask:
            shown = ops.cumsum(ops.cast(mask, "int32"), axis=axis) > 0
        return ops.where(shown, outputs, ops.zeros_like(outputs))

    def sequence_loop(self, sequences, initial_state, mask, training=False):
        """The recurrence over `sequences` (input dropout applied), as
        `inner_loop` returns it."""
        cell = self.cell
        acc = cell.accumulation_dtype
        # The whole recurrence in the accumulation dtype (float32 under
        # mixed precision: see `BaseRDACell`, Numerics).
        h0, n0, d0, m0 = (ops.cast(s, acc) for s in initial_state)
        # A zero (reset) state starts from `h_0` (see `BaseRDACell`).
        initial_state = [cell.read_hidden_state(h0, d0), n0, d0, m0]
        batch, time = sequences.shape[:2]
        workload = kernels.Workload(
            "recurrence", batch, time, cell.units, cell.num_blocks
        )
        kernel = kernels.choose(
            self.use_kernel, self._kernel_unsupported(), self.name, workload
        )
        if kernel or (
            self.fused_recurrence
            and not self.unroll
            and rda_recurrence.supports_fused()
            and not cell.empties_to_s0
        ):
            return self._fused_loop(sequences, initial_state, mask, training, kernel)
        return self._autodiff_loop(sequences, initial_state, mask, training)

    def _kernel_unsupported(self):
        """What in this layer's configuration the fused kernel does not
        compute, or None."""
        cell = self.cell
        if self.unroll:
            return "unroll=True asks for the unrolled step loop"
        if cell.empties_to_s0:
            return (
                "with ReLU attention and a learned initial state the average "
                "can be empty after a step, which the cell's own step handles"
            )
        if cell.accumulation_dtype != "float32":
            return (
                "the kernels compute in float32, and this layer computes in "
                f"{cell.accumulation_dtype}"
            )
        if not self.fused_recurrence:
            return "the layer's fused_recurrence attribute is off"
        if cell.units > kernels.MAX_RECURRENCE_UNITS:
            return (
                f"the recurrence kernel keeps a row's state on chip, up to "
                f"{kernels.MAX_RECURRENCE_UNITS} units; this layer has {cell.units}"
            )
        return None

    def _autodiff_loop(self, sequences, initial_state, mask, training):
        """Keras's loop over the cell's step, differentiated by the backend."""
        cell = self.cell
        projected = cell.project_inputs(sequences)  # [batch, time, k * units]

        def step(inputs, states):
            return cell.projected_step(inputs, states, training=training)

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

    def _fused_loop(self, sequences, initial_state, mask, training, kernel=False):
        """The fused recurrence, time-major, with Keras's `rnn` conventions:
        `go_backwards` returns the outputs in processing order, and a masked
        step repeats the previous output (0 before the first real step), or
        gives 0 with `zero_output_for_mask`. With `kernel`, the recurrence
        is the backend's fused kernel (`keras_rda.ops.kernels`)."""
        cell = self.cell
        time_major = ops.transpose(sequences, (1, 0, 2))
        if mask is not None:
            mask = ops.expand_dims(ops.transpose(ops.cast(mask, "bool")), -1)
        if self.go_backwards:
            time_major = ops.flip(time_major, axis=0)
            mask = None if mask is None else ops.flip(mask, axis=0)
        acc = cell.accumulation_dtype
        # The fused recurrence adds the bias itself, and where the inputs are
        # narrow it projects each step itself too (no [time, batch, k * units]
        # tensor then); the kernels take the projections of all steps.
        bias = input_kernel = None
        if not kernel and cell.use_bias:
            bias = ops.cast(cell.bias, acc)
        # The input width from the built kernel, known even where the
        # inputs' shape is not (a `tf.data` pipeline of unknown shapes).
        if not kernel and rda_recurrence.projects_in_loop(
            cell.kernel.shape[0], cell.units
        ):
            input_kernel = ops.cast(cell.kernel, acc)
            projected = ops.cast(time_major, acc)  # [time, batch, input_dim]
        else:
            projected = cell.project_inputs(time_major, add_bias=bias is None)
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
        arguments = dict(mask=mask, recurrent_mask=recurrent_mask)
        if kernel:
            recurrence = kernels.recurrence
            arguments.update(precision=self.kernel_precision)
        else:
            recurrence = rda_recurrence.fused_recurrence
            arguments.update(bias=bias, input_kernel=input_kernel)
        hidden, n, d, m = recurrence(
            projected,
            ops.cast(cell.recurrent_kernel, projected.dtype),
            initial_state,
            spec,
            **arguments,
        )
        h = hidden[-1]
        outputs = cell.output_from_hidden(hidden)
        if mask is not None:
            outputs = self.hide_masked_outputs(outputs, mask, axis=0)
        last_output = outputs[-1]
        if self.return_sequences:
            outputs = ops.transpose(outputs, (1, 0, 2))
        else:
            outputs = ops.expand_dims(last_output, 1)
        return last_output, outputs, [h, n, d, m]

    def get_config(self):
        config = super().get_config()
        config["use_kernel"] = self.use_kernel
        config["kernel_precision"] = self.kernel_precision
        return config
