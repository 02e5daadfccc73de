"""The RDA paper's copy task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.sequences import copy_batch
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation


@register_task
class Copy(Task):
    """Memorise the first symbols, output them when the recall marker comes.

    The input starts with `copy_length` random symbols out of `num_symbols`;
    the rest is blank except one recall marker, placed uniformly at random
    over the remaining sequence (leaving room for the answer). The targets
    are blank everywhere except the `copy_length` steps after the marker,
    which must repeat the symbols. Accuracy counts every step, so always
    answering blank scores `1 - copy_length / length`.

    Inputs are one-hot over `num_symbols + 2` (symbols, blank, marker);
    targets are ints over `num_symbols + 1` (symbols, blank).

    The defaults are the RDA paper's. This is Henaff et al.'s variable copy
    problem, which the RWA paper runs as `RWACopy`; the UW paper's copy is
    another generator, `UWCopy`.

    Args:
        length: steps per sequence (1000, as every RDA-paper task).
        num_symbols: alphabet size K (the paper does not say; 8 as the RWA
            paper's variable copy).
        copy_length: symbols to memorise S (not stated in the paper; 10 as
            the RWA paper's variable copy).
    """

    name = "copy"
    paper = "RDA paper, section 6.3 (Table 5)"
    description = "memorise 10 symbols, repeat them after a recall marker (1000 steps)"
    output = "classification"
    per_step = True
    metric = "accuracy"
    threshold = ("accuracy", ">", 0.999)
    paper_steps = 20000
    seq_len_param = "length"
    scales = {"small": {"length": 50, "num_symbols": 4, "copy_length": 3}}
    training_scales = {"small": {"steps": 400}}

    def __init__(self, length=1000, num_symbols=8, copy_length=10):
        self.num_symbols = validation.positive_int("num_symbols", num_symbols)
        self.copy_length = validation.positive_int("copy_length", copy_length)
        # Room for the symbols, the recall marker and their copy.
        self.length = validation.int_at_least(
            "length", length, 2 * self.copy_length + 1
        )
        self.input_dim = self.num_symbols + 2
        self.num_classes = self.num_symbols + 1

    @property
    def baseline(self):
        """Accuracy of always answering blank."""
        return 1.0 - self.copy_length / self.length

    def recall_steps(self, batch_size, rng):
        """`(starts, recall)` of the single episode, `[batch, 1]` each."""
        starts = np.zeros((batch_size, 1), np.int64)
        recall = rng.integers(
            self.copy_length, self.length - self.copy_length, size=(batch_size, 1)
        )
        return starts, recall

    def total_length(self):
        return self.length

    def generate(self, batch_size, rng):
        inputs, targets = copy_batch(
            rng,
            batch_size,
            self.num_symbols,
            self.copy_length,
            self.total_length(),
            self.recall_steps(batch_size, rng),
        )
        return inputs, targets, np.ones(targets.shape, np.float32)
