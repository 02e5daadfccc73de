"""keras_rda.memory: DNC and NTM cells and layers, and the UW paper's write
schedules."""

from keras_rda.memory import addressing
from keras_rda.memory.cached_uniform_writing import CachedUniformWriting
from keras_rda.memory.dnc import DNC
from keras_rda.memory.dnc_cell import DNCCell
from keras_rda.memory.memory_cell import MemoryCell
from keras_rda.memory.ntm import NTM
from keras_rda.memory.ntm_cell import NTMCell
from keras_rda.memory.random_writing import RandomWriting
from keras_rda.memory.regular_writing import RegularWriting
from keras_rda.memory.schedules import SCHEDULES
from keras_rda.memory.schedules import get_write_schedule
from keras_rda.memory.uniform_writing import UniformWriting
from keras_rda.memory.write_schedule import WriteSchedule
