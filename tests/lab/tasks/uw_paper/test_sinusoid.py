"""The UW paper's sinusoid continuation task, clean and noisy (section 3.4).

The noise itself is tested in `test_noisy_sinusoid.py`.
"""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


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
