"""The feed-forward attention paper's variable-length adding problem."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.ffa_paper.ffa_adding_problem import FFAAddingProblem


@register_preset
class FFAVariableAddingProblem(FFAAddingProblem):
    """`FFAAddingProblem` with lengths uniform in [50, 10000] (section 2.3).

    One model for every length from 50 to 10,000, padded to `max_length`
    and masked (`--scale small` stops at 500). Raffel & Ellis report 99.9%
    accuracy with attention and 77.4% with the unweighted mean after 100
    epochs.

    Args:
        min_length: the shortest sequence (50).
        max_length: the longest sequence (10000).
    """

    name = "ffa-addition-variable"
    paper = "Raffel & Ellis 2016, section 2.3"
    description = "ffa-addition with lengths uniform in [50, 10000]"
    seq_len_param = "max_length"
    scales = {"small": {"min_length": 50, "max_length": 500}}

    def __init__(self, min_length=50, max_length=10000):
        super().__init__(min_length=min_length, max_length=max_length)
