"""Reader of `sentence<TAB>label` files (UCI Sentiment Labelled Sentences).

The offline IMDb copy, `imdb_labelled.txt`, has one sentence per line, a
tab, and its label 0 (negative) or 1 (positive).
"""

import pathlib

import numpy as np


def read_sentence_labels(path):
    """`(texts, labels)` of `sentence<TAB>label` lines (int32 labels 0/1).

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
