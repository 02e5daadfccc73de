"""The Differentiable Neural Computer sequence layer."""

import keras

from keras_rda.layers.base_rnn import make_cell
from keras_rda.memory.base_memory_rnn import BaseMemoryRNN
from keras_rda.memory.dnc_cell import DNCCell
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class DNC(BaseMemoryRNN):
    """A DNC over a sequence, used like `keras.layers.LSTM`.

    Runs `DNCCell` (its arguments, its weights, in the same order). With a
    known sequence length, a sequence that starts from the initial state and
    no mask, every schedule is static (Regular, Uniform, Cached Uniform, and
    Random with its policy drawn once), so the layer runs the controller as
    a plain recurrent loop over each stretch between two writes, with the
    read vectors held (for a `keras.layers.LSTMCell` controller their part
    of its gates is computed once per stretch), and accesses memory once at
    its end (for Cached Uniform Writing after the cache attention of
    eq. 9-10). There is no
    conditional: it trains under `jit_compile=True`, and the memory costs
    time only on the access steps. Otherwise (unknown length, a mask,
    `initial_state`, `stateful`, `go_backwards`) it computes what
    `keras.layers.RNN(DNCCell(...))` computes, with the cell's conditional.
    Outputs, states and gradients equal `keras.layers.RNN(cell)`'s either way.

    The arguments `controller`, `memory_size`, `word_size`,
    `num_read_heads`, `num_write_heads`, `write_schedule`, `output_units`,
    `kernel_initializer`, `bias_initializer` and `clip_value` are the
    `DNCCell` arguments (see there).

    Args:
        return_sequences: whether to return `y_t` for every step
            (`[batch, time, output_size]`) or the last (`[batch, output_size]`).
        return_state: whether to also return the final flat state (see
            `DNCCell`, State).
        go_backwards: if True, process the sequence backwards.
        stateful: if True, the final state of batch i is the initial state of
            batch i in the next call; `reset_state()` restores the initial
            state.
        unroll: if True, trace every step instead of running the stretches
            between writes in the backend's loop (short sequences only).
            It can pay off without XLA; under XLA keep the loops, which
            compile in a fraction of the time and run faster.
            `benchmarks/memory_speed.py` measures both (its `DNC+UW
            unrolled` model; records under `results/benchmarks/`;
            docs/memory.md, "Speed").
        loop_intervals: if True, run a schedule's equal write intervals
            (the held steps and the access that ends them: Uniform and
            Cached Uniform Writing) as one loop over the intervals, so the
            compiled program holds one memory access instead of one per
            interval: the first, compiling step is shorter, and later
            steps are somewhat longer (a nested loop at run time). Use it
            wherever compilation is slow (on a GPU, for short runs, with
            many writes). `benchmarks/memory_speed.py` measures the trade
            (its `DNC+UW intervals` and `DNC+CUW intervals` models; records
            under `results/benchmarks/`; docs/memory.md, "Compilation" and
            "On a GPU").
        **kwargs: base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `[batch, time, features]`.
        initial_state: optional flat state list.
        mask: optional boolean `[batch, time]`; masked steps keep the state
            (and the step counter) unchanged.
        training: passed to the controller (dropout).

    Numerics:
        A NaN or inf in one sample's input stays in that sample: its outputs
        from that step on may become non-finite (a saturated gate can
        absorb an inf), its earlier outputs and the other samples' do not
        change. A masked step's input is not read, so a NaN there changes
        nothing. The memory side runs in float32 under mixed precision.
        A batch of no samples gives outputs of no samples. The write
        schedule is checked against the input's length where it is known
        (see `keras_rda.WriteSchedule`).

    Example:

    ```python
    layer = keras_rda.DNC(
        keras.layers.LSTMCell(100), memory_size=4, word_size=64,
        write_schedule=keras_rda.memory.UniformWriting(
            sequence_length=50, encoding_steps=50),
        output_units=10, return_sequences=True)
    model = keras.Sequential([keras.Input((101, 10)), layer])
    model.compile("adam", "mse", jit_compile=True)
    ```

    Reference:
        Graves et al. 2016, "Hybrid computing using a neural network with
        dynamic external memory", Nature 538; Le, Tran & Venkatesh 2019,
        "Learning to Remember More with Less Memorization", eq. 1-4, 8-10 and
        Algorithm 1.
    """

    def __init__(
        self,
        controller,
        memory_size,
        word_size,
        num_read_heads=1,
        num_write_heads=1,
        write_schedule="regular",
        output_units=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        clip_value=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        loop_intervals=False,
        **kwargs,
    ):
        arguments = constructor_arguments(locals())
        loop_intervals = arguments.pop("loop_intervals")
        cell, rnn_arguments = make_cell(DNCCell, "dnc_cell", arguments, kwargs)
        super().__init__(cell, loop_intervals=loop_intervals, **rnn_arguments, **kwargs)
