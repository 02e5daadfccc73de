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
