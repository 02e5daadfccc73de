"""Hochreiter & Schmidhuber's multiplication problem as Raffel & Ellis run it."""

from keras_rda.tasks.marked_value_problem import MarkedValueProblem
from keras_rda.tasks.task import register_task


@register_task
class FFAMultiplication(MarkedValueProblem):
    """The original multiplication problem, lengths in [T0, 1.1 T0].

    Values are drawn from U[0, 1]; the marker channel is 1 at one of the
    first ten steps (X1) and at one step before the midpoint (X2), -1 at the
    first and last step and 0 elsewhere. The target is `X1 * X2`
    (Hochreiter & Schmidhuber, section 5.5; when the first step is marked,
    its value is 1). A sequence is correct when
    `|prediction - target| < 0.04`. Always answering 0.04 scores about 26%
    (`baseline`: `P(X1 X2 < 0.08)`; products pile up near 0).

    Args:
        min_length: T0; the paper runs 50, 100, 500, 1000, 5000 and 10000.
        max_length: longest sequence, default `T0 + T0 // 10`; the paper's
            variable-length experiment is `min_length=50, max_length=10000`
            (`"ffa-multiplication-variable"`).

    Example:
        >>> import numpy as np
        >>> task = FFAMultiplication(min_length=50)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 55, 2), (4, 1), (4,))

    Reference:
        Hochreiter & Schmidhuber 1997, "Long short-term memory", section 5.5
        (Experiment 5); Raffel & Ellis 2016, sections 2 and 2.2, Table 1.
    """

    name = "ffa-multiplication"
    paper = "Raffel & Ellis 2016, section 2.2 (Table 1); Hochreiter 1997, 5.5"
    description = (
        "Hochreiter's multiplication: X1 * X2 of 2 marked U[0,1] values, "
        "T in [T0, 1.1 T0], correct if |err| < 0.04"
    )
    value_low = 0.0
    value_high = 1.0
    neutral = 1.0
    # Accuracy of the constant 0.04, i.e. of P(target < 0.08), for large T0:
    # 0.9 (0.08 - 0.08 ln 0.08) + 0.1 * 0.08 (X1 = 1 when step 0 is marked).
    baseline = 0.9 * (0.08 - 0.08 * -2.5257286443082556) + 0.1 * 0.08

    @staticmethod
    def combine(first, second):
        return first * second
