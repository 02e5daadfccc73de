"""GloVe word vectors as an embedding matrix for a vocabulary.

The UW paper's document classification models start from the 300-d GloVe
vectors (`glove.840B.300d.txt`, Appendix L).
"""

import pathlib

import numpy as np


def read_glove(path, vocabulary, seed=0):
    """`(matrix, hits)`: the float32 embedding matrix `[len(vocabulary), d]`
    of `vocabulary` (the words in row order, e.g.
    `TextVectorization.get_vocabulary()`) from a GloVe text file (`word v_1
    ... v_d` per line), and how many words it holds. Row 0 (padding) is zero;
    words without a vector get N(0, 0.1^2) vectors drawn with `seed`.

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
