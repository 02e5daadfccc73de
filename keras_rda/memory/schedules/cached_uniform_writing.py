"""Cached Uniform Writing (CUW): Algorithm 1 of Le et al. 2019."""

import keras
import numpy as np
from keras import ops

from keras_rda.memory.schedules.write_schedule import WriteSchedule
from keras_rda.utils import validation


@keras.saving.register_keras_serializable(package="keras_rda")
class CachedUniformWriting(WriteSchedule):
    """Cache `L` controller states, attend over them, write every `L` steps.

    Algorithm 1: on every step `t` the previous controller state `h_{t-1}` is
    appended to a cache of size `L`. When `t mod L == 0` the cell computes the
    local attention of eq. 9-10,
    `alpha_j = softmax_j(v^T tanh(W h_{t-1} + U d_j + V r_{t-1}))`,
    `a_t = sum_j alpha_j d_j` over the cache `d_1..d_L = h_{t-L}..h_{t-1}`,
    runs the controller from `a_t` instead of `h_{t-1}`, writes to memory,
    reads `r_t`, and clears the cache. On the other steps the controller runs
    from `h_{t-1}` and `r_t = r_{t-1}` (no memory work). With `L = 1` this is
    regular writing.

    Input length (`WriteSchedule.check_length`): any length of at least
    `cache_size` steps (the first write); the `DNC` / `NTM` layers raise a
    `ValueError` on shorter inputs where the length is known when traced.

    The cached state is the controller's first state tensor (its hidden
    output `h` for `LSTMCell`, `GRUCell`, `SimpleRNNCell`); for an LSTM the
    cell state `c` is carried on unchanged.

    Args:
        cache_size: positive int `L`, steps between writes. The paper uses
            `1 <= L <= floor(T / (D + 1))`, e.g. `L = 5` for T = 50, D = 4.
        encoding_steps: optional positive int (at least `cache_size`); the
            schedule governs steps `1..encoding_steps`, after which the memory
            is written and read on every step without the cache attention.

    Reference:
        Le, Tran & Venkatesh 2019, section 2.2.1-2.2.2, eq. 9-10, Algorithm 1.
    """

    def __init__(self, cache_size, encoding_steps=None):
        super().__init__(encoding_steps=encoding_steps)
        self.cache_size = validation.positive_int("cache_size", cache_size)
        if self.encoding_steps is not None and self.cache_size > self.encoding_steps:
            raise ValueError(
                "Received an invalid value for argument `cache_size`, expected "
                f"at most encoding_steps = {self.encoding_steps}, got "
                f"{cache_size!r}"
            )

    @property
    def always_accesses(self):
        return self.cache_size == 1 and self.encoding_steps is None

    def is_cache_step(self, step):
        scheduled = self._scheduled(step, None)
        if self.encoding_steps is None:
            return scheduled
        return ops.logical_and(scheduled, step <= self.encoding_steps)

    def cache_pattern(self, num_steps):
        steps = np.arange(1, num_steps + 1)
        pattern = self._scheduled_numpy(steps, None)
        if self.encoding_steps is not None:
            pattern = pattern & (steps <= self.encoding_steps)
        return pattern

    def first_access_step(self, memory_size):
        return self.cache_size

    def length_hint(self, num_steps):
        return f"Give a cache of at most {num_steps} steps, or longer inputs."

    def _scheduled(self, step, memory_size):
        return ops.equal(ops.mod(step, self.cache_size), 0)

    def _scheduled_numpy(self, steps, memory_size):
        return steps % self.cache_size == 0

    def get_config(self):
        return {"cache_size": self.cache_size, "encoding_steps": self.encoding_steps}
