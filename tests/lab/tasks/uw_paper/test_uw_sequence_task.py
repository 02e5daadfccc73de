"""The UW paper's discrete tasks on their generator (Appendix G formats).

Double, copy, reverse, add and max (`UWDouble` ... `UWMax`) differ only in
their output; every test here runs over all five.

The expected outputs are recomputed here with plain Python loops over the
decoded inputs, and the naive baselines by exhaustive enumeration or by
counting on generated data, not with the package's own formulas.
"""

import itertools

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task
from keras_rda.lab.tasks import get_task_class
from keras_rda.lab.tasks import task_names

DISCRETE = ["uw-double", "uw-copy", "uw-reverse", "uw-add", "uw-max"]


def _reference_output(name, xs):
    """Appendix G, Table 5, one sequence of Python ints."""
    t = len(xs)
    if name == "uw-double":
        return xs + xs
    if name == "uw-copy":
        return list(xs)
    if name == "uw-reverse":
        return [xs[t - 1 - i] for i in range(t)]
    if name == "uw-add":
        return [(xs[i] + xs[t - 1 - i]) // 2 for i in range(t // 2)]
    if name == "uw-max":
        return [max(xs[2 * i], xs[2 * i + 1]) for i in range(t // 2)]
    raise AssertionError(name)


def test_registered_names():
    names = task_names()
    for name in DISCRETE + ["sinusoid", "sinusoid-noisy"]:
        assert name in names
        assert "UW paper" in get_task_class(name).paper


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("length", [7, 10])
def test_discrete_format(name, length):
    task = get_task(name, length=length)
    high = 50 if name == "uw-max" else 10
    assert (task.low, task.high) == (1, high)
    x, y, w = task.generate(5, np.random.default_rng(3))
    out_len = {"uw-double": 2 * length, "uw-copy": length, "uw-reverse": length}.get(
        name, length // 2
    )
    total = length + 1 + out_len
    assert x.shape == (5, total, high + 1) and x.dtype == np.float32
    assert y.shape == (5, total) and y.dtype == np.int32
    assert w.shape == (5, total) and w.dtype == np.float32
    assert task.input_dim == high + 1 and task.output_dim == high
    assert task.encoding_length == length and task.sequence_length == total
    for b in range(5):
        # Encoding: exactly one hot value channel per step, no <eos>.
        enc = x[b, :length]
        assert np.all(enc.sum(-1) == 1) and np.all(enc[:, high] == 0)
        xs = [int(np.flatnonzero(row)[0]) + 1 for row in enc]
        assert all(1 <= v <= high for v in xs)
        # <eos> step, then silent decoding steps.
        assert x[b, length, high] == 1 and x[b, length].sum() == 1
        assert np.all(x[b, length + 1 :] == 0)
        # Targets and weights only on the decoding part.
        assert np.all(w[b, : length + 1] == 0) and np.all(w[b, length + 1 :] == 1)
        assert list(y[b, length + 1 :] + 1) == _reference_output(name, xs)


def _exact_baseline(name, high):
    """Best constant-prediction accuracy, by enumerating all value pairs."""
    values = range(1, high + 1)
    if name in ("uw-double", "uw-copy", "uw-reverse"):
        return 1.0 / high
    counts = {}
    for a, b in itertools.product(values, values):
        out = (a + b) // 2 if name == "uw-add" else max(a, b)
        counts[out] = counts.get(out, 0) + 1
    return max(counts.values()) / high**2


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_baselines(name):
    task = get_task(name, length=20)
    expected = _exact_baseline(name, task.high)
    assert task.baseline == pytest.approx(expected)
    assert get_task_class(name).baseline == pytest.approx(expected)
    # The same number from data: frequency of the most common target.
    _, y, w = task.generate(4000, np.random.default_rng(0))
    targets = y[w > 0]
    freq = np.bincount(targets).max() / targets.size
    assert freq == pytest.approx(expected, abs=0.01)


def test_discrete_value_range_option():
    task = get_task("uw-copy", length=5, low=3, high=6)
    x, y, w = task.generate(50, np.random.default_rng(0))
    assert task.output_dim == 4 and x.shape[-1] == 5
    assert y[w > 0].min() >= 0 and y[w > 0].max() <= 3


@pytest.mark.parametrize(
    "kwargs",
    [dict(length=0), dict(length=2.5), dict(low=5, high=5), dict(high=-1)],
)
def test_discrete_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="Received an invalid value for argument"):
        get_task("uw-copy", **kwargs)


def test_add_and_max_need_two_values():
    for name in ("uw-add", "uw-max"):
        with pytest.raises(ValueError, match="`length`"):
            get_task(name, length=1)


def test_config_round_trip():
    task = get_task("uw-max", length=12)
    again = get_task("uw-max", **task.config())
    assert again.config() == task.config() == {"length": 12, "low": 1, "high": 50}


# The authors' code's format (`thaihungle/UW-DNC`, synthetic_task.py):
# values from range(1, 10), `<eos>` = 0 appended to the input and to the
# output, and `exact_acc` (the share of matching steps over the whole output,
# `<eos>` included). Re-written here from that code, independently of ours.


def _authors_sample(name, seed_values):
    """synthetic_task.py: `copy_sample` / `reverse_sample` (0 is `<eos>`)."""
    out = list(seed_values) if name == "uw-copy" else list(seed_values)[::-1]
    return list(seed_values) + [0], out + [0]


def _authors_exact_acc(target_batch, predict_batch):
    """synthetic_task.py `exact_acc` with its default `stop_S=-1`."""
    acc = []
    for target, predict in zip(target_batch, predict_batch):
        matches = sum(int(a == b) for a, b in zip(predict, target))
        acc.append(matches / max(len(target), len(predict)))
    return float(np.mean(acc))


def _keras_weighted_accuracy(y, w, logits):
    import keras

    metric = keras.metrics.SparseCategoricalAccuracy()
    metric.update_state(y, logits, sample_weight=w)
    return float(metric.result())


@pytest.mark.parametrize("name", ["uw-copy", "uw-reverse"])
def test_authors_format(name):
    length = 8
    task = get_task(name, length=length, high=9, eos_target=True)
    assert task.num_classes == 10 and task.output_length == length + 1
    x, y, w = task.generate(6, np.random.default_rng(1))
    assert x.shape[1] == 2 * length + 2
    for b in range(6):
        xs = [int(np.flatnonzero(row)[0]) + 1 for row in x[b, :length]]
        assert all(1 <= v <= 9 for v in xs)
        _, out = _authors_sample(name, xs)
        # Our classes: value v -> v - 1, `<eos>` -> 9; theirs: v -> v, 0.
        ours = [9 if c == 0 else c - 1 for c in out]
        assert list(y[b, length + 1 :]) == ours
        assert np.all(w[b, : length + 1] == 0) and np.all(w[b, length + 1 :] == 1)
    assert get_task(name, **task.config()).config() == task.config()


@pytest.mark.parametrize("eos_target", [False, True])
def test_accuracy_is_the_per_symbol_share_of_the_decoding(eos_target):
    """The weighted accuracy the lab compiles equals the paper's average
    over decoding steps, and with `eos_target` the authors' `exact_acc`."""
    length = 12
    task = get_task("uw-copy", length=length, high=9, eos_target=eos_target)
    x, y, w = task.generate(64, np.random.default_rng(2))
    rng = np.random.default_rng(3)
    logits = rng.standard_normal(y.shape + (task.num_classes,)).astype(np.float32)
    # A predictor right on about half the steps.
    right = rng.random(y.shape) < 0.5
    rows, steps = np.nonzero(right)
    logits[rows, steps, y[rows, steps]] += 10.0
    predicted = logits.argmax(-1)[:, length + 1 :]
    target = y[:, length + 1 :]
    if eos_target:
        to_theirs = np.where(target == 9, 0, target + 1)
        predicted_theirs = np.where(predicted == 9, 0, predicted + 1)
        expected = _authors_exact_acc(to_theirs, predicted_theirs)
    else:
        expected = np.mean([np.mean(p == t) for p, t in zip(predicted, target)])
    assert _keras_weighted_accuracy(y, w, logits) == pytest.approx(expected, abs=1e-6)


def test_authors_format_baseline():
    """Most frequent value on the value steps, `<eos>` on the last step."""
    task = get_task("uw-copy", length=20, high=9, eos_target=True)
    x, y, w = task.generate(4000, np.random.default_rng(0))
    decoding = y[:, 21:]
    guess = np.full(decoding.shape[1], np.bincount(decoding[:, :-1].ravel()).argmax())
    guess[-1] = 9
    assert task.baseline == pytest.approx((20 / 9 + 1) / 21)
    assert np.mean(decoding == guess) == pytest.approx(task.baseline, abs=0.01)


def test_eos_target_must_be_boolean():
    with pytest.raises(ValueError, match="`eos_target`"):
        get_task("uw-copy", eos_target="yes")
