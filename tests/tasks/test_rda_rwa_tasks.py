"""Tests of the RDA and RWA papers' tasks against independent NumPy checks."""

import math
import re

import numpy as np
import pytest

from keras_rda.tasks import get_task
from keras_rda.tasks import get_task_class
from keras_rda.tasks import task_names
from keras_rda.tasks.reber import reber_sentence

PAPER_TASKS = [
    "addition",
    "adding-problem",
    "classify-length",
    "classify-by-length",
    "copy",
    "variable-copy",
    "multicopy",
    "reber",
]

# The Reber language as a regular expression, derived by hand from the
# graph (independent of the task's walk): from node 3 either "SE" or
# "XT*V" to node 4; from node 4 either "VE" or "P" back to node 3.
_L3 = "(XT*VP)*(SE|XT*VVE)"
REBER_RE = re.compile(f"^B(TS*X{_L3}|PT*V(VE|P{_L3}))$")


def test_all_registered():
    for name in PAPER_TASKS + ["mnist", "pmnist"]:
        assert name in task_names()


@pytest.mark.parametrize("name", PAPER_TASKS)
@pytest.mark.parametrize("scale", ["small", "paper"])
def test_shapes_and_dtypes(name, scale):
    task = get_task_class(name).at_scale(scale)
    x, y, w = task.generate(3, np.random.default_rng(0))
    assert x.dtype == np.float32 and x.ndim == 3 and x.shape[0] == 3
    assert x.shape[2] == task.input_dim
    assert w.dtype == np.float32
    if task.per_step:
        assert y.shape == x.shape[:2] and w.shape == y.shape
    else:
        assert w.shape == (3,)
    if task.output == "classification":
        assert y.dtype == np.int32 and y.min() >= 0 and y.max() < task.num_classes
    else:
        assert y.dtype == np.float32 and y.shape == (3, task.output_dim)
    assert task.baseline is not None and task.threshold is not None


def test_seeded_streams_repeat():
    task = get_task("multicopy")
    a = next(task.batches(2, seed=3))
    b = next(task.batches(2, seed=3))
    c = next(task.batches(2, seed=4))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[1], c[1])
    held = task.held_out(4)
    np.testing.assert_array_equal(held[0], task.held_out(4)[0])


@pytest.mark.parametrize("name,value_channel", [("addition", 0), ("adding-problem", 1)])
def test_addition_target_is_sum_of_marked(name, value_channel):
    task = get_task(name, length=60)
    x, y, _ = task.generate(500, np.random.default_rng(1))
    values, markers = x[..., value_channel], x[..., 1 - value_channel]
    assert np.all(markers.sum(axis=1) == 2)
    assert set(np.unique(markers)) <= {0.0, 1.0}
    assert values.min() >= 0 and values.max() <= 1
    np.testing.assert_allclose(y[:, 0], (values * markers).sum(axis=1), rtol=1e-6)
    # The naive baseline: always answering 1 scores MSE ~ 1/6.
    assert abs(np.mean((y[:, 0] - 1.0) ** 2) - task.baseline) < 0.03
    assert task.baseline == pytest.approx(0.167, abs=1e-3)


def test_addition_paper_defaults():
    assert get_task("addition").length == 1000
    assert get_task("adding-problem").length == 100
    assert get_task("addition").threshold == ("loss", "<", 0.001)


@pytest.mark.parametrize(
    "name,min_length", [("classify-length", 1), ("classify-by-length", 0)]
)
def test_classify_length_padding_and_labels(name, min_length):
    task = get_task(name, max_length=40)
    assert task.masked and task.min_length == min_length
    x, y, _ = task.generate(2000, np.random.default_rng(2))
    real = np.any(x != 0, axis=-1)
    lengths = real.sum(axis=1)
    # Real steps come first, padding after: the mask is a prefix.
    np.testing.assert_array_equal(real, np.arange(40)[None] < lengths[:, None])
    np.testing.assert_array_equal(y, (lengths > 20).astype(np.int32))
    assert lengths.min() == min_length and lengths.max() == 40
    assert 0.4 < y.mean() < 0.6
    assert abs(x[real].std() - 1.0) < 0.05  # N(0, 1) values


def test_classify_length_paper_defaults():
    task = get_task("classify-length")
    assert (task.min_length, task.max_length) == (1, 1000)
    assert task.threshold == ("accuracy", ">=", 1.0)
    assert get_task("classify-by-length").min_length == 0


def _decode(x):
    return np.argmax(x, axis=-1)


def test_copy_recalls_first_symbols_after_marker():
    task = get_task("copy", length=40, num_symbols=5, copy_length=4)
    x, y, w = task.generate(300, np.random.default_rng(3))
    tokens = _decode(x)
    blank, marker = 5, 6
    assert np.all(x.sum(-1) == 1)
    for t, target in zip(tokens, y):
        (where,) = np.nonzero(t == marker)
        assert len(where) == 1 and 4 <= where[0] <= 40 - 4 - 1
        assert np.all(t[:4] < 5) and np.all(np.delete(t[4:], where[0] - 4) == blank)
        np.testing.assert_array_equal(target[where[0] + 1 : where[0] + 5], t[:4])
        rest = np.delete(target, np.arange(where[0] + 1, where[0] + 5))
        assert np.all(rest == blank)
    assert np.all(w == 1)
    assert task.baseline == pytest.approx(np.mean(y == blank))


def test_variable_copy_layout_and_baseline():
    task = get_task("variable-copy", blank_length=30)
    x, y, _ = task.generate(200, np.random.default_rng(4))
    assert x.shape[1] == 2 * 10 + 30
    tokens = _decode(x)
    delim = np.argmax(tokens == 9, axis=1)
    assert delim.min() >= 10 and delim.max() <= 10 + 30 - 1
    for t, target, d in zip(tokens, y, delim):
        np.testing.assert_array_equal(target[d + 1 : d + 11], t[:10])
    assert task.baseline == pytest.approx(10 * math.log(8) / 50)
    assert get_task("variable-copy").baseline == pytest.approx(10 * math.log(8) / 120)
    assert task.threshold == ("loss", "<", task.baseline)


def test_multicopy_blocks():
    task = get_task("multicopy")
    assert task.total_length() == 1000 and task.num_copies == 50
    x, y, _ = task.generate(3, np.random.default_rng(5))
    tokens = _decode(x)
    blank, marker = 8, 9
    for t, target in zip(tokens, y):
        assert np.sum(t == marker) == 50
        for b in range(50):
            start = 20 * b
            symbols = t[start : start + 8]
            assert np.all(symbols < 8)
            assert t[start + 8] == blank and t[start + 9] == marker  # 2 steps after
            np.testing.assert_array_equal(target[start + 10 : start + 18], symbols)
        assert np.sum(target != blank) == 50 * 8
    assert task.baseline == pytest.approx(1 - 8 / 20)


def test_multicopy_rejects_block_too_short():
    with pytest.raises(ValueError, match="block_length"):
        get_task("multicopy", block_length=10, copy_length=8)


def test_reber_labels_match_grammar():
    task = get_task("reber")
    rng = np.random.default_rng(6)
    sentences, labels = task.sentences(2000, rng)
    for s, label in zip(sentences, labels):
        assert bool(REBER_RE.match(s)) == bool(label), s
        assert len(s) <= task.max_length
    assert 0.45 < labels.mean() < 0.55
    # A typo is one invalid jump: the sentence still starts with B, ends with E.
    typos = [s for s, label in zip(sentences, labels) if not label]
    assert all(s[0] == "B" and s[-1] == "E" for s in typos)


def test_reber_encoding():
    task = get_task("reber")
    x, y, _ = task.generate(50, np.random.default_rng(7))
    sentences, _ = task.sentences(50, np.random.default_rng(7))
    for row, s in zip(x, sentences):
        assert "".join("BTPSXVE"[i] for i in row[: len(s)].argmax(-1)) == s
        assert np.all(row[len(s) :] == 0)


def test_reber_walk_is_valid_without_typo():
    rng = np.random.default_rng(8)
    assert all(REBER_RE.match(reber_sentence(rng)) for _ in range(500))


@pytest.mark.parametrize("name", PAPER_TASKS)
def test_small_scale_is_shorter(name):
    cls = get_task_class(name)
    small = cls.at_scale("small").generate(1, np.random.default_rng(0))[0]
    paper = cls.at_scale("paper").generate(1, np.random.default_rng(0))[0]
    assert small.shape[1] < paper.shape[1]
    assert (
        cls.training_settings("small")["steps"]
        <= cls.training_settings("paper")["steps"]
    )
    assert cls.training_settings("paper")["units"] == 250


def test_scale_overrides_and_errors():
    task = get_task_class("multicopy").at_scale("small", num_copies=3)
    assert task.num_copies == 3 and task.block_length == 10
    with pytest.raises(ValueError, match="scale"):
        get_task_class("copy").at_scale("huge")
    with pytest.raises(ValueError, match="`length`"):
        get_task("copy", length=0)
    assert get_task_class("copy").shortened()["length"] == (1000, 50)


def test_dataset_streams_batches():
    task = get_task_class("classify-length").at_scale("small")
    x, y, w = next(iter(task.dataset(4, seed=0)))
    assert x.shape == (4, 100, 1) and y.shape == (4,) and w.shape == (4,)
