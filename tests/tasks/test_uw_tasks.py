"""Tests of the UW paper's synthetic tasks (Appendix G formats, section 3.4).

The expected outputs are recomputed here with plain Python loops over the
decoded inputs, and the naive baselines by exhaustive enumeration or by
counting on generated data, not with the package's own formulas.
"""

import itertools

import numpy as np
import pytest

from keras_rda.tasks import get_task
from keras_rda.tasks import get_task_class
from keras_rda.tasks import task_names

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


@pytest.mark.parametrize("name", DISCRETE + ["sinusoid", "sinusoid-noisy"])
def test_seeded_streams(name):
    task = get_task(name, length=8)
    a = next(task.batches(4, seed=11))
    b = next(task.batches(4, seed=11))
    c = next(task.batches(4, seed=12))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    held = task.held_out(6)
    np.testing.assert_array_equal(held[0], task.held_out(6)[0])


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
    sin = get_task("sinusoid-noisy", length=9)
    assert get_task("sinusoid-noisy", **sin.config()).noise == 2.0


@pytest.mark.parametrize("name,noise", [("sinusoid", 0.0), ("sinusoid-noisy", 2.0)])
def test_sinusoid_format(name, noise):
    task = get_task(name, length=100)
    assert task.noise == noise
    x, y, w = task.generate(64, np.random.default_rng(5))
    assert x.shape == (64, 200, 2) and y.shape == (64, 200, 1)
    assert w.shape == (64, 200)
    assert np.all(x[:, :100, 1] == 0) and np.all(x[:, 100:, 1] == 1)
    assert np.all(x[:, 100:, 0] == 0)
    assert np.all(w[:, :100] == 0) and np.all(w[:, 100:] == 1)
    assert np.all(y[:, :100] == 0)
    targets = y[:, 100:, 0]
    # y = 5 + A sin(.), A in [1, 5]: clean values lie in [0, 10].
    assert targets.min() >= 0 and targets.max() <= 10
    seen = x[:, :100, 0]
    if noise == 0:
        assert seen.min() >= 0 and seen.max() <= 10
    else:
        assert seen.min() < 0 or seen.max() > 10


def test_sinusoid_is_one_sine_per_sequence():
    """Each example is 5 + A sin(2 pi f x + phi) at x = (t + e) / 1000."""
    task = get_task("sinusoid", length=50)
    x, y, _ = task.generate(20, np.random.default_rng(9))
    full = np.concatenate([x[:, :50, 0], y[:, 50:, 0]], axis=1)
    for seq in full:
        # Amplitude: every point within [5 - A, 5 + A] with A <= 5, and the
        # sequence covers at least a sizeable part of a period (f >= 10,
        # x spans about 0.1, so at least one full period in 100 points).
        dev = np.abs(seq - 5.0)
        assert dev.max() <= 5.0 + 1e-5
        assert dev.max() >= 0.9  # A >= 1 and a full period is covered
    # Noise-free continuation: consecutive steps change by at most
    # 2 pi f A |dx| <= 2 pi * 30 * 5 * 3/1000 ~ 2.83.
    assert np.abs(np.diff(full, axis=1)).max() <= 2.9


def test_sinusoid_noise_is_uniform_two():
    clean = get_task("sinusoid", length=100)
    noisy = get_task("sinusoid-noisy", length=100)
    xc, yc, _ = clean.generate(200, np.random.default_rng(1))
    xn, yn, _ = noisy.generate(200, np.random.default_rng(1))
    # Same draws of the sinusoid, so the targets agree; the inputs differ by
    # U(-2, 2) noise: mean 0, variance 4/3, bounded by 2.
    np.testing.assert_allclose(yc, yn)
    diff = xn[:, :100, 0] - xc[:, :100, 0]
    assert np.abs(diff).max() <= 2.0 + 1e-5
    assert abs(diff.mean()) < 0.02
    assert diff.var() == pytest.approx(4.0 / 3.0, rel=0.03)


def test_sinusoid_baseline_is_centre_line_mse():
    task = get_task("sinusoid", length=100)
    _, y, w = task.generate(4000, np.random.default_rng(2))
    mse = (((y[..., 0] - 5.0) ** 2) * w).sum() / w.sum()
    assert task.baseline == pytest.approx(mse, rel=0.03)
    # E[A^2]/2 for A ~ U(1, 5), by numerical integration.
    a = np.linspace(1, 5, 100001)
    assert task.baseline == pytest.approx(np.trapezoid(a**2, a) / 4 / 2, rel=1e-6)


@pytest.mark.parametrize("kwargs", [dict(length=0), dict(noise=-1.0)])
def test_sinusoid_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="Received an invalid value for argument"):
        get_task("sinusoid", **kwargs)
