"""The adding problem as the RDA paper runs it ("addition")."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.rwa_paper.adding_problem import AddingProblem


@register_preset
class RDAAddingProblem(AddingProblem):
    """`AddingProblem` as the RDA paper runs it: T = 1000, (value, marker).

    The same sequences as `AddingProblem`, with the channels in the RDA
    paper's order (the U[0, 1] values, then the marker with two ones),
    T = 1000 and the paper's criterion: steps until the MSE is below 0.001
    (Table 1).

    Args:
        length: steps per sequence (the paper's 1000).

    Example:
        >>> import numpy as np
        >>> task = RDAAddingProblem(length=100)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 100, 2), (4, 1), (4,))
    """

    name = "addition"
    paper = "RDA paper, section 6.3 (Table 1)"
    description = "sum of the 2 marked U[0,1] values in a 1000-step sequence"
    threshold = ("loss", "<", 0.001)
    paper_steps = 10000
    training_scales = {"small": {"steps": 600}}
    value_channel = 0

    def __init__(self, length=1000):
        super().__init__(length=length)
