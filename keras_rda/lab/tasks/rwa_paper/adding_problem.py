"""The adding problem (Hochreiter & Schmidhuber 1997), as the RWA paper runs it."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.sequences import two_distinct_positions
from keras_rda.lab.tasks.core.task import Task
from keras_rda.lab.tasks.rwa_paper.settings import PAPER_OPTIMISER
from keras_rda.utils import validation


@register_task
class AddingProblem(Task):
    """Add the two numbers that a marker sequence points at.

    Each step has two channels: an indicator that is 1 at exactly two
    random steps and 0 elsewhere, and a value drawn from U[0, 1]. The
    target is the sum of the two marked values, read after the last step.
    Guessing the mean (1) scores an MSE of Var(U1 + U2) = 1/6 ~ 0.167, the
    baseline the paper's criterion asks to beat.

    The defaults are the RWA paper's: channels in its order (indicator,
    value), T = 100 (the paper also runs T = 1000: `--seq-len 1000`). The
    RDA paper's run is the preset `RDAAddingProblem`; the feed-forward
    attention paper's, Hochreiter's original definition, `FFAAddingProblem`.

    Args:
        length: steps per sequence T (100 or 1000 in the paper).

    Example:
        >>> task = AddingProblem(length=100)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 100, 2), (4, 1), (4,))
    """

    name = "adding-problem"
    paper = "RWA paper, section 3.5 (Figure 5)"
    description = "indicator + U[0,1] value, add the 2 marked values (T=100/1000)"
    output = "regression"
    metric = "mse"
    baseline = 1.0 / 6.0
    threshold = ("loss", "<", 1.0 / 6.0)
    paper_steps = 20000
    seq_len_param = "length"
    scales = {"small": {"length": 50}}
    training_scales = {"small": {"steps": 300}, "paper": PAPER_OPTIMISER}
    input_dim = 2
    #: Channel of the values in the inputs: 1 in the RWA paper (indicator,
    #: value), 0 in the RDA paper (value, marker).
    value_channel = 1

    def __init__(self, length=100):
        self.length = validation.int_at_least("length", length, 2)

    def generate(self, batch_size, rng):
        values = rng.uniform(0.0, 1.0, size=(batch_size, self.length))
        first, second = two_distinct_positions(rng, batch_size, self.length)
        rows = np.arange(batch_size)
        markers = np.zeros((batch_size, self.length))
        markers[rows, first] = 1.0
        markers[rows, second] = 1.0
        target = values[rows, first] + values[rows, second]
        channels = [values, markers] if self.value_channel == 0 else [markers, values]
        inputs = np.stack(channels, axis=-1).astype(np.float32)
        return (
            inputs,
            target[:, None].astype(np.float32),
            np.ones(batch_size, np.float32),
        )
