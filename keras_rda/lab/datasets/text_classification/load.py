"""`text_classification(name)`: find, read, split and tokenise a data set."""

import dataclasses

import numpy as np

from keras_rda.lab.datasets.text_classification.downloads import ZHANG_URL
from keras_rda.lab.datasets.text_classification.downloads import download_zhang_archive
from keras_rda.lab.datasets.text_classification.glove import read_glove
from keras_rda.lab.datasets.text_classification.local_copy import find_local_copy
from keras_rda.lab.datasets.text_classification.local_copy import load_local
from keras_rda.lab.datasets.text_classification.sources import SOURCES
from keras_rda.lab.datasets.text_classification.text_classification_data import (
    TextClassificationData,
)
from keras_rda.lab.datasets.text_classification.tfds_source import load_tfds
from keras_rda.lab.datasets.text_classification.tokenization import tokenize
from keras_rda.utils import validation


def text_classification(
    name,
    *,
    path=None,
    max_tokens=20000,
    sequence_length=None,
    padding="pre",
    glove_path=None,
    test_fraction=0.2,
    max_examples=None,
    seed=0,
    data_dir=None,
    download=True,
):
    """Loads and tokenises a document classification data set (UW paper 3.6).

    Args:
        name: one of "ag_news_subset", "dbpedia", "imdb_reviews",
            "yahoo_answers", "yelp_polarity_reviews".
        path: a local copy (see `local_copy`); None: the file `sources`
            names in `$KERAS_RDA_DATA_DIR`, else the real data set
            (tensorflow-datasets or the Zhang et al. archive).
        max_tokens: vocabulary size of the `TextVectorization` (including
            padding and out-of-vocabulary tokens).
        sequence_length: documents are padded/truncated to this many tokens;
            None uses the longest training document.
        padding: `"pre"` (pad and truncate at the start, so the last token
            is the last step of a recurrent model) or `"post"`.
        glove_path: optional GloVe text file (e.g. `glove.840B.300d.txt`,
            the paper's 300-d vectors) for `embedding_matrix`.
        test_fraction: held-out fraction when a single local file is split.
        max_examples: keep at most this many documents per split.
        seed: seed of the split and of the vectors of out-of-GloVe words.
        data_dir: where tensorflow-datasets / `get_file` store downloads.
        download: whether tensorflow-datasets may download.

    Returns:
        A `TextClassificationData`.

    Raises:
        ValueError: for an unknown name, bad arguments, or files that are not
            the expected data.

    Example:

    ```python
    data = keras_rda.lab.datasets.text_classification("ag_news_subset")
    model.fit(data.x_train, data.y_train,
              validation_data=(data.x_test, data.y_test))
    ```
    """
    validation.one_of("name", name, tuple(sorted(SOURCES)))
    validation.one_of("padding", padding, ("pre", "post"))
    max_tokens = validation.int_at_least("max_tokens", max_tokens, 3)
    sequence_length = validation.positive_int(
        "sequence_length", sequence_length, allow_none=True
    )
    max_examples = validation.positive_int(
        "max_examples", max_examples, allow_none=True
    )
    test_fraction = validation.in_range(
        "test_fraction", test_fraction, 0, 1, low_inclusive=False, high_inclusive=False
    )
    raw = _read(
        SOURCES[name], path, test_fraction, seed, data_dir, max_examples, download
    )
    raw = raw.limit(max_examples)
    vectorizer, x_train, x_test = tokenize(
        raw.train[0], raw.test[0], max_tokens, sequence_length, padding
    )
    embedding_matrix, hits = None, 0
    if glove_path is not None:
        embedding_matrix, hits = read_glove(
            glove_path, vectorizer.get_vocabulary(), seed
        )
    return TextClassificationData(
        name=name,
        x_train=x_train,
        y_train=np.asarray(raw.train[1], np.int32),
        x_test=x_test,
        y_test=np.asarray(raw.test[1], np.int32),
        class_names=raw.class_names,
        vectorizer=vectorizer,
        embedding_matrix=embedding_matrix,
        embedding_hits=hits,
        source=raw.source,
    )


def _read(source, path, test_fraction, seed, data_dir, max_examples, download):
    """The `RawTexts` from the first of: `path`, `$KERAS_RDA_DATA_DIR`,
    tensorflow-datasets, the Zhang et al. archive."""
    path = path if path is not None else find_local_copy(source)
    if path is not None:
        return load_local(source, path, test_fraction, seed)
    if source.tfds:
        return load_tfds(source, data_dir, max_examples, download)
    folder = download_zhang_archive(source.archive, data_dir)
    raw = load_local(source, folder, test_fraction, seed)
    return dataclasses.replace(
        raw,
        source=f"Zhang et al. (2015) archive {ZHANG_URL.format(source.archive)}",
    )
