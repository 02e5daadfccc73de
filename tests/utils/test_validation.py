"""Argument checks: accepted values pass through, others raise in Keras's wording."""

import numpy as np
import pytest

from keras_rda.utils import validation


def test_int_in_range_accepts_the_bounds_and_numpy_ints():
    assert validation.int_in_range("n", 5, 5, 9) == 5
    assert validation.int_in_range("n", np.int64(9), 5, 9) == 9
    assert type(validation.int_in_range("n", np.int32(7), 5, 9)) is int


@pytest.mark.parametrize("value", [4, 10, 7.0, True, "7", None])
def test_int_in_range_rejects(value):
    with pytest.raises(
        ValueError,
        match=r"argument `n`, expected an integer in \[5, 9\], got " + repr(value),
    ):
        validation.int_in_range("n", value, 5, 9)


def test_positive_int_rejects_zero_and_bool():
    assert validation.positive_int("units", 3) == 3
    for value in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="argument `units`, expected a positive"):
            validation.positive_int("units", value)
