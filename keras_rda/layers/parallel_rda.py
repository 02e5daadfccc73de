"""The parallel Recurrent Discounted Attention sequence layer."""

import keras
from keras import ops

from keras_rda.cells.parallel_rda_cell import ParallelRDACell
from keras_rda.layers.base_rda_layer import BaseRDALayer
from keras_rda.layers.base_rnn import make_cell
from keras_rda.ops import kernels
from keras_rda.ops import parallel_scan
from keras_rda.utils import validation
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class ParallelRDA(BaseRDALayer):
    """Parallel Recurrent Discounted Attention layer, used like
    `keras.layers.LSTM`.

    The RDA (RDA paper, section 5) with gates that read only `x_t`
    (`ParallelRDACell`). The discounted running average

        n_t = n_{t-1} * gamma_t + z_t * a_t,   d_t = d_{t-1} * gamma_t + a_t

    is then a linear recurrence; it is computed for all steps at once by a
    scan of the associative combination of segment summaries (see
    `keras_rda.ops.parallel_scan`), in the scaled, overflow-free form of
    `keras_rda.ops.attention_average`. No loop of `T` steps: the
    sequential depth is `chunk_size + 8 log_8(T / chunk_size)` with a known
    length, `chunk_size + T / chunk_size` without (`"chunked"`), or
    `O(log T)` (`"associative"`). Outputs and final states equal
    `keras.layers.RNN(ParallelRDACell(...))` with the same weights, to float
    rounding.

    Args:
        units: positive integer, dimensionality of the output space.
        attention_activation: `f_a`, one of `"exp"`, `"sigmoid"` (default),
            `"softplus"`, `"relu"`.
        hidden_activation: `f_h`, `"linear"` (default) or `"tanh"`.
        output_activation: `f_o`, `"linear"` (default) or `"tanh"`.
        use_bias: whether to use the biases.
        unit_discount_bias: if True (default), the discount-gate bias starts
            at 1.
        discount_bias_initializer: initializer of the discount gate's bias
            block alone, replacing `unit_discount_bias` where given (see
            `RDACell`). Default None.
        kernel_initializer: initializer of each gate block of `kernel`.
            Default `"glorot_uniform"` per block.
        bias_initializer: initializer of the biases. Default `"zeros"`.
        kernel_regularizer: regularizer of `kernel`.
        bias_regularizer: regularizer of `bias`.
        activity_regularizer: regularizer on the layer's output.
        kernel_constraint: constraint of `kernel`.
        bias_constraint: constraint of `bias`.
        dropout: float in [0, 1), fraction of the inputs to drop (one mask
            per sequence).
        seed: random seed for dropout.
        return_sequences: whether to return the output at every step
            (`[batch, time, units]`) or the last (`[batch, units]`).
        return_state: whether to also return the final state `n, d, m`
            (three `[batch, units]` tensors), to pass as `initial_state` to
            the next truncated-BPTT segment.
        go_backwards: if True, process the sequence backwards and return the
            reversed sequence.
        stateful: if True, the final state of batch i is the initial state of
            batch i in the next call.
        zero_output_for_mask: if True, masked steps output zeros; else they
            repeat the previous output (zeros before the first real step), as
            `keras.layers.RNN`.
        scan_method: `"chunked"` (default) or `"associative"`
            (`keras.ops.associative_scan`); see
            `keras_rda.ops.parallel_scan`.
        chunk_size: steps per chunk of the chunked scan (default 8).
            `benchmarks/parallel_rda_speed.py --chunk-sizes ...` times
            chunk sizes and both methods against `keras.layers.LSTM`
            (records in `results/benchmarks/`, docs/benchmarks.md).
        use_kernel: `"auto"` (default), True or False: whether to run the
            scan as a fused GPU kernel (chunked, two passes; Pallas on JAX,
            Triton on PyTorch), as `keras.layers.LSTM`'s `use_cudnn`.
            `"auto"` runs the scan above until a committed GPU measurement
            shows the kernel faster on that backend and device class (none
            does yet), so it never runs slower or raises where the scan
            above runs. True runs the kernel where it can: a CUDA GPU of
            compute capability 8.0 or later, float32 or mixed precision,
            within its size limits (fewer than 2**31 elements); elsewhere
            it raises a `ValueError` saying why. False never runs it.
            `scan_method` and `chunk_size` choose the portable scan. (The
            scan has no matmul, so unlike `RDA` and `RWA` there is no
            `kernel_precision`.)
        **kwargs: base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `[batch, time, features]`.
        initial_state: optional list `[n, d, m]` of `[batch, units]`, e.g.
            the `return_state` of the previous segment.
        mask: optional boolean `[batch, time]`; a masked step is the scan's
            identity (the state is unchanged).
        training: whether dropout is applied.

    Weights:
        The cell's, in the same order: `kernel` `[input_dim, 4 * units]`
        (blocks u, g, a, gamma) and `bias` `[4 * units]` (u, g, a, gamma);
        `RDA`'s layout without `recurrent_kernel`.

    Numerics:
        Finite inputs give finite outputs for any sequence length. A NaN or
        inf in one sample's input stays in that sample: its outputs from
        that step on become non-finite, its earlier outputs and the other
        samples' do not change. A masked step's input is not read, so a NaN
        there changes nothing. Under mixed precision the layer computes in
        float32, from the input projection to the state (the weights are
        not autocast), and returns outputs in the compute dtype, so its
        gradients stay finite where float16 would overflow (large inputs,
        long sequences).

    Example:

    ```python
    model = keras.Sequential([
        keras.Input((None, 2)),
        keras_rda.ParallelRDA(128),
        keras.layers.Dense(1),
    ])
    # truncated BPTT: carry the state from one segment to the next
    x = np.random.rand(4, 2000, 2).astype("float32")
    layer = keras_rda.ParallelRDA(128, return_sequences=True, return_state=True)
    y1, *state = layer(x[:, :1000])
    y2, *state = layer(x[:, 1000:], initial_state=state)
    ```

    Reference:
        "Efficiently applying attention to sequential data with the
        Recurrent Discounted Attention unit", section 5 (equations) and 5.1;
        the gates here read only `x_t`.
    """

    def __init__(
        self,
        units,
        attention_activation="sigmoid",
        hidden_activation="linear",
        output_activation="linear",
        use_bias=True,
        unit_discount_bias=True,
        discount_bias_initializer=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        zero_output_for_mask=False,
        scan_method="chunked",
        chunk_size=8,
        use_kernel="auto",
        **kwargs,
    ):
        kwargs.pop("unroll", None)  # nothing to unroll
        if "kernel_precision" in kwargs:
            raise ValueError(
                "Received an invalid argument `kernel_precision="
                f"{kwargs['kernel_precision']!r}` for `ParallelRDA`: its scan "
                "kernel has no matmul whose precision to choose (`RDA` and "
                "`RWA` take it, for their recurrent matmul)"
            )
        cell_arguments = constructor_arguments(
            locals(), ["scan_method", "chunk_size", "use_kernel"]
        )
        cell, rnn_arguments = make_cell(
            ParallelRDACell, "parallel_rda_cell", cell_arguments, kwargs
        )
        super().__init__(cell, use_kernel=use_kernel, **rnn_arguments, **kwargs)
        self.scan_method = validation.one_of(
            "scan_method", scan_method, parallel_scan.METHODS
        )
        self.chunk_size = validation.positive_int("chunk_size", chunk_size)

    def sequence_loop(self, sequences, initial_state, mask, training=False):
        """The scan in place of a loop of `T` steps (the gates read only
        `x_t`)."""
        cell = self.cell
        if self.go_backwards:
            sequences = ops.flip(sequences, axis=1)
            if mask is not None:
                mask = ops.flip(mask, axis=1)

        z, log_a, log_gamma, positive = cell.gate_terms(sequences)
        if mask is not None:
            # A masked step is the identity: a_t = 0 and gamma_t = 1.
            step_mask = ops.expand_dims(ops.cast(mask, "bool"), -1)
            log_gamma = ops.where(step_mask, log_gamma, ops.zeros_like(log_gamma))
            # (and a placeholder log a_t = 0, so that m stays what the cell's
            # skipped step leaves where nothing is attended yet)
            log_a = ops.where(step_mask, log_a, ops.zeros_like(log_a))
            positive = (
                step_mask if positive is None else ops.logical_and(positive, step_mask)
            )
        acc = cell.accumulation_dtype
        state = [ops.cast(s, acc) for s in initial_state]
        workload = kernels.Workload("scan", *z.shape)
        if kernels.choose(
            self.use_kernel, self._kernel_unsupported(), self.name, workload
        ):
            averages, final_state = kernels.discounted_average_scan(
                z, log_a, log_gamma, positive, state
            )
        else:
            averages, final_state = parallel_scan.discounted_average_scan(
                z,
                log_a,
                log_gamma,
                positive,
                state,
                method=self.scan_method,
                chunk_size=self.chunk_size,
            )
        outputs = cell.output_from_hidden(cell.hidden_from_average(averages))
        if mask is not None:
            outputs = self.hide_masked_outputs(outputs, step_mask, axis=1)
        final_state = [ops.cast(s, d.dtype) for s, d in zip(final_state, initial_state)]
        return outputs[:, -1], outputs, final_state

    def _kernel_unsupported(self):
        """What in this layer's configuration the fused scan kernel does not
        compute, or None."""
        acc = self.cell.accumulation_dtype
        if acc != "float32":
            return f"the kernels compute in float32, and this layer computes in {acc}"
        return None

    def get_config(self):
        config = super().get_config()
        config.pop("unroll", None)
        config.pop("kernel_precision", None)
        config.update(scan_method=self.scan_method, chunk_size=self.chunk_size)
        return config
