"""The adding problem as the feed-forward attention paper runs it."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import MarkedValueProblem


@register_preset
class FFAAddingProblem(MarkedValueProblem):
    """The original adding problem, lengths in [T0, 1.1 T0] ("ffa-addition").

    The adding problem (`AddingProblem`) in Hochreiter & Schmidhuber's own
    definition, which Raffel & Ellis follow ("the original definition from
    [3]"; their released code uses exactly this), with another generator
    than the RWA and RDA papers' simplified one. Values are drawn from
    U[-1, 1]; the marker channel is 1 at one of the first ten steps (X1) and
    at one step before the midpoint (X2), -1 at the first and last step and
    0 elsewhere. The target is the sum scaled to [0, 1],
    `0.5 + (X1 + X2) / 4` (Hochreiter & Schmidhuber, section 5.4); a
    sequence is correct when `|prediction - target| < 0.04`. Always
    answering 0.5 scores about 15% (`baseline`, `P(|X1 + X2| < 0.16)`).

    Args:
        min_length: T0; the paper runs 50, 100, 500, 1000, 5000 and 10000.
        max_length: longest sequence, default `T0 + T0 // 10`.

    Example:
        >>> import numpy as np
        >>> task = FFAAddingProblem(min_length=50)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 55, 2), (4, 1), (4,))
    """

    name = "ffa-addition"
    paper = "Raffel & Ellis 2016, section 2.2 (Table 1); Hochreiter 1997, 5.4"
    description = (
        "Hochreiter's addition: 0.5 + (X1 + X2)/4 of 2 marked U[-1,1] values, "
        "T in [T0, 1.1 T0], correct if |err| < 0.04"
    )
    value_low = -1.0
    value_high = 1.0
    neutral = 0.0
    # Accuracy of the constant 0.5 for large T0:
    # 0.9 P(|U1 + U2| < 0.16) + 0.1 P(|U2| < 0.16), U ~ U[-1, 1]
    # (the first step is marked in 1 of 10 sequences, then X1 = 0).
    baseline = 0.9 * 0.1536 + 0.1 * 0.16

    def combine(self, first, second):
        return 0.5 + (first + second) / 4.0
