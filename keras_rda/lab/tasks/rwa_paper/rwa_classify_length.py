"""Classify by length as the RWA paper runs it ("classify-by-length")."""

from keras_rda.lab.tasks.core.registry import register_preset
from keras_rda.lab.tasks.rda_paper.classify_length import ClassifyLength
from keras_rda.lab.tasks.rwa_paper.settings import PAPER_OPTIMISER


@register_preset
class RWAClassifyLength(ClassifyLength):
    """`ClassifyLength` as the RWA paper runs it: lengths 0..T, T = 1000.

    Lengths are uniform over every length 0 to T (a length-0 sequence is all
    padding), values N(0, 1), label 1 when the length exceeds T / 2; the
    criterion is to beat the 50% of guessing. At `--scale paper` every model
    trains as in the RWA paper (section 3.1): Adam at 1e-3, no gradient
    clipping, held-out batches of 100; the RWA learns its s0, the LSTM starts
    from zeros ("All initial cell states are 0").

    Args:
        max_length: T (the paper's 1000; it found T = 100 too easy).
        min_length: the shortest sequence (0 in the RWA paper).
    """

    name = "classify-by-length"
    paper = "RWA paper, section 3.3 (Figure 3)"
    description = "label: is the N(0,1) sequence of 0..T steps longer than T/2?"
    threshold = ("accuracy", ">", 0.5)
    paper_steps = 2000
    learn_initial_state = False
    training_scales = dict(
        ClassifyLength.training_scales, paper=dict(PAPER_OPTIMISER, eval_examples=100)
    )

    def __init__(self, max_length=1000, min_length=0):
        super().__init__(max_length=max_length, min_length=min_length)
