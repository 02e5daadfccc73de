"""Regular writing: the memory is accessed on every step."""

import keras
import numpy as np
from keras import ops

from keras_rda.memory.schedules.write_schedule import WriteSchedule


@keras.saving.register_keras_serializable(package="keras_rda")
class RegularWriting(WriteSchedule):
    """Write to and read from memory on every step (the standard DNC/NTM).

    Example:

    ```python
    cell = keras_rda.DNCCell(keras.layers.LSTMCell(100), 4, 16,
                             write_schedule=RegularWriting())  # or "regular"
    ```

    Reference:
        Le, Tran & Venkatesh 2019, section 2.1 ("regular writing", eq. 2 applied
        every timestep).
    """

    def __init__(self):
        super().__init__(encoding_steps=None)

    @property
    def always_accesses(self):
        return True

    def _scheduled(self, step, memory_size):
        return ops.ones_like(step, dtype="bool")

    def _scheduled_numpy(self, steps, memory_size):
        return np.ones_like(steps, dtype=bool)

    def get_config(self):
        return {}
