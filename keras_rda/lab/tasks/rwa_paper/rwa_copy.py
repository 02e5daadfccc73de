"""The copy task as the RWA paper runs it: the variable copy problem."""

import math

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.rda_paper.copy import Copy
from keras_rda.lab.tasks.rwa_paper.settings import PAPER_OPTIMISER
from keras_rda.utils import validation


@register_task
class RWACopy(Copy):
    """`Copy` as the RWA paper runs it: Henaff et al.'s variable copy problem.

    `copy_length` (S) symbols out of `num_symbols` (K), then `blank_length`
    (T) blanks one of which is the delimiter, then S more blanks: 2S + T
    steps. After the delimiter the output must repeat the S symbols; blank
    elsewhere. These are the sequences of `Copy(length=2S + T)` (the RDA
    paper's copy task is this problem), measured by T instead of the whole
    length and scored by cross-entropy: always answering blank costs
    S ln K / (2S + T) per step, the baseline to beat.

    Args:
        blank_length: T, 100 or 1000 in the paper (`--seq-len`).
        num_symbols: K = 8.
        copy_length: S = 10.
    """

    name = "variable-copy"
    paper = "RWA paper, section 3.4 (Figure 4)"
    description = "K=8, S=10 symbols, delimiter somewhere in T=100 (or 1000) blanks"
    metric = "crossentropy"
    paper_steps = 50000
    seq_len_param = "blank_length"
    scales = {"small": {"blank_length": 30, "num_symbols": 4, "copy_length": 3}}
    training_scales = {"small": {"steps": 300}, "paper": PAPER_OPTIMISER}

    def __init__(self, blank_length=100, num_symbols=8, copy_length=10):
        blank_length = validation.positive_int("blank_length", blank_length)
        copy_length = validation.positive_int("copy_length", copy_length)
        super().__init__(
            length=2 * copy_length + blank_length,
            num_symbols=num_symbols,
            copy_length=copy_length,
        )
        self.blank_length = blank_length
        del self.length

    @property
    def baseline(self):
        """Cross-entropy per step of always answering blank: S ln K / (2S + T)."""
        return (
            self.copy_length
            * math.log(self.num_symbols)
            / (2 * self.copy_length + self.blank_length)
        )

    @property
    def threshold(self):
        return ("loss", "<", self.baseline)

    def total_length(self):
        return 2 * self.copy_length + self.blank_length

    def recall_steps(self, batch_size, rng):
        """The delimiter replaces one of the T blanks."""
        s = self.copy_length
        starts = np.zeros((batch_size, 1), np.int64)
        recall = rng.integers(s, s + self.blank_length, size=(batch_size, 1))
        return starts, recall
