"""Argument checks: the package's one place for validating user input.

Every check returns the value in its canonical Python type (a Python `int`
for any integral number, NumPy integers included; a Python `float` for
rates and ranges) or raises a `ValueError` in Keras's wording, naming the
argument and the value received, e.g.

    Received an invalid value for argument `units`, expected a positive
    integer, got 0

Booleans are never accepted as numbers.
"""

import numbers

import numpy as np


def invalid_value(name, expected, value):
    """The `ValueError` every check raises (also for one-off checks elsewhere).

    Args:
        name: the argument's name, as the user wrote it.
        expected: what was expected, e.g. "a positive integer".
        value: what was received (shown with `repr`).
    """
    return ValueError(
        f"Received an invalid value for argument `{name}`, expected {expected}, "
        f"got {value!r}"
    )


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def int_at_least(name, value, minimum):
    """`value` as an int if it is an integer >= `minimum`."""
    if not _is_int(value) or value < minimum:
        if minimum == 1:
            expected = "a positive integer"
        elif minimum == 0:
            expected = "a non-negative integer"
        else:
            expected = f"an integer >= {minimum}"
        raise invalid_value(name, expected, value)
    return int(value)


def positive_int(name, value, allow_none=False):
    """`value` as an int if it is an integer >= 1 (or None with `allow_none`)."""
    if value is None and allow_none:
        return None
    return int_at_least(name, value, 1)


def non_negative_int(name, value):
    """`value` as an int if it is an integer >= 0."""
    return int_at_least(name, value, 0)


def int_in_range(name, value, low, high):
    """`value` as an int if it is an integer in `[low, high]`."""
    if not _is_int(value) or not low <= value <= high:
        raise invalid_value(name, f"an integer in [{low}, {high}]", value)
    return int(value)


def in_range(name, value, low, high, low_inclusive=True, high_inclusive=True):
    """`value` as a float in the interval between `low` and `high`."""
    lo = "[" if low_inclusive else "("
    hi = "]" if high_inclusive else ")"
    expected = f"a number in {lo}{low}, {high}{hi}"
    if not _is_real(value):
        raise invalid_value(name, expected, value)
    value = float(value)
    ok_low = value >= low if low_inclusive else value > low
    ok_high = value <= high if high_inclusive else value < high
    if not (ok_low and ok_high):
        raise invalid_value(name, expected, value)
    return value


def rate(name, value):
    """`value` as a float in [0, 1) (dropout rates)."""
    if not _is_real(value) or not 0.0 <= float(value) < 1.0:
        raise invalid_value(name, "a float in [0, 1)", value)
    return float(value)


def boolean(name, value):
    """`value` if it is True or False (NumPy booleans become Python's)."""
    if not isinstance(value, (bool, np.bool_)):
        raise invalid_value(name, "True or False", value)
    return bool(value)


def one_of(name, value, choices):
    """`value` if it is one of `choices` (case-sensitive strings)."""
    try:
        found = any(value == choice for choice in choices)
    except (TypeError, ValueError):  # e.g. arrays, whose == is element-wise
        found = False
    if found is True:
        return value
    raise invalid_value(name, f"one of {', '.join(repr(c) for c in choices)}", value)


def no_lstm_arguments(owner, kwargs, counterparts):
    """Refuses an argument of `keras.layers.LSTM` that `owner` does not take,
    naming what `owner` takes in its place (where Keras would only say
    "Unrecognized keyword arguments").

    Args:
        owner: the class the user called, as they wrote it (`"RDA"`).
        kwargs: the `**kwargs` it received.
        counterparts: `{argument: what to use instead}` for the LSTM's
            arguments `owner` refuses (a cell's `lstm_counterparts`).

    Raises:
        ValueError: for the first key of `kwargs` in `counterparts`.
    """
    for name, value in kwargs.items():
        if name in counterparts:
            raise ValueError(
                f"Received an invalid argument `{name}={value!r}` for `{owner}`: "
                f"`{name}` is an argument of `keras.layers.LSTM`, which `{owner}` "
                f"does not take. {counterparts[name]}"
            )


def fractions(name, values, count):
    """`values` as a tuple of `count` positive floats summing to 1."""
    try:
        result = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        result = None
    if (
        result is None
        or len(result) != count
        or min(result) <= 0
        or abs(sum(result) - 1) > 1e-9
    ):
        raise invalid_value(name, f"{count} positive fractions summing to 1", values)
    return result


def step_input_dim(layer, input_shape, name="inputs"):
    """The feature size of a cell's step input `[batch, features]`.

    Args:
        layer: the cell (named in the message).
        input_shape: the shape given to `build`.
        name: the argument's name.

    Returns:
        `features` as an int.
    """
    input_shape = tuple(input_shape)
    if len(input_shape) != 2 or input_shape[-1] is None:
        raise ValueError(
            f"Received an invalid value for argument `{name}` of "
            f"{type(layer).__name__}, expected a step input of shape "
            "[batch, features] with known features (a sequence [batch, time, "
            f"features] goes through keras.layers.RNN), got shape {input_shape}"
        )
    return int(input_shape[-1])


def _shape(value):
    """`value`'s shape as a tuple (of a tensor, or a shape itself)."""
    return tuple(getattr(value, "shape", value))


def sequence_steps(input_shape, name="inputs"):
    """Raises unless a sequence `[batch, time, ...]` has at least one step.

    Only a time axis known to be 0 when tracing is refused (an unknown one,
    `None`, passes): a recurrence over no steps has no last output, and the
    backends' own errors for it (a strided slice, an `IndexError`) do not
    say so.

    Args:
        input_shape: the sequence's shape (or the sequence).
        name: the argument's name.
    """
    shape = _shape(input_shape)
    if len(shape) >= 2 and shape[1] == 0:
        raise invalid_value(
            name, "a sequence [batch, time, features] of at least one time step", shape
        )


def sequence_mask(mask, input_shape, name="mask"):
    """Raises unless `mask` has the shape `[batch, time]` of the sequence.

    Dimensions unknown when tracing (`None`) agree with any size.

    Args:
        mask: the mask (or its shape), `[batch, time]`.
        input_shape: the sequence's shape `[batch, time, ...]` (or the
            sequence).
        name: the argument's name.
    """
    mask_shape, shape = _shape(mask), _shape(input_shape)
    expected = shape[:2]
    agrees = len(mask_shape) == 2 and all(
        a is None or b is None or a == b for a, b in zip(mask_shape, expected)
    )
    if not agrees:
        shown = "(" + ", ".join(str(d) for d in expected) + ")"
        raise ValueError(
            f"Received an invalid value for argument `{name}`, expected a mask "
            f"of shape [batch, time] = {shown}, the inputs' first two "
            f"dimensions (inputs of shape {shape}), got shape {mask_shape}"
        )


def cell_states(owner, state_size, states, batch_size=None, name="initial_state"):
    """Raises unless `states` fit a cell's `state_size`: one `[batch, size]`
    tensor per entry, all of one batch size.

    Checked on shapes alone, before a backend sees them (where a wrong
    state otherwise fails inside the loop, in a matmul or a select).
    Dimensions unknown when tracing (`None`) agree with any size; a cell
    whose `state_size` is not a flat list of ints is not checked.

    Args:
        owner: the cell or the sequence layer (named in the message).
        state_size: the cell's `state_size`.
        states: the states (a tensor or a list of tensors).
        batch_size: the inputs' batch size, if known.
        name: the argument's name.
    """
    sizes = list(state_size) if isinstance(state_size, (list, tuple)) else [state_size]
    if not all(_is_int(size) for size in sizes):
        return
    given = list(states) if isinstance(states, (list, tuple)) else [states]
    shapes = [_shape(state) for state in given]
    batches = {batch_size} - {None}
    batches |= {shape[0] for shape in shapes if shape and shape[0] is not None}
    fits = (
        len(shapes) == len(sizes)
        and all(
            len(shape) == 2 and shape[1] in (None, size)
            for shape, size in zip(shapes, sizes)
        )
        and len(batches) <= 1
    )
    if not fits:
        batch = "batch" if batch_size is None else batch_size
        expected = ", ".join(f"({batch}, {size})" for size in sizes)
        raise ValueError(
            f"Received an invalid value for argument `{name}` of "
            f"{type(owner).__name__}, expected {len(sizes)} tensor(s) of shapes "
            f"[{expected}] (one per entry of the cell's `state_size`, one batch "
            f"size for all), got {len(shapes)} of shapes "
            f"[{', '.join(str(shape) for shape in shapes)}]"
        )


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
            f"{feature} needs the TensorFlow backend, but Keras's backend is "
            f"{backend!r}. Set KERAS_BACKEND=tensorflow before Keras is imported."
        )


def positive_number(name, value, allow_none=False):
    """`value` as a float if it is a finite number > 0 (or None with
    `allow_none`): learning rates, clip norms."""
    if value is None and allow_none:
        return None
    if not _is_real(value) or not (np.isfinite(value) and value > 0):
        raise invalid_value(name, "a finite number > 0", value)
    return float(value)


def non_negative_number(name, value, allow_none=False):
    """`value` as a float if it is a finite number >= 0 (or None with
    `allow_none`): element-wise clips, where 0 means none."""
    if value is None and allow_none:
        return None
    if not _is_real(value) or not (np.isfinite(value) and value >= 0):
        raise invalid_value(name, "a finite number >= 0", value)
    return float(value)


def initializer(name, value):
    """`value` as a Keras initializer (`keras.initializers.get`): a name, a
    config dict, an instance, a callable or None (returned as None).

    Raises:
        ValueError: naming `name`, where Keras cannot interpret `value`.
    """
    import keras

    try:
        return keras.initializers.get(value)
    except (ValueError, TypeError):
        raise invalid_value(
            name,
            "a Keras initializer (a name, a config dict, an instance or a callable)",
            value,
        ) from None
