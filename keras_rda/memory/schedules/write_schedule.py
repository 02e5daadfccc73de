"""`WriteSchedule`: the base class of the write schedules.

A write schedule decides on which steps a memory cell (`DNCCell`, `NTMCell`)
accesses its memory. On an access step the cell computes the interface
vector, writes to the memory and reads from it (in that order, as Algorithm 1
of Le et al. 2019); on any other step it does no memory work at all (a
conditional on the step, not a mask), keeps memory, usage, links and
weightings as they are, and holds the previous read vectors.

Steps are counted from 1 (the paper's `t = 1, ..., T`). A schedule with
`encoding_steps=E` governs only steps `1..E`; from step `E + 1` on the memory
is accessed on every step, as the paper does while decoding.

The length of the input: a schedule made for a length (`UniformWriting` or
`RandomWriting` with `sequence_length`) accesses memory on the wrong steps
of inputs of another length (`UniformWriting(sequence_length=10)` on 100
steps writes 50 times into 4 slots), and any schedule whose first access
comes after the input's last governed step never writes at all. So the
`DNC` and `NTM` layers check the schedule against the input's length
(`WriteSchedule.check_length`) whenever the length is known when they are
traced (the batch's time axis, or the model's `keras.Input((T, features))`)
and raise a `ValueError` naming the schedule, its length and the input's.
Where the length is known only at run time (a `None` time axis), a schedule
that is defined for inputs of any length (an `interval`, a `cache_size`, an
`encoding_steps` part) runs as made, and one whose steps depend on the
length (`sequence_length` without `encoding_steps`) is refused: declare the
length or give `encoding_steps`. A cell inside `keras.layers.RNN` never sees
the length, so nothing is checked there: the layers are the checked path.

Reference:
    Le, Tran & Venkatesh 2019, "Learning to Remember More with Less
    Memorization" (ICLR), section 2.2, eq. 8 and Algorithm 1.
"""

import abc

import numpy as np
from keras import ops

from keras_rda.utils import validation


class WriteSchedule(abc.ABC):
    """When a memory cell accesses its memory.

    Subclasses implement `_scheduled(step, memory_size)` (which steps inside
    the governed part write, with `keras.ops` on int32 step tensors) and
    `_scheduled_numpy(steps, memory_size)` (the same with NumPy, for patterns
    and plots).

    The input's length: the `DNC` and `NTM` layers call `check_length`
    with the input's length whenever it is known when they are traced (the
    batch's time axis, or the model's `keras.Input((T, features))`): a
    schedule made for another length (`declared_length`) or one that
    would access memory on none of the steps it governs raises a
    `ValueError` naming the schedule, its length and the input's. When the
    length is known only at run time (a `None` time axis) a schedule
    defined for any length runs as made, and one whose steps depend on the
    length (`sequence_length` without `encoding_steps`) is refused. A cell
    inside `keras.layers.RNN` never sees the length: nothing is checked
    there.

    Args:
        encoding_steps: optional positive int. The schedule governs steps
            `1..encoding_steps`; later steps access memory every step.

    Example:

    A schedule that accesses memory on every third step:

    ```python
    class EveryThirdStep(keras_rda.WriteSchedule):
        def _scheduled(self, step, memory_size):
            return keras.ops.equal(step % 3, 0)

        def _scheduled_numpy(self, steps, memory_size):
            return steps % 3 == 0

    EveryThirdStep().access_pattern(num_steps=7, memory_size=4)
    # array([False, False,  True, False, False,  True, False])
    ```
    """

    #: Size of the controller-state cache (Cached Uniform Writing), else None.
    cache_size = None

    def __init__(self, encoding_steps=None):
        self.encoding_steps = validation.positive_int(
            "encoding_steps", encoding_steps, allow_none=True
        )

    @property
    def always_accesses(self):
        """True if every step accesses memory (no conditional needed)."""
        return False

    def validate(self, memory_size):
        """Raise `ValueError` if the schedule does not fit `memory_size` slots."""
        del memory_size  # every size fits, unless a subclass says otherwise

    # -- the input's length ---------------------------------------------------

    @property
    def declared_length(self):
        """The input length the schedule is made for (its `sequence_length`),
        or None when it is defined for any length."""
        return None

    def first_access_step(self, memory_size):
        """The first step the schedule accesses memory on (1-based), or None
        when unknown or never (a subclass that knows it says so)."""
        del memory_size
        return None

    def length_hint(self, num_steps):
        """A sentence on how to make the schedule fit `num_steps` steps."""
        return (
            f"Make the schedule for inputs of {num_steps} steps, or give the "
            "inputs the length it is made for."
        )

    def check_length(self, num_steps, memory_size):
        """Raises unless the schedule fits inputs of `num_steps` steps.

        The steps it governs (`1..T`, or `1..min(T, encoding_steps)`) must be
        the `sequence_length` it is made for, if any, and must include at
        least one access step. With an unknown length (`num_steps=None`)
        only a schedule whose steps depend on the length (a
        `sequence_length` without `encoding_steps`) is refused; the others
        run as made.

        Args:
            num_steps: the input's time steps `T`, or None when unknown
                when tracing.
            memory_size: Python int `D`.

        Raises:
            ValueError: naming the schedule, its length and the input's.
        """
        self.validate(memory_size)
        made_for = self.declared_length
        if num_steps is None:
            if made_for is not None and self.encoding_steps is None:
                raise ValueError(
                    "Received an invalid value for argument `inputs`, expected "
                    f"sequences of a known length for write_schedule={self!r}, "
                    f"which is made for {made_for} steps, got a time axis of "
                    "unknown length (None): its steps cannot be checked against "
                    "the input's. Declare the length, keras.Input(("
                    f"{made_for}, features)), or give the schedule "
                    "`encoding_steps` (the steps it governs in inputs of any "
                    "length)."
                )
            return
        governed = num_steps
        if self.encoding_steps is not None:
            governed = min(num_steps, self.encoding_steps)
        got = f"{num_steps} steps"
        if governed != num_steps:
            got += f" (of which it governs the first {governed}, its encoding_steps)"
        if made_for is not None and governed != made_for:
            expected = f"sequences of {made_for} steps"
            if self.encoding_steps is not None:
                expected = f"an encoding part of {made_for} steps (encoding_steps)"
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected "
                f"{expected}, the length write_schedule={self!r} is made for, got "
                f"inputs of {got}: it would access memory on the wrong steps. "
                + self.length_hint(governed)
            )
        if not np.any(self.access_pattern(governed, memory_size)):
            first = self.first_access_step(memory_size)
            expected = "inputs with at least one memory access step"
            if first is not None:
                expected = f"inputs of at least {first} steps (its first access)"
            raise ValueError(
                "Received an invalid value for argument `inputs`, expected "
                f"{expected} for write_schedule={self!r}, got inputs of {got}: "
                "the memory would never be written or read. "
                + self.length_hint(governed)
            )

    # -- in the graph -------------------------------------------------------

    def is_access_step(self, step, memory_size):
        """Whether each sample accesses memory at `step`.

        Args:
            step: int32 tensor `[B]`, 1-based step index of each sample.
            memory_size: Python int `D`.

        Returns:
            bool tensor `[B]`.
        """
        scheduled = self._scheduled(step, memory_size)
        if self.encoding_steps is None:
            return scheduled
        return ops.logical_or(scheduled, step > self.encoding_steps)

    def is_cache_step(self, step):
        """Whether `step` attends over the cache (Cached Uniform Writing only).

        Args:
            step: int32 tensor `[B]`, 1-based.

        Returns:
            bool tensor `[B]`.
        """
        return ops.zeros_like(step, dtype="bool")

    # -- in NumPy -----------------------------------------------------------

    def access_pattern(self, num_steps, memory_size):
        """Boolean NumPy array `[num_steps]`: True where step `t = i + 1` accesses."""
        self.validate(memory_size)
        steps = np.arange(1, num_steps + 1)
        pattern = np.asarray(self._scheduled_numpy(steps, memory_size), bool)
        if self.encoding_steps is not None:
            pattern = pattern | (steps > self.encoding_steps)
        return pattern

    def cache_pattern(self, num_steps):
        """Boolean NumPy array `[num_steps]`: True where step `t = i + 1`
        attends over the cache (Cached Uniform Writing only)."""
        return np.zeros(num_steps, dtype=bool)

    # -- to implement -------------------------------------------------------

    @abc.abstractmethod
    def _scheduled(self, step, memory_size):
        """Boolean tensor: whether 1-based `step` (int32 `[batch]`) accesses."""

    @abc.abstractmethod
    def _scheduled_numpy(self, steps, memory_size):
        """The same for a NumPy array of 1-based steps."""

    # -- serialisation ------------------------------------------------------

    def get_config(self):
        return {"encoding_steps": self.encoding_steps}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self.get_config() == other.get_config()

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(self.get_config().items()))))
