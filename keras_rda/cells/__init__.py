"""keras_rda.cells: recurrent cells that follow Keras's RNN-cell contract.

Each cell works inside `keras.layers.RNN`, `keras.layers.Bidirectional` and
`keras.layers.StackedRNNCells`. The math they share is in `keras_rda.ops`.
"""

from keras_rda.cells.fast_weights_cell import FastWeightsCell
from keras_rda.cells.layer_norm_lstm_cell import LayerNormLSTMCell
from keras_rda.cells.parallel_rda_cell import ParallelRDACell
from keras_rda.cells.rda_cell import RDACell
from keras_rda.cells.recurrent_highway_cell import RecurrentHighwayCell
from keras_rda.cells.rwa_cell import RWACell
from keras_rda.cells.wei_net_cell import WeiNetCell

__all__ = [
    "FastWeightsCell",
    "LayerNormLSTMCell",
    "ParallelRDACell",
    "RDACell",
    "RWACell",
    "RecurrentHighwayCell",
    "WeiNetCell",
]
