"""The RDA paper's addition task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.sequences import two_distinct_positions
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation


@register_task
class Addition(Task):
    """Add the two numbers that a marker sequence points at.

    Each step has two channels: a value drawn from U[0, 1] and a marker that
    is 1 at exactly two random steps and 0 elsewhere. The target is the sum
    of the two marked values, read after the last step. Guessing the mean
    (1) scores an MSE of Var(U1 + U2) = 1/6 ~ 0.167.

    Args:
        length: steps per sequence (the paper's 1000).

    Example:
        >>> task = Addition(length=100)
        >>> x, y, w = task.generate(4, np.random.default_rng(0))
        >>> x.shape, y.shape, w.shape
        ((4, 100, 2), (4, 1), (4,))

    Reference:
        Maginnis & Richemond 2017 (RDA paper), sections 4 and 6.3, Table 1.
    """

    name = "addition"
    paper = "RDA paper, section 6.3 (Table 1)"
    description = "sum of the 2 marked U[0,1] values in a 1000-step sequence"
    output = "regression"
    metric = "mse"
    baseline = 1.0 / 6.0
    threshold = ("loss", "<", 0.001)
    paper_steps = 10000
    seq_len_param = "length"
    scales = {"small": {"length": 50}}
    training_scales = {"small": {"steps": 600}}
    input_dim = 2
    # Channel order of the inputs: (value, marker) in the RDA paper.
    value_channel = 0

    def __init__(self, length=1000):
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
