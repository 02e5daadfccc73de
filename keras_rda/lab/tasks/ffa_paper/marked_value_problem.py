"""Hochreiter & Schmidhuber's marked-value problems (1997, sections 5.4 and
5.5) as Raffel & Ellis (2016, section 2) use them: the generator of
`FFAAddingProblem`, `FFAMultiplicationProblem` and their variable-length
versions."""

import abc

import numpy as np

from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation

# Raffel & Ellis, section 2: "A sequence is considered correctly processed if
# the absolute difference between the predicted and target values is less
# than .04" (Hochreiter & Schmidhuber 1997, sections 5.4-5.5).
TOLERANCE = 0.04

# The first marker lies in the first ten steps (Hochreiter & Schmidhuber).
FIRST_MARKER_STEPS = 10


def tolerance_accuracy(y_true, y_pred, tolerance=TOLERANCE):
    """Per-sequence correctness, float32 `[batch]`: 1.0 where `|y_pred -
    y_true| < tolerance` (`[batch, 1]` or `[batch]`, NumPy or backend tensors,
    so that `keras.metrics.MeanMetricWrapper` can wrap it)."""
    from keras import ops

    error = ops.abs(ops.cast(y_pred, "float32") - ops.cast(y_true, "float32"))
    correct = ops.cast(error < tolerance, "float32")
    if len(correct.shape) > 1 and correct.shape[-1] == 1:
        correct = ops.squeeze(correct, axis=-1)
    return correct


class MarkedValueProblem(Task):
    """Generator of the addition and multiplication problems (not registered).

    A subclass sets the value range (`value_low`, `value_high`), the
    `neutral` element a marked first step carries, and `combine(X1, X2)`,
    the target from the two marked values.

    Every step has two channels, `(value, marker)`. Values are drawn from
    `U[value_low, value_high]`. The marker is 1 at two steps: `N1`, uniform
    among the first ten steps, and `N2`, uniform among the first
    `length // 2 - 1` steps other than `N1`; it is -1 at the first and the
    last step and 0 elsewhere. A marked first step carries the `neutral`
    element (Hochreiter & Schmidhuber: X1 = 0 for addition, 1 for
    multiplication). The target is `combine(X_N1, X_N2)`.

    Lengths are uniform in `[min_length, max_length]` per sequence, and every
    batch is padded with all-zero steps to `max_length` (one shape: no XLA
    recompilation); a real step is never all-zero, so
    `keras.layers.Masking(mask_value=0.0)` recovers the lengths.

    Args:
        min_length: T0, the shortest sequence (>= 22: the first marker needs
            the first ten steps and the second one room before the midpoint).
        max_length: the longest sequence; default `min_length +
            min_length // 10`. The paper's variable-length experiment uses
            `min_length=50, max_length=10000`.
    """

    output = "regression"
    per_step = False
    metric = "accuracy"
    tolerance = TOLERANCE
    threshold = ("accuracy", ">=", 1.0)
    # Raffel & Ellis: at most 100 epochs of 1000 updates on batches of 100.
    paper_steps = 100 * 1000
    masked = True
    seq_len_param = "min_length"
    scales = {"small": {"min_length": 50}}
    training_scales = {
        "paper": {
            "batch_size": 100,
            "units": 100,
            "eval_every": 1000,
            "eval_examples": 1000,
        },
        "small": {
            "steps": 1000,
            "batch_size": 100,
            "units": 100,
            "eval_every": 250,
            "eval_examples": 1000,
        },
    }
    input_dim = 2

    # Set by each problem: the value range and the neutral element a marked
    # first step carries.
    value_low = 0.0
    value_high = 1.0
    neutral = 0.0

    def __init__(self, min_length=1000, max_length=None):
        self.min_length = validation.int_at_least("min_length", min_length, 22)
        if max_length is None:
            max_length = self.min_length + self.min_length // 10
        self.max_length = validation.int_at_least(
            "max_length", max_length, self.min_length
        )

    @abc.abstractmethod
    def combine(self, first, second):
        """The targets from the two marked values (float64 arrays `[batch]`)."""

    def marker_positions(self, rng, lengths):
        """`(N1, N2)`: int arrays `[batch]` of the two marked steps (see the
        class docstring)."""
        batch_size = len(lengths)
        first = rng.integers(0, FIRST_MARKER_STEPS, size=batch_size)
        room = lengths // 2 - 1
        second = np.floor(rng.random(batch_size) * room).astype(np.int64)
        second = second + (second >= first)
        return first, second

    def generate(self, batch_size, rng):
        lengths = rng.integers(self.min_length, self.max_length + 1, size=batch_size)
        steps = np.arange(self.max_length)
        real = steps[None, :] < lengths[:, None]
        rows = np.arange(batch_size)

        values = rng.uniform(
            self.value_low, self.value_high, size=(batch_size, self.max_length)
        ).astype(np.float32)
        values = np.where(values == 0.0, np.float32(1e-6), values)
        markers = np.zeros((batch_size, self.max_length), np.float32)
        markers[:, 0] = -1.0
        markers[rows, lengths - 1] = -1.0
        first, second = self.marker_positions(rng, lengths)
        markers[rows, first] = 1.0
        markers[rows, second] = 1.0
        # Hochreiter & Schmidhuber: a marked first step carries the neutral
        # element (X1 = 0 for the sum, 1 for the product).
        values[:, 0] = np.where(markers[:, 0] == 1.0, self.neutral, values[:, 0])

        inputs = np.where(real[:, :, None], np.stack([values, markers], axis=-1), 0.0)
        target = self.combine(
            values[rows, first].astype(np.float64),
            values[rows, second].astype(np.float64),
        )
        return (
            inputs.astype(np.float32),
            target[:, None].astype(np.float32),
            np.ones(batch_size, np.float32),
        )

    def keras_metrics(self):
        """MSE and the paper's accuracy (|error| < 0.04)."""
        import keras

        return super().keras_metrics() + [
            keras.metrics.MeanMetricWrapper(tolerance_accuracy, name="accuracy")
        ]
