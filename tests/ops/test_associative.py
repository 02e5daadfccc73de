"""`keras_rda.ops.associative.layer_norm` under float16, on every backend."""

import keras
import numpy as np
import pytest

from keras_rda.ops import associative
from tests.layers.gradients import value_and_grad


def _numpy_layer_norm(x, epsilon=associative.LAYER_NORM_EPSILON):
    x = np.asarray(x, np.float64)
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + epsilon)


@pytest.mark.parametrize("scale", [0.0, 1.0], ids=["zeros", "normal"])
def test_float16_layer_norm_computes_in_float32(scale, rng):
    """A float16 input is normalised in float32 and returned in float16.

    At x = 0 (a zero initial state read through a kernel) the variance's
    gradient is `-(epsilon)^-1.5 / 2`, about -1.6e7: in float16 it overflows
    and the weights' gradients become NaN.
    """
    x = (scale * rng.normal(size=(2, 8))).astype("float16")
    weights = rng.normal(size=(2, 8)).astype("float32")

    def loss(inputs):
        y = associative.layer_norm(inputs)
        assert keras.backend.standardize_dtype(y.dtype) == "float16"
        y = keras.ops.cast(y, "float32")
        return keras.ops.sum(y * keras.ops.convert_to_tensor(weights))

    value, (grad,) = value_and_grad(loss, x)
    expected = np.sum(_numpy_layer_norm(x) * weights)
    np.testing.assert_allclose(value, expected, rtol=1e-2, atol=1e-2)
    assert np.all(np.isfinite(grad))
