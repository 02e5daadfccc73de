"""The RDA paper's classify-length task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.sequences import length_mask
from keras_rda.lab.tasks.core.sequences import nonzero_normal
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation


@register_task
class ClassifyLength(Task):
    """Is the sequence longer than half the maximum length?

    A sequence of `min_length .. max_length` steps (uniform) of N(0, 1)
    values is zero-padded to `max_length` steps (`masked`: padded steps are
    all-zero inputs, real steps never are); the label is 1 when the length
    exceeds `max_length / 2`. Half the labels are 1, so guessing scores 50%.

    The defaults are the RDA paper's (lengths 1..1000, solved at accuracy
    1.0); the RWA paper draws lengths from 0 (the preset `RWAClassifyLength`).

    At `--scale paper` every model trains as in the RDA paper (section 6.1):
    250 units, batches of 100, Adam at 1e-3 and gradients clipped to
    [-1, 1] for every model, the RWA included; every model learns its
    initial state (section 6.3). The paper does not say what it scored
    accuracy 1.0 on; the RWA paper (which the task comes from) scores 100
    test sequences, so the held-out set is 100 sequences (a model that errs
    once in 200 scores 1.0 on it with probability 0.61, on 1,000 with 0.007).

    Args:
        max_length: the longest sequence (the paper's 1000).
        min_length: the shortest sequence (1 in the RDA paper).
    """

    name = "classify-length"
    paper = "RDA paper, section 6.3 (Table 2)"
    description = "label: is the (padded, masked) sequence of 1..1000 steps > 500?"
    output = "classification"
    num_classes = 2
    metric = "accuracy"
    baseline = 0.5
    threshold = ("accuracy", ">=", 1.0)
    paper_steps = 2000
    masked = True
    # "All RNN architectures could learn their initial hidden state for this
    # task, which improved performance for all of them" (RDA paper, 6.3).
    learn_initial_state = True
    seq_len_param = "max_length"
    scales = {"small": {"max_length": 100}}
    # Small scale: lengths up to 100, and a learning rate of 3e-3 so that the
    # RDA reaches accuracy 1.0 within 600 steps of batches of 32.
    training_scales = {
        "small": {"steps": 600, "learning_rate": 3e-3},
        "paper": {"clipvalue": 1.0, "eval_examples": 100},
    }
    input_dim = 1

    def __init__(self, max_length=1000, min_length=1):
        self.max_length = validation.int_at_least("max_length", max_length, 2)
        self.min_length = validation.int_in_range(
            "min_length", min_length, 0, self.max_length
        )

    def generate(self, batch_size, rng):
        lengths = rng.integers(self.min_length, self.max_length + 1, size=batch_size)
        mask = length_mask(lengths, self.max_length)
        values = nonzero_normal(rng, (batch_size, self.max_length)) * mask
        labels = (lengths > self.max_length / 2).astype(np.int32)
        return values[..., None], labels, np.ones(batch_size, np.float32)
