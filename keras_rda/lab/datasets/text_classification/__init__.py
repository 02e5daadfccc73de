"""Document classification data of the UW paper (section 3.6, Appendix L).

`text_classification(name)` (module `load`) returns token ids ready for an
`Embedding` layer, labels, the adapted `keras.layers.TextVectorization` and,
when a GloVe file is given, the matching embedding matrix; `sources` says
where each data set comes from, `local_copy` how a local copy is read.
"""

from keras_rda.lab.datasets.text_classification.glove import read_glove
from keras_rda.lab.datasets.text_classification.load import text_classification
from keras_rda.lab.datasets.text_classification.local_copy import DATA_DIR_ENV
from keras_rda.lab.datasets.text_classification.sentence_labels import (
    read_sentence_labels,
)
from keras_rda.lab.datasets.text_classification.sources import text_classification_names
from keras_rda.lab.datasets.text_classification.text_classification_data import (
    TextClassificationData,
)
from keras_rda.lab.datasets.text_classification.zhang_csv import read_class_names
from keras_rda.lab.datasets.text_classification.zhang_csv import read_zhang_csv

__all__ = [
    "DATA_DIR_ENV",
    "TextClassificationData",
    "read_class_names",
    "read_glove",
    "read_sentence_labels",
    "read_zhang_csv",
    "text_classification",
    "text_classification_names",
]
