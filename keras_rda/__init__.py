"""keras_rda: attention-based recurrent units and memory-augmented layers.

The library: recurrent cells that follow Keras's RNN-cell contract (usable in
`keras.layers.RNN`, `keras.layers.Bidirectional` and
`keras.layers.StackedRNNCells`), sequence layers that behave like
`keras.layers.LSTM`, DNC/NTM memory with the UW paper's write schedules, and
feed-forward attention pooling. Importing it loads Keras and NumPy only.

The experiments that rerun the papers (tasks, data sets, the model zoo, the
training loops, reporting and the `keras-rda` command) are the lab,
`keras_rda.lab`, imported on its own.
"""

from keras_rda.cells.fast_weights_cell import FastWeightsCell
from keras_rda.cells.layer_norm_lstm_cell import LayerNormLSTMCell
from keras_rda.cells.parallel_rda_cell import ParallelRDACell
from keras_rda.cells.rda_cell import RDACell
from keras_rda.cells.recurrent_highway_cell import RecurrentHighwayCell
from keras_rda.cells.rwa_cell import RWACell
from keras_rda.cells.wei_net_cell import WeiNetCell
from keras_rda.layers.feed_forward_attention import FeedForwardAttention
from keras_rda.layers.parallel_rda import ParallelRDA
from keras_rda.layers.rda import RDA
from keras_rda.layers.rwa import RWA
from keras_rda.memory.dnc import DNC
from keras_rda.memory.dnc_cell import DNCCell
from keras_rda.memory.ntm import NTM
from keras_rda.memory.ntm_cell import NTMCell
from keras_rda.memory.schedules.cached_uniform_writing import CachedUniformWriting
from keras_rda.memory.schedules.random_writing import RandomWriting
from keras_rda.memory.schedules.regular_writing import RegularWriting
from keras_rda.memory.schedules.uniform_writing import UniformWriting
from keras_rda.memory.schedules.write_schedule import WriteSchedule
from keras_rda.version import __version__

__all__ = [
    "CachedUniformWriting",
    "DNC",
    "DNCCell",
    "FastWeightsCell",
    "FeedForwardAttention",
    "LayerNormLSTMCell",
    "NTM",
    "NTMCell",
    "ParallelRDA",
    "ParallelRDACell",
    "RDA",
    "RDACell",
    "RWA",
    "RWACell",
    "RandomWriting",
    "RecurrentHighwayCell",
    "RegularWriting",
    "UniformWriting",
    "WeiNetCell",
    "WriteSchedule",
    "__version__",
]
