"""Reader of the Zhang, Zhao & LeCun (2015) class-labelled CSV files.

One document per row, `"class","field",...`, classes numbered from 1, line
breaks inside a field written as a backslash and `n`. The AG News, DBpedia
and Yahoo! Answers files have this format; their class names are in a
`classes.txt` beside them, one per line.
"""

import csv
import pathlib

import numpy as np


def _unescape(text):
    return text.replace("\\n", " ").replace("\\", " ").strip()


def read_zhang_csv(path, num_classes=None):
    """`(texts, labels)` of a Zhang et al. (2015) CSV (`"class","field",...`
    per row): the fields of each row joined by a space, and int32 labels from
    0 (checked against `num_classes` when given).

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


def read_class_names(path):
    """One class name per line (`classes.txt`); blank lines are skipped."""
    names = [ln.strip() for ln in pathlib.Path(path).read_text().splitlines()]
    names = tuple(n for n in names if n)
    if not names:
        raise ValueError(f"{path} is not a class names file: it is empty")
    return names
