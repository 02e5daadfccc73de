"""The addition and multiplication problems of Hochreiter & Schmidhuber.

Every property is re-derived from the generated inputs alone: the marker
channel says which steps were marked, the padding says how long each
sequence is, and the target is recomputed from the marked values.
"""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.tasks import task_names
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import tolerance_accuracy

PROBLEMS = {
    # name: (value range, target from the two marked values, neutral value)
    "ffa-addition": ((-1.0, 1.0), lambda a, b: 0.5 + (a + b) / 4.0, 0.0),
    "ffa-multiplication": ((0.0, 1.0), lambda a, b: a * b, 1.0),
}


def parse(inputs):
    """Lengths and marked steps read back from a generated batch."""
    real = np.any(inputs != 0.0, axis=-1)
    lengths = real.sum(axis=1)
    # Real steps form a prefix: padding only at the end.
    np.testing.assert_array_equal(real, np.arange(real.shape[1]) < lengths[:, None])
    marked = [np.flatnonzero(row == 1.0) for row in inputs[:, :, 1]]
    return lengths, marked


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.parametrize("min_length", [22, 50, 333])
def test_format_and_targets(name, min_length):
    (low, high), combine, neutral = PROBLEMS[name]
    task = get_task(name, min_length=min_length)
    batch = 400
    x, y, w = task.generate(batch, np.random.default_rng(min_length))
    max_length = min_length + min_length // 10
    assert x.shape == (batch, max_length, 2) and x.dtype == np.float32
    assert y.shape == (batch, 1) and y.dtype == np.float32
    np.testing.assert_array_equal(w, np.ones(batch, np.float32))
    assert task.input_dim == 2 and task.output_dim == 1 and task.masked

    lengths, marked = parse(x)
    assert lengths.min() >= min_length and lengths.max() <= max_length
    for i in range(batch):
        length, steps = lengths[i], marked[i]
        values, markers = x[i, :length, 0], x[i, :length, 1]
        assert len(steps) == 2, "exactly two marked steps"
        first, second = steps  # sorted: the one in the first ten comes first
        assert first < 10, "one marker among the first ten steps"
        assert second < length // 2, "the other before the midpoint"
        # -1 at the first (unless marked) and last step, 0 elsewhere.
        assert markers[length - 1] == -1.0
        assert markers[0] == (1.0 if first == 0 else -1.0)
        others = np.ones(length, bool)
        others[[0, length - 1, first, second]] = False
        np.testing.assert_array_equal(markers[others], 0.0)
        assert np.all((values >= low) & (values <= high))
        if first == 0:
            assert values[0] == neutral
        expected = combine(float(values[first]), float(values[second]))
        assert y[i, 0] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_distributions(name):
    (low, high), _, _ = PROBLEMS[name]
    task = get_task(name, min_length=100)
    x, _, _ = task.generate(3000, np.random.default_rng(1))
    lengths, marked = parse(x)
    # Lengths cover [T0, 1.1 T0] uniformly (11 values).
    assert set(np.unique(lengths)) == set(range(100, 111))
    firsts = np.array([m[0] for m in marked])
    seconds = np.array([m[1] for m in marked])
    assert set(np.unique(firsts)) <= set(range(10))
    assert len(np.unique(firsts)) >= 9  # the first step is rarely kept marked
    assert seconds.max() == 54 and seconds.min() < 10
    values = x[:, 1:99, 0]
    assert values.mean() == pytest.approx((low + high) / 2, abs=0.01)
    assert values.std() == pytest.approx((high - low) / np.sqrt(12), abs=0.01)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_naive_baseline(name):
    task = get_task(name, min_length=200)
    _, y, _ = task.generate(8000, np.random.default_rng(2))
    candidates = np.linspace(0.0, 1.0, 201)
    best = max(np.mean(np.abs(y[:, 0] - c) < 0.04) for c in candidates)
    assert best == pytest.approx(task.baseline, abs=0.015)


def test_variable_length_versions():
    for name in ("ffa-addition-variable", "ffa-multiplication-variable"):
        task = get_task(name)
        assert (task.min_length, task.max_length) == (50, 10000)
    task = get_task("ffa-addition-variable", max_length=3000)
    x, _, _ = task.generate(200, np.random.default_rng(3))
    assert x.shape == (200, 3000, 2)
    lengths, marked = parse(x)
    assert lengths.min() < 300 and lengths.max() > 2700
    # The second marker lies before each sequence's own midpoint.
    assert all(m[1] < n // 2 for m, n in zip(marked, lengths))
    assert max(m[1] for m in marked) > 1000


def test_tolerance_accuracy():
    y_true = np.array([[0.5], [0.5], [0.5], [0.2]], np.float32)
    y_pred = np.array([[0.539], [0.45], [0.461], [0.2]], np.float32)
    np.testing.assert_array_equal(
        np.asarray(tolerance_accuracy(y_true, y_pred)), [1, 0, 1, 1]
    )


def test_keras_metric_and_registry():
    task = get_task("ffa-addition", min_length=50)
    mse, metric = task.keras_metrics()
    assert mse.name == "mse"
    metric.update_state(np.array([[0.5], [0.5]]), np.array([[0.52], [0.6]]))
    assert float(metric.result()) == pytest.approx(0.5)
    assert metric.name == "accuracy"
    assert {"ffa-addition", "ffa-multiplication"} <= set(task_names())
    assert get_task("ffa-addition").min_length == 1000


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"min_length": 21}, "min_length"),
        ({"min_length": 0}, "min_length"),
        ({"min_length": 100.0}, "min_length"),
        ({"min_length": True}, "min_length"),
        ({"min_length": 100, "max_length": 99}, "max_length"),
    ],
)
def test_bad_arguments(kwargs, argument):
    with pytest.raises(ValueError, match=f"argument `{argument}`"):
        get_task("ffa-addition", **kwargs)
