"""Document classification data of the UW paper (section 3.6, Appendix L).

`text_classification(name)` returns token ids ready for an `Embedding`
layer, labels, the adapted `keras.layers.TextVectorization` and, when a GloVe
file is given, the matching embedding matrix. One module per job:

- `sources`: where each data set comes from (a table of the five);
- `zhang_csv`, `sentence_labels`: the readers of the two local file
  formats; `glove`: GloVe vectors as an embedding matrix;
- `tfds_source`: the tensorflow-datasets path;
- `downloads`: the Zhang et al. (2015) archives, checked before extraction;
- `local_copy`: local files and directories, and the seeded split of a file;
- `tokenization`: vocabulary, token ids, padding;
- `load`: `text_classification` itself, which puts them together.

A local *directory* must hold `train.csv` and `test.csv` (and optionally
`classes.txt`); a local *file* is one split only, so it is shuffled with
`seed` and split into train/test by `test_fraction`. `result.source` says
which path was taken.
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
