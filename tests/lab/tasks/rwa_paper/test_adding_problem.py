"""The adding problem (RWA paper) and the RDA paper's preset of it."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


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


def test_adding_problem_paper_defaults():
    assert get_task("adding-problem").length == 100
