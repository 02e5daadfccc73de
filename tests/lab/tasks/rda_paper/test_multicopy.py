"""The RDA paper's multiple sequence copy task."""

import numpy as np
import pytest

from keras_rda.lab.tasks import get_task


def _decode(x):
    return np.argmax(x, axis=-1)


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
