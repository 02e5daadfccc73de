"""keras_rda: attention-based recurrent units and memory-augmented layers.

The recurrent cells follow Keras's RNN-cell contract and work inside
`keras.layers.RNN`, `keras.layers.Bidirectional` and
`keras.layers.StackedRNNCells`; the layers behave like `keras.layers.LSTM`.
"""

from keras_rda.version import __version__

# Subpackages.
from keras_rda import datasets  # noqa: E402
from keras_rda import tasks  # noqa: E402

# Public classes (one import line per class):
from keras_rda.cells.rda_cell import RDACell
from keras_rda.cells.rwa_cell import RWACell
from keras_rda.layers.rda import RDA
from keras_rda.layers.rwa import RWA
from keras_rda.layers.feed_forward_attention import FeedForwardAttention  # noqa: E402
from keras_rda.memory.dnc_cell import DNCCell  # noqa: E402
from keras_rda.memory.ntm_cell import NTMCell  # noqa: E402
from keras_rda.memory.regular_writing import RegularWriting  # noqa: E402
from keras_rda.memory.uniform_writing import UniformWriting  # noqa: E402
from keras_rda.memory.cached_uniform_writing import CachedUniformWriting  # noqa: E402
from keras_rda.memory.random_writing import RandomWriting  # noqa: E402
from keras_rda.cells.fast_weights_cell import FastWeightsCell  # noqa: E402
from keras_rda.cells.wei_net_cell import WeiNetCell  # noqa: E402
from keras_rda.cells.layer_norm_lstm_cell import LayerNormLSTMCell  # noqa: E402
from keras_rda.cells.recurrent_highway_cell import RecurrentHighwayCell  # noqa: E402
