"""`make_strategy`: one name per kind of strategy, on every backend."""

import keras
import pytest

from keras_rda.lab.strategies import make_strategy


def test_default_is_one_replica_with_a_scope():
    for name in ("default", None):
        strategy = make_strategy(name)
        assert strategy.num_replicas_in_sync == 1
        with strategy.scope():
            layer = keras.layers.Dense(2)
            layer.build((None, 3))
        assert layer.kernel.shape == (3, 2)


def test_unknown_name_is_a_clear_error():
    with pytest.raises(ValueError, match="strategy.*'gpus'"):
        make_strategy("gpus")


def test_mirrored_needs_tensorflow():
    if keras.backend.backend() == "tensorflow":
        strategy = make_strategy("mirrored")
        assert strategy.num_replicas_in_sync >= 1
    else:
        with pytest.raises(ValueError, match="strategy='mirrored'.*TensorFlow"):
            make_strategy("mirrored")
