"""Documents to fixed-length token ids with a `keras.layers.TextVectorization`.

The vocabulary is adapted on the training texts only. Token id 0 is
padding, 1 the out-of-vocabulary token. With `padding="pre"` a document is
padded and truncated at its start, so that its last token is the last step
of a recurrent model (what the UW paper's classifier reads).
"""

import numpy as np


def fit_length(ids, length, padding="pre"):
    """Token id rows (0: no token) padded with 0 or truncated to int32
    `[num_docs, length]`: "pre" keeps the end of a long row and pads at the
    start, "post" keeps the start and pads at the end."""
    out = np.zeros((len(ids), length), np.int32)
    for i, row in enumerate(ids):
        row = row[row > 0]
        if padding == "pre":
            row = row[-length:]
            out[i, length - len(row) :] = row
        else:
            row = row[:length]
            out[i, : len(row)] = row
    return out


def tokenize(train_texts, test_texts, max_tokens, sequence_length=None, padding="pre"):
    """`(vectorizer, x_train, x_test)`: a `TextVectorization` of `max_tokens`
    (padding and out-of-vocabulary included) adapted on the training texts,
    and both splits' token ids, `fit_length` to `sequence_length` (None: the
    longest training document)."""
    import keras

    vectorizer = keras.layers.TextVectorization(
        max_tokens=max_tokens, output_mode="int"
    )
    vectorizer.adapt(np.asarray(train_texts, dtype=object))

    def ids(texts):
        return np.asarray(vectorizer(np.asarray(texts, dtype=object)), np.int32)

    train_ids, test_ids = ids(train_texts), ids(test_texts)
    if sequence_length is None:
        sequence_length = max(1, int((train_ids > 0).sum(axis=1).max()))
    return (
        vectorizer,
        fit_length(train_ids, sequence_length, padding),
        fit_length(test_ids, sequence_length, padding),
    )
