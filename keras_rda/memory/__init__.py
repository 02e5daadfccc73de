"""keras_rda.memory: DNC and NTM cells and layers, and the UW paper's write
schedules (`keras_rda.memory.schedules`). The addressing equations they
share are `keras_rda.ops.addressing`."""

from keras_rda.memory.base_memory_cell import BaseMemoryCell
from keras_rda.memory.base_memory_rnn import BaseMemoryRNN
from keras_rda.memory.dnc import DNC
from keras_rda.memory.dnc_cell import DNCCell
from keras_rda.memory.ntm import NTM
from keras_rda.memory.ntm_cell import NTMCell
from keras_rda.memory.schedules import SCHEDULES
from keras_rda.memory.schedules import CachedUniformWriting
from keras_rda.memory.schedules import RandomWriting
from keras_rda.memory.schedules import RegularWriting
from keras_rda.memory.schedules import UniformWriting
from keras_rda.memory.schedules import WriteSchedule
from keras_rda.memory.schedules import get_write_schedule

__all__ = [
    "CachedUniformWriting",
    "DNC",
    "DNCCell",
    "BaseMemoryCell",
    "BaseMemoryRNN",
    "NTM",
    "NTMCell",
    "RandomWriting",
    "RegularWriting",
    "SCHEDULES",
    "UniformWriting",
    "WriteSchedule",
    "get_write_schedule",
]
