"""The multiplication problem as the feed-forward attention paper runs it."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import MarkedValueProblem


@register_preset
class FFAMultiplicationProblem(MarkedValueProblem):
    """The original multiplication problem, lengths in [T0, 1.1 T0].

    Values are drawn from U[0, 1]; markers as in `FFAAddingProblem`. The
    target is `X1 * X2` (Hochreiter & Schmidhuber, section 5.5; when the
    first step is marked, its value is 1); a sequence is correct when
    `|prediction - target| < 0.04`. Always answering 0.04 scores about 26%
    (`baseline`: `P(X1 X2 < 0.08)`; products pile up near 0). The arguments
    are `FFAAddingProblem`'s.
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

    def combine(self, first, second):
        return first * second
