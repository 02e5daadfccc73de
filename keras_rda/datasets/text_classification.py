"""Document classification data of the UW paper (section 3.6, Appendix L).

`text_classification(name)` returns token ids ready for an `Embedding`
layer, labels, the adapted `keras.layers.TextVectorization` and, when a GloVe
file is given, the matching embedding matrix.

Sources, per data set `name`:

| name | real path | local copy (`path=` or `KERAS_RDA_DATA_DIR`) |
|---|---|---|
| imdb_reviews | tfds `imdb_reviews` | `imdb_labelled.txt` (`sentence<TAB>label`) |
| ag_news_subset | tfds `ag_news_subset` | `ag_news_test.csv`, `ag_news_classes.txt` |
| yelp_polarity_reviews | tfds `yelp_polarity_reviews` | a CSV as below |
| dbpedia | Zhang et al. (2015) `dbpedia_csv` | `train.csv`, `test.csv` |
| yahoo_answers | Zhang et al. (2015) `yahoo_answers_csv` | `train.csv`, `test.csv` |

tensorflow-datasets has no DBpedia or Yahoo! Answers builder, so those two
are fetched with `keras.utils.get_file` from the fast.ai mirror of the
Zhang, Zhao & LeCun (2015) archives, whose CSV format (`"class","field",...`,
classes numbered from 1, `\\n` escaped as a backslash) is also the format of
the AG News file.

A local *directory* must hold `train.csv` and `test.csv` (and optionally
`classes.txt`); a local *file* is one split only, so it is shuffled with
`seed` and split into train/test by `test_fraction` (the offline AG News test
split becomes 6,080 training and 1,520 test documents at the default 0.2).
`result.source` says which path was taken.
"""

import csv
import dataclasses
import os
import pathlib

import numpy as np

DATA_DIR_ENV = "KERAS_RDA_DATA_DIR"

# name: (tfds name or None, text fields, local file in KERAS_RDA_DATA_DIR,
#        local format, class names file, archive URL)
_ZHANG_URL = "https://s3.amazonaws.com/fast-ai-nlp/{}.tgz"
_SPECS = {
    "imdb_reviews": dict(
        tfds="imdb_reviews",
        fields=("text",),
        local="imdb_labelled.txt",
        local_format="tsv",
        class_names=("negative", "positive"),
    ),
    "ag_news_subset": dict(
        tfds="ag_news_subset",
        fields=("title", "description"),
        local="ag_news_test.csv",
        local_format="csv",
        class_names=("World", "Sports", "Business", "Sci/Tech"),
        classes_file="ag_news_classes.txt",
    ),
    "yelp_polarity_reviews": dict(
        tfds="yelp_polarity_reviews",
        fields=("text",),
        local=None,
        local_format="csv",
        class_names=("negative", "positive"),
    ),
    "dbpedia": dict(
        tfds=None,
        archive="dbpedia_csv",
        local=None,
        local_format="csv",
        class_names=None,
    ),
    "yahoo_answers": dict(
        tfds=None,
        archive="yahoo_answers_csv",
        local=None,
        local_format="csv",
        class_names=None,
    ),
}


def text_classification_names():
    """The data set names `text_classification` accepts."""
    return sorted(_SPECS)


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


def _invalid(argument, expected, got):
    return ValueError(
        f"Received an invalid value for argument `{argument}`, expected "
        f"{expected}, got {got!r}"
    )


def _unescape(text):
    return text.replace("\\n", " ").replace("\\", " ").strip()


def read_zhang_csv(path, num_classes=None):
    """Reads a Zhang et al. (2015) CSV: `"class","field",...` per row.

    Returns `(texts, labels)` with the fields of a row joined by a space and
    labels shifted to start at 0.

    Raises:
        ValueError: if a row has fewer than two fields or a class that is not
            an integer in `[1, num_classes]`.
    """
    path = pathlib.Path(path)
    texts, labels = [], []
    with open(path, newline="", encoding="utf-8", errors="strict") as f:
        for row_number, row in enumerate(csv.reader(f), start=1):
            if not row:
                continue
            label = row[0].strip()
            if len(row) < 2 or not label.isdigit() or int(label) < 1:
                raise ValueError(
                    f"{path} is not a class-labelled CSV file "
                    f'(`"class","text",...`, classes from 1): row {row_number} '
                    f"is {row[:2]!r}"
                )
            if num_classes is not None and int(label) > num_classes:
                raise ValueError(
                    f"{path}: row {row_number} has class {label}, but there "
                    f"are only {num_classes} classes"
                )
            labels.append(int(label) - 1)
            texts.append(_unescape(" ".join(row[1:])))
    if not texts:
        raise ValueError(f"{path} is not a class-labelled CSV file: it is empty")
    return texts, np.asarray(labels, np.int32)


def read_sentence_labels(path):
    """Reads `sentence<TAB>label` lines (UCI Sentiment Labelled Sentences).

    Raises:
        ValueError: if a line has no tab or its label is not 0 or 1.
    """
    path = pathlib.Path(path)
    texts, labels = [], []
    with open(path, encoding="utf-8", errors="strict") as f:
        for line_number, line in enumerate(f, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            sentence, sep, label = line.rpartition("\t")
            if not sep or label.strip() not in ("0", "1"):
                raise ValueError(
                    f"{path} is not a `sentence<TAB>label` file with labels "
                    f"0/1: line {line_number} is {line[:60]!r}"
                )
            texts.append(sentence.strip())
            labels.append(int(label))
    if not texts:
        raise ValueError(f"{path} is not a `sentence<TAB>label` file: it is empty")
    return texts, np.asarray(labels, np.int32)


def read_class_names(path):
    """One class name per line."""
    names = [ln.strip() for ln in pathlib.Path(path).read_text().splitlines()]
    names = tuple(n for n in names if n)
    if not names:
        raise ValueError(f"{path} is not a class names file: it is empty")
    return names


def read_glove(path, vocabulary, seed=0):
    """Embedding matrix for `vocabulary` from a GloVe text file.

    The file has one `word v_1 ... v_d` line per word (the Stanford GloVe
    release format). Row 0 (padding) is zero; words without a vector get
    N(0, 0.1^2) vectors drawn with `seed`.

    Returns:
        `(matrix, hits)`: float32 `[len(vocabulary), d]` and the number of
        vocabulary words found in the file.

    Raises:
        ValueError: if a line does not hold a word and `d` numbers, or the
            lines disagree on `d`.
    """
    path = pathlib.Path(path)
    index = {word: i for i, word in enumerate(vocabulary)}
    vectors, dim = {}, None
    with open(path, encoding="utf-8", errors="strict") as f:
        for line_number, line in enumerate(f, start=1):
            parts = line.rstrip().split(" ")
            if len(parts) < 2:
                raise ValueError(
                    f"{path} is not a GloVe text file (`word v_1 ... v_d`): "
                    f"line {line_number} is {line[:60]!r}"
                )
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise ValueError(
                    f"{path} is not a GloVe text file: line {line_number} has "
                    f"{len(parts) - 1} numbers, earlier lines have {dim}"
                )
            if parts[0] not in index:
                continue
            try:
                vectors[parts[0]] = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                raise ValueError(
                    f"{path} is not a GloVe text file: line {line_number} has "
                    f"a value that is not a number"
                ) from None
    if dim is None:
        raise ValueError(f"{path} is not a GloVe text file: it is empty")
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0.0, 0.1, size=(len(vocabulary), dim)).astype(np.float32)
    matrix[0] = 0.0
    for word, vector in vectors.items():
        matrix[index[word]] = vector
    return matrix, len(vectors)


def _split(texts, labels, test_fraction, seed):
    if not 0.0 < test_fraction < 1.0:
        raise _invalid("test_fraction", "a number in (0, 1)", test_fraction)
    order = np.random.default_rng(seed).permutation(len(texts))
    num_test = max(1, int(round(test_fraction * len(texts))))
    test, train = order[:num_test], order[num_test:]
    pick = lambda idx: ([texts[i] for i in idx], labels[idx])  # noqa: E731
    return pick(train), pick(test)


def _limit(texts, labels, max_examples):
    if max_examples is None:
        return texts, labels
    return texts[:max_examples], labels[:max_examples]


def _load_local(name, spec, path, test_fraction, seed):
    """`((train_texts, train_labels), (test_texts, test_labels), names, source)`."""
    path = pathlib.Path(path)
    class_names = spec["class_names"]
    if path.is_dir():
        classes = path / "classes.txt"
        if classes.is_file():
            class_names = read_class_names(classes)
        num = len(class_names) if class_names else None
        splits = []
        for split in ("train", "test"):
            file = path / f"{split}.csv"
            if not file.is_file():
                raise ValueError(
                    f"Received an invalid value for argument `path`, expected "
                    f"a directory with train.csv and test.csv or a data file, "
                    f"got {str(path)!r} (no {split}.csv)"
                )
            splits.append(read_zhang_csv(file, num))
        train, test = splits
        source = f"local directory {path} (train.csv / test.csv)"
    elif path.is_file():
        if spec["local_format"] == "tsv":
            texts, labels = read_sentence_labels(path)
        else:
            classes = path.parent / spec.get("classes_file", "classes.txt")
            if classes.is_file():
                class_names = read_class_names(classes)
            num = len(class_names) if class_names else None
            texts, labels = read_zhang_csv(path, num)
        train, test = _split(texts, labels, test_fraction, seed)
        source = (
            f"local file {path}, shuffled (seed {seed}) and split into "
            f"{len(train[0])} train / {len(test[0])} test documents"
        )
    else:
        raise _invalid("path", "an existing file or directory", str(path))
    if class_names is None:
        num = int(max(train[1].max(), test[1].max())) + 1
        class_names = tuple(str(i + 1) for i in range(num))
    return train, test, tuple(class_names), source


def _load_tfds(spec, data_dir, max_examples, download):
    import tensorflow_datasets as tfds

    splits = []
    for split in ("train", "test"):
        if max_examples is not None:
            split = f"{split}[:{max_examples}]"
        ds, info = tfds.load(
            spec["tfds"],
            split=split,
            data_dir=data_dir,
            download=download,
            with_info=True,
        )
        texts, labels = [], []
        for example in tfds.as_numpy(ds):
            parts = [example[field] for field in spec["fields"]]
            texts.append(" ".join(p.decode("utf-8", "replace") for p in parts))
            labels.append(int(example["label"]))
        splits.append((texts, np.asarray(labels, np.int32)))
    class_names = tuple(info.features["label"].names)
    return splits[0], splits[1], class_names, f"tensorflow-datasets {spec['tfds']}"


def _load_archive(spec, data_dir, test_fraction, seed):
    import keras

    archive = spec["archive"]
    folder = keras.utils.get_file(
        fname=archive,
        origin=_ZHANG_URL.format(archive),
        extract=True,
        cache_dir=data_dir,
    )
    folder = pathlib.Path(folder)
    if not (folder / "train.csv").is_file() and (folder / archive).is_dir():
        folder = folder / archive
    train, test, names, _ = _load_local(None, spec, folder, test_fraction, seed)
    return (
        train,
        test,
        names,
        f"Zhang et al. (2015) archive {_ZHANG_URL.format(archive)}",
    )


def _fit_length(ids, length, padding):
    """Pads with 0 or truncates token id rows to `length` (keeping the end for
    `"pre"`, the start for `"post"`)."""
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
        name: one of "imdb_reviews", "ag_news_subset",
            "yelp_polarity_reviews", "dbpedia", "yahoo_answers".
        path: a local copy: a data file (split into train/test with
            `test_fraction`) or a directory with `train.csv`/`test.csv`. When
            None, the file named in the module docstring is looked up in
            `$KERAS_RDA_DATA_DIR`; when absent there too, the real data set
            is loaded (tensorflow-datasets or the Zhang et al. archive).
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
    data = keras_rda.datasets.text_classification("ag_news_subset")
    model.fit(data.x_train, data.y_train,
              validation_data=(data.x_test, data.y_test))
    ```

    Reference:
        Le, Tran & Venkatesh (2019), section 3.6 and Appendix L.
    """
    import keras

    if name not in _SPECS:
        raise _invalid("name", f"one of {', '.join(sorted(_SPECS))}", name)
    if padding not in ("pre", "post"):
        raise _invalid("padding", '"pre" or "post"', padding)
    if (
        isinstance(max_tokens, bool)
        or not isinstance(max_tokens, int)
        or max_tokens < 3
    ):
        raise _invalid("max_tokens", "an integer >= 3", max_tokens)
    if sequence_length is not None and (
        not isinstance(sequence_length, int) or sequence_length < 1
    ):
        raise _invalid("sequence_length", "a positive integer or None", sequence_length)
    if max_examples is not None and (
        not isinstance(max_examples, int) or max_examples < 1
    ):
        raise _invalid("max_examples", "a positive integer or None", max_examples)
    spec = _SPECS[name]

    if path is None and spec.get("local") and os.environ.get(DATA_DIR_ENV):
        candidate = pathlib.Path(os.environ[DATA_DIR_ENV]) / spec["local"]
        if candidate.is_file():
            path = candidate
    if path is not None:
        train, test, class_names, source = _load_local(
            name, spec, path, test_fraction, seed
        )
        train, test = _limit(*train, max_examples), _limit(*test, max_examples)
    elif spec["tfds"]:
        train, test, class_names, source = _load_tfds(
            spec, data_dir, max_examples, download
        )
        train, test = _limit(*train, max_examples), _limit(*test, max_examples)
    else:
        train, test, class_names, source = _load_archive(
            spec, data_dir, test_fraction, seed
        )
        train, test = _limit(*train, max_examples), _limit(*test, max_examples)

    vectorizer = keras.layers.TextVectorization(
        max_tokens=max_tokens, output_mode="int"
    )
    vectorizer.adapt(np.asarray(train[0], dtype=object))

    def ids(texts):
        return np.asarray(vectorizer(np.asarray(texts, dtype=object)), np.int32)

    train_ids, test_ids = ids(train[0]), ids(test[0])
    if sequence_length is None:
        sequence_length = max(1, int((train_ids > 0).sum(axis=1).max()))
    embedding_matrix, hits = None, 0
    if glove_path is not None:
        embedding_matrix, hits = read_glove(
            glove_path, vectorizer.get_vocabulary(), seed
        )
    return TextClassificationData(
        name=name,
        x_train=_fit_length(train_ids, sequence_length, padding),
        y_train=np.asarray(train[1], np.int32),
        x_test=_fit_length(test_ids, sequence_length, padding),
        y_test=np.asarray(test[1], np.int32),
        class_names=tuple(class_names),
        vectorizer=vectorizer,
        embedding_matrix=embedding_matrix,
        embedding_hits=hits,
        source=source,
    )
