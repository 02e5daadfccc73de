"""The classify-length task (RDA paper) and the RWA paper's preset of it."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


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
