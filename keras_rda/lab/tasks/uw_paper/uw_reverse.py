"""The UW paper's reverse task."""

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask


@register_task
class UWReverse(UWSequenceTask):
    """Reverse: the input sequence backwards.

    Output x_T ... x_1 after reading x_1 ... x_T (values 1-10). Layout,
    arguments and baseline: `UWSequenceTask`.
    """

    name = "uw-reverse"
    paper = "UW paper (Le et al. 2019), section 3.2, Table 1 and Appendix G"
    description = "UW reverse: output x_T..x_1 (values 1-10)"

    def decode(self, values):
        return values[:, ::-1].copy()
