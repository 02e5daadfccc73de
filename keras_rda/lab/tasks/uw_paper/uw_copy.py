"""The UW paper's copy task."""

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.uw_paper.uw_sequence_task import UWSequenceTask


@register_task
class UWCopy(UWSequenceTask):
    """Copy, as the UW paper runs it: reproduce the input sequence.

    Output x_1 ... x_T right after reading x_1 ... x_T and `<eos>` (values
    1-10): the copy idea in the UW paper's encode-then-decode form, where
    every input must be recalled. (The RDA paper's `Copy` recalls a few
    symbols after a random delay of blanks, with another generator.)
    Layout, arguments and baseline: `UWSequenceTask`.
    """

    name = "uw-copy"
    paper = "UW paper (Le et al. 2019), section 3.2, Table 1 and Appendix G"
    description = "UW copy: output x_1..x_T (values 1-10)"

    def decode(self, values):
        return values.copy()
