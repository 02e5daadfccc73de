"""The RDA paper's copy task."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


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
