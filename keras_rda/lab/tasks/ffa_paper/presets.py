"""Raffel & Ellis's addition and multiplication problems (section 2).

Four registered presets of one generator, `MarkedValueProblem`: the
addition and the multiplication problem of Hochreiter & Schmidhuber (1997,
sections 5.4-5.5), each with lengths in `[T0, 1.1 T0]` (section 2.2,
Table 1) and with lengths from 50 to 10,000 in one model (section 2.3).
A sequence is correct when `|prediction - target| < 0.04`.

Not the RDA paper's `"addition"` task (U[0, 1] values, fixed length, raw
sum, MSE criterion).
"""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.ffa_paper.marked_value_problem import MarkedValueProblem

# Section 2.3: one model for every length from 50 to 10,000 (padded to
# `max_length`, masked); `--scale small` stops at 500.
_VARIABLE = {
    "defaults": {"min_length": 50, "max_length": 10000},
    "paper": "Raffel & Ellis 2016, section 2.3",
    "seq_len_param": "max_length",
    "scales": {"small": {"min_length": 50, "max_length": 500}},
}

_ADDITION = {
    "value_low": -1.0,
    "value_high": 1.0,
    "neutral": 0.0,
    "combine": staticmethod(lambda first, second: 0.5 + (first + second) / 4.0),
    # Accuracy of the constant 0.5 for large T0:
    # 0.9 P(|U1 + U2| < 0.16) + 0.1 P(|U2| < 0.16), U ~ U[-1, 1]
    # (the first step is marked in 1 of 10 sequences, then X1 = 0).
    "baseline": 0.9 * 0.1536 + 0.1 * 0.16,
}

_MULTIPLICATION = {
    "value_low": 0.0,
    "value_high": 1.0,
    "neutral": 1.0,
    "combine": staticmethod(lambda first, second: first * second),
    # Accuracy of the constant 0.04, i.e. of P(target < 0.08), for large T0:
    # 0.9 (0.08 - 0.08 ln 0.08) + 0.1 * 0.08 (X1 = 1 when step 0 is marked).
    "baseline": 0.9 * (0.08 - 0.08 * -2.5257286443082556) + 0.1 * 0.08,
}

FFAAddition = register_preset(
    MarkedValueProblem,
    "FFAAddition",
    name="ffa-addition",
    doc="""The original addition problem, lengths in [T0, 1.1 T0].

    Values are drawn from U[-1, 1]; the marker channel is 1 at one of the
    first ten steps (X1) and at one step before the midpoint (X2), -1 at the
    first and last step and 0 elsewhere. The target is the sum scaled to
    [0, 1], `0.5 + (X1 + X2) / 4` (Hochreiter & Schmidhuber, section 5.4;
    Raffel & Ellis follow "the original definition from [3]", and their
    released code uses exactly this). Always answering 0.5 scores about 15%
    (`baseline`, `P(|X1 + X2| < 0.16)`).

    Args:
        min_length: T0; the paper runs 50, 100, 500, 1000, 5000 and 10000.
        max_length: longest sequence, default `T0 + T0 // 10`.

    Example:
        >>> import numpy as np
        >>> task = FFAAddition(min_length=50)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 55, 2), (4, 1), (4,))

    Reference:
        Hochreiter & Schmidhuber 1997, "Long short-term memory", section 5.4
        (Experiment 4); Raffel & Ellis 2016, sections 2 and 2.2, Table 1.
    """,
    paper="Raffel & Ellis 2016, section 2.2 (Table 1); Hochreiter 1997, 5.4",
    description=(
        "Hochreiter's addition: 0.5 + (X1 + X2)/4 of 2 marked U[-1,1] values, "
        "T in [T0, 1.1 T0], correct if |err| < 0.04"
    ),
    **_ADDITION,
)

FFAMultiplication = register_preset(
    MarkedValueProblem,
    "FFAMultiplication",
    name="ffa-multiplication",
    doc="""The original multiplication problem, lengths in [T0, 1.1 T0].

    Values are drawn from U[0, 1]; markers as in `FFAAddition`. The target
    is `X1 * X2` (Hochreiter & Schmidhuber, section 5.5; when the first
    step is marked, its value is 1). Always answering 0.04 scores about 26%
    (`baseline`: `P(X1 X2 < 0.08)`; products pile up near 0).

    Args:
        min_length: T0; the paper runs 50, 100, 500, 1000, 5000 and 10000.
        max_length: longest sequence, default `T0 + T0 // 10`.

    Reference:
        Hochreiter & Schmidhuber 1997, "Long short-term memory", section 5.5
        (Experiment 5); Raffel & Ellis 2016, sections 2 and 2.2, Table 1.
    """,
    paper="Raffel & Ellis 2016, section 2.2 (Table 1); Hochreiter 1997, 5.5",
    description=(
        "Hochreiter's multiplication: X1 * X2 of 2 marked U[0,1] values, "
        "T in [T0, 1.1 T0], correct if |err| < 0.04"
    ),
    **_MULTIPLICATION,
)

FFAAdditionVariable = register_preset(
    MarkedValueProblem,
    "FFAAdditionVariable",
    name="ffa-addition-variable",
    doc="""`FFAAddition` with lengths uniform in [50, 10000] (section 2.3).

    Raffel & Ellis report 99.9% accuracy with attention and 77.4% with the
    unweighted mean after 100 epochs.
    """,
    description="ffa-addition with lengths uniform in [50, 10000]",
    **_ADDITION,
    **_VARIABLE,
)

FFAMultiplicationVariable = register_preset(
    MarkedValueProblem,
    "FFAMultiplicationVariable",
    name="ffa-multiplication-variable",
    doc="""`FFAMultiplication` with lengths uniform in [50, 10000] (section 2.3).

    Raffel & Ellis report 99.4% accuracy with attention and 55.5% with the
    unweighted mean after 100 epochs.
    """,
    description="ffa-multiplication with lengths uniform in [50, 10000]",
    **_MULTIPLICATION,
    **_VARIABLE,
)
