"""RecurrentHighwayCell against Zilly et al. (2016) in NumPy."""

import keras
import numpy as np
import pytest

from keras_rda.cells.recurrent_highway_cell import RecurrentHighwayCell
from tests.cells import associative_reference as ref
from tests.helpers import perturbed_sequence_outputs


@pytest.mark.parametrize("depth,layer_norm", [(1, False), (3, True)])
def test_sequence_matches_numpy(depth, layer_norm, rng):
    cell = RecurrentHighwayCell(4, depth=depth, layer_norm=layer_norm)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    y = perturbed_sequence_outputs(cell, x, rng)
    w = ref.weights_by_name(cell)
    s = np.zeros((2, 4))
    for t in range(5):
        s = ref.rhn_step(x[:, t], s, w, depth, layer_norm)
        np.testing.assert_allclose(y[:, t], s, rtol=1e-4, atol=1e-5)


def test_transform_bias_and_round_trip(tmp_path, rng):
    cell = RecurrentHighwayCell(3, depth=2, layer_norm=True)
    inputs = keras.Input((None, 2))
    model = keras.Model(inputs, keras.layers.RNN(cell)(inputs))
    bias = np.asarray(cell.bias)
    np.testing.assert_array_equal(bias[:, 3:], -2.0)
    np.testing.assert_array_equal(bias[:, :3], 0.0)
    x = rng.normal(size=(2, 4, 2)).astype("float32")
    ref.assert_round_trips(model, x, tmp_path, export=False)


@pytest.mark.parametrize(
    "kwargs,argument", [({"units": 0}, "units"), ({"units": 2, "depth": 0}, "depth")]
)
def test_bad_arguments_raise(kwargs, argument):
    with pytest.raises(ValueError, match=f"argument `{argument}`.*got 0"):
        RecurrentHighwayCell(**kwargs)


def test_finite_gradients_after_a_long_run_of_zero_inputs():
    ref.assert_finite_gradients_after_zero_steps(RecurrentHighwayCell(8), 5)
