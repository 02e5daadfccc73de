"""`TextClassificationData`: what `text_classification` returns."""

import dataclasses

import numpy as np


@dataclasses.dataclass
class TextClassificationData:
    """Tokenised documents and labels of one data set.

    Attributes:
        name: the data set name.
        x_train, x_test: int32 token ids `[num_docs, sequence_length]`, 0 is
            padding, 1 the out-of-vocabulary token.
        y_train, y_test: int32 labels `[num_docs]` in `[0, num_classes)`.
        class_names: one name per class.
        vectorizer: the `keras.layers.TextVectorization` adapted on the
            training texts (use it to tokenise new text).
        embedding_matrix: float32 `[vocabulary_size, dim]` GloVe vectors for
            the vocabulary (row 0, padding, is zero; words absent from the
            GloVe file get small random vectors), or None.
        embedding_hits: how many vocabulary words were found in GloVe.
        source: where the data came from, including how it was split.
    """

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    class_names: tuple
    vectorizer: object
    embedding_matrix: np.ndarray | None = None
    embedding_hits: int = 0
    source: str = ""

    @property
    def num_classes(self):
        return len(self.class_names)

    @property
    def vocabulary_size(self):
        return self.vectorizer.vocabulary_size()

    @property
    def sequence_length(self):
        return self.x_train.shape[1]
