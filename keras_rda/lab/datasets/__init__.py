"""Real data sets: each keeps the real download path and reads a local copy.

Local copies are found through an explicit `path=` argument or the
`KERAS_RDA_DATA_DIR` environment variable.
"""

from keras_rda.lab.datasets.enwik8 import enwik8
from keras_rda.lab.datasets.mnist import mnist
from keras_rda.lab.datasets.text_classification import text_classification
