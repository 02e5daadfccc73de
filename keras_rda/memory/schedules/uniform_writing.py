"""Uniform Writing (UW): write every `floor(T / (D + 1))` steps."""

import keras
from keras import ops

from keras_rda.memory.schedules.write_schedule import WriteSchedule
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class UniformWriting(WriteSchedule):
    """Access memory on steps `t = k * interval`, `k = 1, 2, ...` (eq. 8).

    Give either `interval` or `sequence_length`; with `sequence_length = T`
    the interval is the paper's optimal interval `floor(T / (D + 1))`, `D` the
    memory size of the cell that uses the schedule (Theorem 3, eq. 8). On the
    other steps the cell does no memory work and holds its read vectors.

    Input length (`WriteSchedule.check_length`): made with `sequence_length`,
    the schedule takes inputs of exactly that many steps (or, with
    `encoding_steps`, an encoding part of that many), since its interval is
    that length's; the `DNC` / `NTM` layers raise a `ValueError` on any
    other length, and on a time axis of unknown length unless
    `encoding_steps` is given. Made with `interval`, it takes any length
    with at least `interval` steps (its first write).

    Args:
        interval: positive int, steps between two memory accesses.
        sequence_length: positive int `T`, the length of the part to memorise
            (the encoding part); the interval is then `floor(T / (D + 1))`,
            which must be at least 1.
        encoding_steps: optional positive int; the schedule governs steps
            `1..encoding_steps` and the memory is accessed on every later step
            (the paper's decoding).

    Example:

    ```python
    # T = 50 inputs, 4 slots: write on steps 10, 20, 30, 40, 50, then decode
    # with a write and read on every step.
    schedule = UniformWriting(sequence_length=50, encoding_steps=50)
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(100), 4, 16,
                             write_schedule=schedule)
    ```

    Reference:
        Le, Tran & Venkatesh 2019, "Learning to Remember More with Less
        Memorization", Theorem 3 and eq. 8.
    """

    def __init__(self, interval=None, sequence_length=None, encoding_steps=None):
        super().__init__(encoding_steps=encoding_steps)
        self.interval = validation.positive_int("interval", interval, allow_none=True)
        self.sequence_length = validation.positive_int(
            "sequence_length", sequence_length, allow_none=True
        )
        if (self.interval is None) == (self.sequence_length is None):
            raise ValueError(
                "Received an invalid value for arguments `interval` and "
                "`sequence_length`, expected exactly one of them, got "
                f"interval={interval!r}, sequence_length={sequence_length!r}"
            )

    def interval_for(self, memory_size):
        """The write interval for a memory of `memory_size` slots (eq. 8)."""
        if self.interval is not None:
            return self.interval
        interval = self.sequence_length // (memory_size + 1)
        if interval < 1:
            raise ValueError(
                "Received an invalid value for argument `memory_size`, expected "
                f"at most sequence_length - 1 = {self.sequence_length - 1} slots "
                "so that the uniform interval floor(T / (D + 1)) is at least 1, "
                f"got {memory_size!r}"
            )
        return interval

    def validate(self, memory_size):
        self.interval_for(memory_size)

    @property
    def declared_length(self):
        return self.sequence_length

    def first_access_step(self, memory_size):
        return self.interval_for(memory_size)

    def length_hint(self, num_steps):
        if self.sequence_length is None:
            return f"Give an interval of at most {num_steps} steps, or longer inputs."
        return (
            f"Make it for this length (sequence_length={num_steps}), or give an "
            "`interval` instead, which keeps one interval at every length."
        )

    def _scheduled(self, step, memory_size):
        return ops.equal(ops.mod(step, self.interval_for(memory_size)), 0)

    def _scheduled_numpy(self, steps, memory_size):
        return steps % self.interval_for(memory_size) == 0

    def get_config(self):
        return {
            "interval": self.interval,
            "sequence_length": self.sequence_length,
            "encoding_steps": self.encoding_steps,
        }
