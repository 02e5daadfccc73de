"""The RWA paper's run of the copy task: the variable copy problem."""

import math

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


def _decode(x):
    return np.argmax(x, axis=-1)


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
