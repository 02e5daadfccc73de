"""Real data sets: each keeps the real download path and reads a local copy.

Local copies are found through the `KERAS_RDA_DATA_DIR` environment variable
or an explicit `path=` argument.
"""

# Data set modules:
from keras_rda.datasets.text_classification import text_classification  # noqa: F401
from keras_rda.datasets.mnist import mnist  # noqa: E402,F401
from keras_rda.datasets.enwik8 import enwik8  # noqa: E402,F401
