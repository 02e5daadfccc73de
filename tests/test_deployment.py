"""`model.export` of the units the deployment table lists and no other test
exports as a whole-sequence SavedModel.

docs/guides/saving-and-exporting.md says which units export to which
format; the step-model columns are held by `tests/streaming/`, the
SavedModel column by the units' own tests and, for these, by this file.
The served outputs must equal the Keras model's.
"""

import keras
import numpy as np
import pytest

import keras_rda

pytestmark = pytest.mark.tensorflow_only(
    reason="the deployment table is about the TensorFlow backend's exports"
)

UNITS = {
    "RWA": lambda: keras_rda.RWA(4),
    "RNN(RDACell)": lambda: keras.layers.RNN(keras_rda.RDACell(4)),
    "RNN(ParallelRDACell)": lambda: keras.layers.RNN(keras_rda.ParallelRDACell(4)),
    "RNN(LayerNormLSTMCell)": lambda: keras.layers.RNN(keras_rda.LayerNormLSTMCell(4)),
    "RNN(RecurrentHighwayCell)": lambda: keras.layers.RNN(
        keras_rda.RecurrentHighwayCell(4)
    ),
}


@pytest.mark.parametrize("name", sorted(UNITS))
def test_the_saved_model_serves_the_models_outputs(name, tmp_path):
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((None, 3)), UNITS[name](), keras.layers.Dense(2)]
    )
    x = np.random.default_rng(0).normal(size=(2, 7, 3)).astype("float32")
    model.export(str(tmp_path / "saved"), verbose=False)
    exported = tf.saved_model.load(str(tmp_path / "saved"))  # keep a reference
    served = exported.serve(tf.constant(x))
    np.testing.assert_allclose(served.numpy(), np.asarray(model(x)), atol=1e-5)
