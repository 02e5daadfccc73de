"""The UW paper's add task (not the adding problem)."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask


@register_task
class UWAdd(UWSequenceTask):
    """Add: floored mean of x_t and x_{T+1-t}, t = 1..floor(T/2).

    A reasoning task of the UW paper ("distant pairing", section 3.3): every
    output combines two inputs at mirrored positions, so every input
    matters. Not the adding problem (`AddingProblem`), which adds the two
    values a marker channel points at and outputs one number.

    The paper's add formula is garbled in the published text; its Appendix G
    row reads as the floored mean of `x_t` and `x_{T+1-t}`, which keeps the
    output in `[low, high]` (10 outputs per step, as section 3.1 states):
    that reading is this task. Layout and arguments: `UWSequenceTask`.
    """

    name = "uw-add"
    paper = "UW paper (Le et al. 2019), section 3.3, Table 2 and Appendix G"
    description = "UW add: floor((x_t + x_{T+1-t})/2), t <= T/2 (values 1-10)"
    min_length = 2

    def decode(self, values):
        half = values.shape[1] // 2
        return (values[:, :half] + values[:, ::-1][:, :half]) // 2

    def baseline_accuracy(self):
        grid = np.arange(self.low, self.high + 1)
        means = (grid[:, None] + grid[None, :]) // 2
        return np.bincount(means.ravel()).max() / means.size
