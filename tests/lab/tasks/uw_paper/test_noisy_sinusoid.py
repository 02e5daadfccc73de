"""The UW paper's noisy sinusoid continuation task (section 3.4)."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


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


def test_noisy_config_round_trip():
    sin = get_task("sinusoid-noisy", length=9)
    assert get_task("sinusoid-noisy", **sin.config()).noise == 2.0
