"""The Recurrent Discounted Attention sequence layer."""

import keras

from keras_rda.cells.rda_cell import RDACell
from keras_rda.layers.base_rda_layer import BaseRDALayer
from keras_rda.layers.base_rnn import make_cell
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class RDA(BaseRDALayer):
    """Recurrent Discounted Attention layer, used like `keras.layers.LSTM`.

    Runs `RDACell` over a sequence. Outputs, states and gradients equal
    `keras.layers.RNN(RDACell(...))` with the same weights; the input
    projections of all time steps are one matmul before the recurrence,
    leaving only `h_{t-1} W_h` and element-wise work in the loop
    (`benchmarks/rnn_speed.py` times it against that RNN and
    `keras.layers.LSTM`). Works under `jit_compile=True`.

    Args:
        units: positive integer, dimensionality of the output space.
        attention_activation: `f_a`, one of `"exp"`, `"sigmoid"` (default),
            `"softplus"`, `"relu"` (see `RDACell`).
        hidden_activation: `f_h`, `"linear"` (default) or `"tanh"`.
        output_activation: `f_o`, `"linear"` (default) or `"tanh"`.
        variant: None, `"sigmoid-id"` or `"exp-tanh"`: the paper's named
            variants, which set the three activations (see `RDACell`).
        learn_initial_state: whether `s0` is trained, with `h_0 = f_h(s0)`.
            Default False.
        use_bias: whether to use the biases.
        unit_discount_bias: if True (default), the discount-gate bias starts
            at 1.
        discount_bias_initializer: initializer of the discount gate's bias
            block alone, replacing `unit_discount_bias` where given (see
            `RDACell`). Default None.
        kernel_initializer: initializer of the weight matrices, each gate's
            over `[x_t, h_{t-1}]` drawn whole (see `RDACell`). Default
            `"glorot_uniform"`.
        bias_initializer: initializer of the biases. Default `"zeros"`.
        initial_state_initializer: initializer of `s0`. Default `"zeros"`.
        kernel_regularizer: regularizer of `kernel`.
        recurrent_regularizer: regularizer of `recurrent_kernel`.
        bias_regularizer: regularizer of `bias`.
        initial_state_regularizer: regularizer of `initial_state`.
        activity_regularizer: regularizer on the layer's output.
        kernel_constraint: constraint of `kernel`.
        recurrent_constraint: constraint of `recurrent_kernel`.
        bias_constraint: constraint of `bias`.
        initial_state_constraint: constraint of `initial_state`.
        dropout: float in [0, 1), fraction of the inputs to drop (one mask
            per sequence).
        recurrent_dropout: float in [0, 1), fraction of `h_{t-1}` to drop in
            the recurrent projections (one mask per sequence).
        seed: random seed for dropout.
        return_sequences: whether to return the output at every step
            (`[batch, time, units]`) or the last (`[batch, units]`).
        return_state: whether to also return the final state
            `h, n, d, m` (four `[batch, units]` tensors).
        go_backwards: if True, process the sequence backwards and return
            the reversed sequence.
        stateful: if True, the final state of batch i is the initial state
            of batch i in the next call; `reset_state()` zeroes the state,
            which is the cell's initial state (`h_0 = f_h(s0)` when learned).
        unroll: if True, unroll the loop (short sequences only).
        zero_output_for_mask: if True, masked steps output zeros; else they
            repeat the previous output (zeros before the first real step),
            as `keras.layers.RNN`.
        use_kernel: `"auto"` (default), True or False: whether to run the
            recurrence as one fused GPU kernel per pass (Pallas on JAX,
            Triton on PyTorch), as `keras.layers.LSTM`'s `use_cudnn`.
            `"auto"` runs today's path until a committed GPU measurement
            shows the kernel faster on that backend and device class (none
            does yet), so it never runs slower or raises where today's path
            runs. True runs the kernel where it can: a CUDA GPU of compute
            capability 8.0 or later with the shared memory it needs, within
            its size limits (up to 512 units, fewer than 2**31 elements),
            not `unroll=True`, float64, nor ReLU attention with a learned
            initial state; elsewhere it raises a `ValueError` saying why.
            False never runs it. TensorFlow always takes today's path.
        kernel_precision: `"float32"` (default), `"tf32"` or `"bfloat16"`:
            the precision of the kernel's recurrent matmuls (`h_{t-1} R` at
            every step, and the backward's `dG_t R^T`), accumulated in
            float32 in every case; the state, the element-wise work and the
            gradient of `recurrent_kernel` stay float32. `"tf32"` runs them
            on tensor cores with the operands truncated to 10 mantissa bits,
            `"bfloat16"` with the operands rounded to bfloat16: less exact
            (the error against float32 is stated in the guide "Backends and
            performance"), and faster only where a GPU record shows it (none
            does yet). It applies wherever the kernel runs (`use_kernel`)
            and is ignored on today's path, so that a model configured for a
            GPU loads and runs unchanged on any backend and device.
        **kwargs: base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `[batch, time, features]`.
        initial_state: optional list `[h, n, d, m]` of `[batch, units]`.
        mask: optional boolean `[batch, time]`; masked steps leave the
            state unchanged and repeat the previous output.
        training: whether dropout is applied.

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
        keras_rda.RDA(250),
        keras.layers.Dense(1),
    ])
    ```

    Reference:
        "Efficiently applying attention to sequential data with the
        Recurrent Discounted Attention unit", section 5.
    """

    def __init__(
        self,
        units,
        attention_activation="sigmoid",
        hidden_activation="linear",
        output_activation="linear",
        variant=None,
        learn_initial_state=False,
        use_bias=True,
        unit_discount_bias=True,
        discount_bias_initializer=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        initial_state_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        initial_state_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        initial_state_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        use_kernel="auto",
        kernel_precision="float32",
        **kwargs,
    ):
        cell, rnn_arguments = make_cell(
            RDACell,
            "rda_cell",
            constructor_arguments(locals(), ["use_kernel", "kernel_precision"]),
            kwargs,
        )
        super().__init__(
            cell,
            use_kernel=use_kernel,
            kernel_precision=kernel_precision,
            **rnn_arguments,
            **kwargs,
        )
