"""keras_rda.layers: sequence layers that behave like `keras.layers.LSTM`,
and feed-forward attention pooling."""

from keras_rda.layers.feed_forward_attention import FeedForwardAttention
from keras_rda.layers.parallel_rda import ParallelRDA
from keras_rda.layers.rda import RDA
from keras_rda.layers.rwa import RWA

__all__ = ["FeedForwardAttention", "ParallelRDA", "RDA", "RWA"]
