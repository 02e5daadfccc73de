"""An LSTM controller's step over a stretch with held read vectors.

Between two memory accesses the read vectors `r` are constant (Le et al.
2019, Algorithm 1: `r_t = r_{t-1}` on a step without access), so an LSTM
controller's gates `W [x_t, r] + U h_{t-1} + b` (Graves et al. 2016,
Methods) contain a term `W_r r + b` that is the same on every step of the
stretch. `lstm_step_with_held_reads` computes it once, before the loop, and
the loop reads `x_t` alone: no `[x_t, r]` concatenation and no `W_r r`
matmul per step. This is why it exists: the layers' static path
(`BaseMemoryCell.steps_without_access`) spends most of its time in these
loops, and `benchmarks/memory_speed.py` measures it (the layers against the
`no memory` model; records under `results/benchmarks/`).

It is a copy of `keras.layers.LSTMCell`'s gates (`LSTMCell.call`,
`implementation=2`): the kernel's columns in the order `i, f, c, o`, its
`activation`, `recurrent_activation` and `use_bias`, in its compute dtype.
`tests/memory/test_held_reads_lstm.py` ties it to `LSTMCell` numerically on
every backend, so a change of Keras's gates or kernel layout fails there
instead of changing a DNC's numbers silently.
"""

import keras
from keras import ops


def lstm_step_with_held_reads(controller, reads):
    """The LSTM controller's step with the held reads' gates done once.

    Args:
        controller: the memory cell's controller, fed `[x_t, r]`: its kernel
            is `[input_dim + R * W, 4 * units]`, the held reads' rows last.
        reads: `[B, R * W]`, the held `r` (the kernel's last `R * W` rows:
            the width of `x_t` need not be known when tracing).

    Returns:
        `step(x_t, [h, c]) -> (h_t, [h_t, c_t])` for the backend's loop, with
        `x_t` `[B, input_dim]`, or None when `controller` is not a
        `keras.layers.LSTMCell` without dropout (a subclass may change its
        `call`; dropout draws masks): then the caller runs the controller
        itself on `[x_t, r]`.
    """
    if (
        type(controller) is not keras.layers.LSTMCell
        or controller.dropout
        or controller.recurrent_dropout
    ):
        return None
    dtype = controller.compute_dtype
    kernel = ops.cast(controller.kernel, dtype)
    input_size = controller.kernel.shape[0] - reads.shape[-1]
    input_kernel = kernel[:input_size]
    held_gates = ops.matmul(ops.cast(reads, dtype), kernel[input_size:])
    if controller.use_bias:
        held_gates = held_gates + ops.cast(controller.bias, dtype)
    recurrent_kernel = ops.cast(controller.recurrent_kernel, dtype)
    activation = controller.activation
    gate = controller.recurrent_activation

    def step(step_inputs, flat):
        h, c = (ops.cast(s, dtype) for s in flat)
        z = (
            ops.matmul(ops.cast(step_inputs, dtype), input_kernel)
            + held_gates
            + ops.matmul(h, recurrent_kernel)
        )
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        c = gate(z_f) * c + gate(z_i) * activation(z_c)
        h = gate(z_o) * activation(c)
        return h, [ops.cast(h, flat[0].dtype), ops.cast(c, flat[1].dtype)]

    return step
