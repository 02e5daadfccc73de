"""`keras_rda.ops.scan`: the loop of the fused recurrence, on every backend."""

import keras
import numpy as np
import pytest

from keras_rda.ops import scan as scan_lib


def _cumulative(xs, reverse, stack):
    """A running sum, with per-step outputs of two shapes (a dict of a
    `[batch, 2]` and a `[batch]` tensor), as the recurrence stacks them."""

    def step(total, x):
        total = total + x
        return total, {"total": total, "first": total[:, 0]}

    init = keras.ops.zeros((3, 2))
    return scan_lib.scan(step, init, keras.ops.convert_to_tensor(xs), reverse, stack)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("stack", [True, False])
def test_outputs_in_time_order_stacked_or_per_step(reverse, stack):
    xs = np.random.default_rng(0).normal(size=(5, 3, 2)).astype("float32")
    expected = np.cumsum(xs[::-1] if reverse else xs, axis=0)
    expected = expected[::-1] if reverse else expected
    carry, ys = _cumulative(xs, reverse, stack)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(carry), expected[-1 if not reverse else 0], rtol=1e-6
    )
    total = scan_lib.stacked(ys["total"])
    first = scan_lib.stacked(ys["first"])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(total), expected, rtol=1e-6)
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(first), expected[..., 0], rtol=1e-6
    )
    for t in range(5):  # step t's output, whether stacked or not
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(ys["total"][t]), expected[t], rtol=1e-6
        )


def test_per_step_outputs_feed_a_later_loop():
    """`Steps` are sliced by a later loop as a stacked tensor would be."""
    xs = np.arange(12, dtype="float32").reshape(4, 3, 1) * np.ones((1, 1, 2), "float32")
    _, ys = _cumulative(xs, reverse=False, stack=False)

    def step(carry, x):
        return carry + x["total"], ()

    carry, _ = scan_lib.scan(step, keras.ops.zeros((3, 2)), {"total": ys["total"]})
    expected = np.cumsum(xs, axis=0).sum(axis=0)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(carry), expected, rtol=1e-6)
