"""The UW paper's max task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask


@register_task
class UWMax(UWSequenceTask):
    """Max: max(x_{2t-1}, x_{2t}), t = 1..floor(T/2), values 1-50.

    A reasoning task of the UW paper ("local pairing", section 3.3), on
    values 1-50 (`high=50`). Layout and arguments: `UWSequenceTask`.
    """

    name = "uw-max"
    paper = "UW paper (Le et al. 2019), section 3.3, Table 2 and Appendix G"
    description = "UW max: max(x_{2t-1}, x_{2t}), t <= T/2 (values 1-50)"
    default_high = 50
    min_length = 2

    def decode(self, values):
        half = values.shape[1] // 2
        return np.maximum(values[:, 0 : 2 * half : 2], values[:, 1 : 2 * half : 2])

    def baseline_accuracy(self):
        # The most frequent maximum of two uniform draws is `high`.
        n = self.num_values
        return 1.0 - ((n - 1) / n) ** 2
