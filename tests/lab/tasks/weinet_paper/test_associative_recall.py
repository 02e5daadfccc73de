"""Associative recall: format, targets re-derived from the inputs, arguments."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.tasks.weinet_paper.associative_recall import AssociativeRecall

SYMBOLS = "abcdefghijklmnopqrstuvwxyz0123456789?"


def decode_one_hot(x):
    """One sequence `[time, 37]` -> string, "_" for an all-zero step."""
    out = []
    for step in x:
        assert step.sum() in (0.0, 1.0)
        out.append("_" if step.sum() == 0 else SYMBOLS[int(step.argmax())])
    return "".join(out)


def recall(text):
    """The digit after the queried letter, read from the string itself."""
    body, key = text.lstrip("_")[:-3], text[-1]
    assert text[-3:-1] == "??"
    pairs = {body[i]: body[i + 1] for i in range(0, len(body), 2)}
    return int(pairs[key])


@pytest.mark.parametrize(
    "length,pairs,blank", [(9, 3, 0), (11, 4, 0), (30, 13, 1), (50, 23, 1)]
)
def test_format_and_targets(length, pairs, blank, rng):
    task = get_task("associative-recall", length=length)
    x, y, w = task.generate(64, rng)
    assert x.shape == (64, length, 37) and x.dtype == np.float32
    assert y.shape == (64,) and y.dtype == np.int32
    np.testing.assert_array_equal(w, 1.0)
    for seq, target in zip(x, y):
        text = decode_one_hot(seq)
        assert text[:blank] == "_" * blank
        body = text[blank:-3]
        assert len(body) == 2 * pairs
        keys, values = body[0::2], body[1::2]
        assert all(k.isalpha() for k in keys) and all(v.isdigit() for v in values)
        assert len(set(keys)) == pairs  # keys are distinct
        assert text[-1] in keys
        assert recall(text) == target


def test_mixed_lengths_are_left_padded_valid_sequences(rng):
    task = get_task("associative-recall", length=30, min_length=9)
    x, y, _ = task.generate(400, rng)
    assert x.shape == (400, 30, 37)
    counts = set()
    for seq, target in zip(x, y):
        text = decode_one_hot(seq)
        body = text.lstrip("_")
        assert "_" not in body  # blanks only in front
        pairs = (len(body) - 3) // 2
        assert len(body) == 2 * pairs + 3
        keys = body[:-3][0::2]
        assert len(set(keys)) == pairs and text[-1] in keys
        assert recall(text) == target
        counts.add(pairs)
    assert counts == set(range(3, 14))  # 9 -> 3 pairs ... 30 -> 13 pairs
    # Scored on the full task: the held-out set has no blank prefix.
    x_test, y_test, _ = task.held_out(50)
    np.testing.assert_array_equal(
        x_test, get_task("associative-recall", length=30).held_out(50)[0]
    )
    assert all(decode_one_hot(s).count("_") == 1 for s in x_test)


@pytest.mark.parametrize("min_length", [4, 31, 2.0])
def test_bad_min_length_raises(min_length):
    with pytest.raises(ValueError, match=f"argument `min_length`.*got {min_length!r}"):
        AssociativeRecall(30, min_length=min_length)


def test_paper_example_shape():
    """The paper's "c9k8j3f1??k" is 11 characters with 4 pairs."""
    task = AssociativeRecall(11)
    assert task.num_pairs == 4 and task.input_dim == 37 and task.output_dim == 10


def test_targets_uniform_and_queries_cover_positions(rng):
    task = AssociativeRecall(30)
    symbols, y = task.generate_symbols(4000, rng)
    counts = np.bincount(y, minlength=10) / len(y)
    assert np.abs(counts - 0.1).max() < 0.03
    # the queried key appears at every pair position
    keys = symbols[:, 1:-3:2]
    positions = (keys == symbols[:, -1:]).argmax(axis=1)
    assert set(positions) == set(range(13))


def test_seeded_and_held_out_fixed():
    task = AssociativeRecall(9)
    a = next(task.batches(8, seed=3))
    b = next(task.batches(8, seed=3))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(task.held_out(5)[1], task.held_out(5)[1])


@pytest.mark.parametrize("length", [4, 57, 9.5, True])
def test_bad_length_raises(length):
    with pytest.raises(ValueError, match=f"argument `length`.*got {length!r}"):
        AssociativeRecall(length)


def test_scales_for_the_command_line():
    small = AssociativeRecall.at_scale("small")
    assert small.length == 9
    assert AssociativeRecall.at_scale("paper").length == 50
    assert AssociativeRecall.at_scale("small", length=30).length == 30
    paper = AssociativeRecall.training_settings("paper")
    assert (paper["batch_size"], paper["units"]) == (128, 50)
