"""The UW paper's double task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.uw_paper.settings import PAPER_OPTIMISER
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask


@register_task
class UWDouble(UWSequenceTask):
    """Double: reproduce the input sequence twice.

    Output x_1 ... x_T x_1 ... x_T after reading x_1 ... x_T (values 1-10).
    Layout, arguments and baseline: `UWSequenceTask`.
    """

    name = "uw-double"
    paper = "UW paper (Le et al. 2019), section 3.1 and Appendix G"
    description = "UW double: output x_1..x_T twice (values 1-10)"
    # Section 3.1 tuned the learning rate and clipping per model: each model
    # keeps its own (the zoo's), unlike the fixed ones of sections 3.2-3.3.
    training_scales = {
        scale: {k: v for k, v in settings.items() if k not in PAPER_OPTIMISER}
        for scale, settings in UWSequenceTask.training_scales.items()
    }

    def decode(self, values):
        return np.concatenate([values, values], axis=1)
