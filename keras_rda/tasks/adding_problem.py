"""The RWA paper's adding problem."""

from keras_rda.tasks.addition import Addition
from keras_rda.tasks.task import register_task


@register_task
class AddingProblem(Addition):
    """Hochreiter & Schmidhuber's adding problem as the RWA paper runs it.

    The same sequences as `Addition`, with the channels in the RWA paper's
    order (indicator, value), T = 100 by default (the paper also runs
    T = 1000: `--seq-len 1000`), and the paper's criterion: beat the naive
    MSE of 0.167 (always answering 1).

    Args:
        length: steps per sequence T (100 or 1000 in the paper).

    Reference:
        Ostmeyer & Cowell 2017 (RWA paper), section 3.5, Figure 5.
    """

    name = "adding-problem"
    paper = "RWA paper, section 3.5 (Figure 5)"
    description = "indicator + U[0,1] value, add the 2 marked values (T=100/1000)"
    baseline = 1.0 / 6.0
    threshold = ("loss", "<", 1.0 / 6.0)
    paper_steps = 20000
    scales = {"small": {"length": 50}}
    training_scales = {"small": {"steps": 300}}
    value_channel = 1

    def __init__(self, length=100):
        super().__init__(length=length)
