"""The feed-forward attention paper's variable-length multiplication problem."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.ffa_paper.ffa_multiplication_problem import (
    FFAMultiplicationProblem,
)


@register_preset
class FFAVariableMultiplicationProblem(FFAMultiplicationProblem):
    """`FFAMultiplicationProblem` with lengths uniform in [50, 10000] (section 2.3).

    One model for every length from 50 to 10,000, padded to `max_length`
    and masked (`--scale small` stops at 500). Raffel & Ellis report 99.4%
    accuracy with attention and 55.5% with the unweighted mean after 100
    epochs.

    Args:
        min_length: the shortest sequence (50).
        max_length: the longest sequence (10000).
    """

    name = "ffa-multiplication-variable"
    paper = "Raffel & Ellis 2016, section 2.3"
    description = "ffa-multiplication with lengths uniform in [50, 10000]"
    seq_len_param = "max_length"
    scales = {"small": {"min_length": 50, "max_length": 500}}

    def __init__(self, min_length=50, max_length=10000):
        super().__init__(min_length=min_length, max_length=max_length)
