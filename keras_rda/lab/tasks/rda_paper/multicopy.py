"""The RDA paper's multiple sequence copy task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.rda_paper.copy import Copy
from keras_rda.utils import validation


@register_task
class Multicopy(Copy):
    """Many consecutive copy tasks in one sequence.

    The sequence is `num_copies` blocks of `block_length` steps. Each block
    starts with `copy_length` random symbols; the recall marker comes `gap`
    steps after the last of them, and the `copy_length` outputs right after
    the marker must repeat that block's symbols (blank everywhere else). A
    unit must forget each block once it has answered it: the RWA, which
    cannot discount its past, fails here, the RDA solves it. Accuracy counts
    every step; always answering blank scores
    `1 - copy_length / block_length`.

    The defaults are the paper's setting (50 copies of 20 steps = 1000 steps,
    the marker "a couple of steps" after each); the paper does not give the
    alphabet size K or the symbols per episode S, here 8 each.

    Args:
        num_copies: episodes per sequence.
        block_length: steps per episode.
        num_symbols: alphabet size K.
        copy_length: symbols per episode S.
        gap: steps from the last symbol to the recall marker.
    """

    name = "multicopy"
    paper = "RDA paper, section 6.4 (Table 6)"
    description = "50 consecutive copy tasks (8 symbols each) in one 1000-step sequence"
    threshold = ("accuracy", ">", 0.99)
    paper_steps = 10000
    seq_len_param = "num_copies"
    scales = {
        "small": {
            "num_copies": 10,
            "block_length": 10,
            "num_symbols": 4,
            "copy_length": 3,
        }
    }
    # Small scale: 10 copies of 3 symbols out of 4 (100 steps), and a
    # learning rate of 3e-3 so that the RDA solves it within 400 steps.
    training_scales = {"small": {"steps": 400, "eval_every": 25, "learning_rate": 3e-3}}

    def __init__(
        self, num_copies=50, block_length=20, num_symbols=8, copy_length=8, gap=2
    ):
        self.num_copies = validation.positive_int("num_copies", num_copies)
        self.gap = validation.positive_int("gap", gap)
        copy_length = validation.positive_int("copy_length", copy_length)
        # A block holds the symbols, the gap and their copy.
        self.block_length = validation.int_at_least(
            "block_length", block_length, 2 * copy_length + self.gap
        )
        super().__init__(
            length=self.num_copies * self.block_length,
            num_symbols=num_symbols,
            copy_length=copy_length,
        )
        del self.length

    @property
    def baseline(self):
        """Accuracy of always answering blank."""
        return 1.0 - self.copy_length / self.block_length

    def total_length(self):
        return self.num_copies * self.block_length

    def recall_steps(self, batch_size, rng):
        """Fixed positions: block starts and `gap` steps after each block's symbols."""
        starts = np.arange(self.num_copies) * self.block_length
        recall = starts + self.copy_length - 1 + self.gap
        starts = np.broadcast_to(starts, (batch_size, self.num_copies))
        recall = np.broadcast_to(recall, (batch_size, self.num_copies))
        return starts, recall
