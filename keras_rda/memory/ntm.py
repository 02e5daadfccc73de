"""The Neural Turing Machine sequence layer."""

import keras

from keras_rda.layers.base_rnn import make_cell
from keras_rda.memory.base_memory_rnn import BaseMemoryRNN
from keras_rda.memory.ntm_cell import NTMCell
from keras_rda.utils.arguments import constructor_arguments


@keras.saving.register_keras_serializable(package="keras_rda")
class NTM(BaseMemoryRNN):
    """An NTM over a sequence, used like `keras.layers.LSTM`.

    Runs `NTMCell` (its arguments, its weights, in the same order), with the
    static schedule path of `DNC`: for a known length and a fresh start the
    controller runs as a plain loop between writes and the memory is
    accessed once per write, with no conditional (trains under XLA);
    otherwise the cell's conditional path. Outputs, states and gradients
    equal `keras.layers.RNN(cell)`'s.

    The arguments `controller`, `memory_size`, `word_size`,
    `num_read_heads`, `write_schedule`, `shift_range`, `output_units`,
    `kernel_initializer`, `bias_initializer` and `clip_value` are the
    `NTMCell` arguments (see there); `return_sequences`, `return_state`, `go_backwards`,
    `stateful`, `unroll` and `loop_intervals` are as for `DNC`.

    Args:
        **kwargs: base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        sequences: `[batch, time, features]`.
        initial_state: optional flat state list.
        mask: optional boolean `[batch, time]`.
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
    layer = keras_rda.NTM(keras.layers.LSTMCell(100), memory_size=4,
                          word_size=64, write_schedule="regular",
                          return_sequences=True)
    ```

    Reference:
        Graves, Wayne & Danihelka 2014, "Neural Turing Machines",
        arXiv:1410.5401, section 3; Le, Tran & Venkatesh 2019, section 3.1.
    """

    def __init__(
        self,
        controller,
        memory_size,
        word_size,
        num_read_heads=1,
        write_schedule="regular",
        shift_range=1,
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
        cell, rnn_arguments = make_cell(NTMCell, "ntm_cell", arguments, kwargs)
        super().__init__(cell, loop_intervals=loop_intervals, **rnn_arguments, **kwargs)
