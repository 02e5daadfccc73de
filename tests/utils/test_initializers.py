"""`keras_rda.utils.initializers.independent`: one draw per key."""

import keras
import numpy as np
import pytest

from keras_rda.utils.initializers import independent


def _draw(initializer, key, shape=(50, 40)):
    return keras.ops.convert_to_numpy(independent(initializer, key)(shape))


@pytest.mark.parametrize(
    "initializer",
    [
        keras.initializers.GlorotUniform(),
        keras.initializers.GlorotUniform(seed=3),
        keras.initializers.RandomNormal(mean=0.5, stddev=0.1),
        keras.initializers.Orthogonal(),
        "glorot_uniform",
    ],
    ids=["glorot", "glorot-seeded", "normal", "orthogonal", "string"],
)
def test_two_keys_draw_apart_from_one_distribution(initializer):
    a, b = _draw(initializer, "a"), _draw(initializer, "b")
    assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < 0.1  # 2,000 pairs
    # The same distribution: equal spread within sampling error.
    np.testing.assert_allclose(a.std(), b.std(), rtol=0.1)


def test_the_raw_initializer_repeats_itself():
    """What `independent` is for: a Keras 3 initializer called twice with one
    shape returns the same values (if this ever stops, the copies are still
    correct, and this test says the workaround could go)."""
    initializer = keras.initializers.GlorotUniform()
    first = keras.ops.convert_to_numpy(initializer((6, 5)))
    np.testing.assert_array_equal(
        first, keras.ops.convert_to_numpy(initializer((6, 5)))
    )


def test_a_seeded_initializer_gives_the_same_draw_per_key():
    seeded = keras.initializers.GlorotUniform(seed=7)
    np.testing.assert_array_equal(_draw(seeded, "kernel"), _draw(seeded, "kernel"))
    other = keras.initializers.GlorotUniform(seed=8)
    assert not np.allclose(_draw(seeded, "kernel"), _draw(other, "kernel"))


def test_unseeded_draws_repeat_under_set_random_seed():
    keras.utils.set_random_seed(11)
    first = _draw(keras.initializers.GlorotUniform(), "kernel")
    keras.utils.set_random_seed(11)
    again = _draw(keras.initializers.GlorotUniform(), "kernel")
    np.testing.assert_array_equal(first, again)


def test_non_random_initializers_are_returned_as_they_are():
    zeros = keras.initializers.Zeros()
    identity = keras.initializers.Identity(gain=0.05)

    def function(shape, dtype=None):
        return keras.ops.ones(shape, dtype)

    assert independent(zeros, "a") is zeros
    assert independent(identity, "a") is identity
    assert independent(function, "a") is function
