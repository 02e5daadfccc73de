"""Argument checks that raise `ValueError` in Keras's wording.

Every message names the argument and the value received, e.g.
"Received an invalid value for argument `units`, expected a positive
integer, got 0".
"""

import numbers


def _invalid(name, expected, value):
    return ValueError(
        f"Received an invalid value for argument `{name}`, expected {expected}, "
        f"got {value!r}"
    )


def positive_int(name, value):
    """`value` as an int if it is an integer >= 1 (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _invalid(name, "a positive integer", value)
    return int(value)


def non_negative_int(name, value):
    """`value` as an int if it is an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise _invalid(name, "a non-negative integer", value)
    return int(value)


def int_in_range(name, value, low, high):
    """`value` as an int if it is an integer in `[low, high]`."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not low <= value <= high
    ):
        raise _invalid(name, f"an integer in [{low}, {high}]", value)
    return int(value)


def rate(name, value):
    """`value` as a float in [0, 1) (dropout rates)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _invalid(name, "a float in [0, 1)", value)
    if not 0.0 <= float(value) < 1.0:
        raise _invalid(name, "a float in [0, 1)", value)
    return float(value)


def in_range(name, value, low, high, low_inclusive=True, high_inclusive=True):
    """`value` as a float in the interval between `low` and `high`."""
    lo = "[" if low_inclusive else "("
    hi = "]" if high_inclusive else ")"
    expected = f"a number in {lo}{low}, {high}{hi}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _invalid(name, expected, value)
    value = float(value)
    ok_low = value >= low if low_inclusive else value > low
    ok_high = value <= high if high_inclusive else value < high
    if not (ok_low and ok_high):
        raise _invalid(name, expected, value)
    return value


def one_of(name, value, choices):
    """`value` if it is one of `choices` (case-sensitive strings)."""
    if value not in choices:
        raise _invalid(name, f"one of {', '.join(repr(c) for c in choices)}", value)
    return value


def tensorflow_backend(feature):
    """Raises a clear `ValueError` unless Keras runs on TensorFlow.

    For the TensorFlow-only parts of the package (the enwik8 loop: a
    `tf.function` under `tf.distribute` with `tf.train.Checkpoint`).

    Args:
        feature: what needs TensorFlow, for the message.
    """
    import keras

    backend = keras.backend.backend()
    if backend != "tensorflow":
        raise ValueError(
            f"Received an invalid value for the Keras backend, expected "
            f"'tensorflow' ({feature} is TensorFlow-only), got {backend!r}. "
            f"Run it with KERAS_BACKEND=tensorflow."
        )
