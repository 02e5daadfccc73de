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
