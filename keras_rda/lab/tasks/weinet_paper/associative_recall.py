"""Associative recall (Ba et al. 2016; WeiNet paper, section "Associative Recall")."""

import string

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.task import Task
from keras_rda.utils import validation

LETTERS = string.ascii_lowercase  # 26 keys
DIGITS = string.digits  # 10 values
SYMBOLS = LETTERS + DIGITS + "?"  # 37 input symbols, "?" is index 36
QUERY = SYMBOLS.index("?")
MIN_LENGTH = 5  # one pair, "??", the key
MAX_LENGTH = 2 * len(LETTERS) + 4  # 26 distinct keys, plus one blank step


def num_pairs(length):
    """Key-value pairs in a sequence of `length` input characters."""
    return (length - 3) // 2


@register_task
class AssociativeRecall(Task):
    """Recall the digit stored after a queried letter: "c9k8j3f1??k" -> "8".

    A sequence of `P` (letter, digit) pairs with distinct letters, then
    "??", then one of the `P` letters; the target is the digit that followed
    that letter. Every character is a one-hot vector over 37 symbols (26
    letters, 10 digits, "?"); the model reads the sequence one character a
    step and predicts the digit (10 classes) from its last state.

    `length` is the number of input characters (RNN steps, the paper's 9, 30
    and 50): `P = (length - 3) // 2` pairs, after one blank (all-zero) step
    when `length - 3` is odd. The paper's example "c9k8j3f1??k" is
    `length=11`. Guessing scores 0.1; the paper's LSTM and RHN reach
    0.18-0.26 at lengths 30 and 50, WeiNet 1.0 (Table 1).

    Mixed lengths (a curriculum, not in the paper): with `min_length`, each
    sequence's length is drawn from `[min_length, length]` and left-padded
    with blank steps to `length`; the held-out set always has `length`
    characters (`--seq-len 30 --task-arg min_length=9`).

    Args:
        length: number of input characters, 5 <= length <= 56 (keys are
            distinct letters, so at most 26 pairs). Default 50, the paper's
            longest setting (`--scale small` uses 9).
        min_length: None (every sequence has `length` characters) or the
            shortest length of a mixed-length stream, 5 <= min_length <=
            length.
    """

    name = "associative-recall"
    paper = "WeiNet paper, Associative Recall task, Table 1 (after Ba et al. 2016)"
    description = 'Recall the digit after a queried letter: "c9k8j3f1??k" -> 8'
    output = "classification"
    per_step = False
    num_classes = 10
    metric = "accuracy"
    baseline = 0.1
    threshold = ("accuracy", ">=", 0.99)
    paper_steps = None
    seq_len_param = "length"
    # --scale small: the paper's length 9 and model sizes, at a 30x larger
    # learning rate (WeiNet leaves its plateau within 3,000 steps).
    # --scale paper: epochs of 100K sequences at batch 128 (782 steps), 50
    # epochs (WeiNet needs < 50 at length 50), 10K test sequences; Adam at
    # 1e-4, gradients clipped to [-5, 5] for every model (appendix).
    scales = {"small": {"length": 9}}
    training_scales = {
        "small": {
            "steps": 3000,
            "batch_size": 128,
            "units": 50,
            "eval_every": 250,
            "eval_examples": 1000,
            "learning_rate": 3e-3,
        },
        "paper": {
            "steps": 50 * 782,
            "batch_size": 128,
            "units": 50,
            "eval_every": 782,
            "eval_examples": 10000,
            "learning_rate": 1e-4,
            "clipvalue": 5.0,
        },
    }

    input_dim = len(SYMBOLS)

    def __init__(self, length=50, min_length=None):
        self.length = validation.int_in_range("length", length, MIN_LENGTH, MAX_LENGTH)
        if min_length is not None:
            min_length = validation.int_in_range(
                "min_length", min_length, MIN_LENGTH, length
            )
        self.min_length = min_length

    @property
    def num_pairs(self):
        return num_pairs(self.length)

    def generate_symbols(self, batch_size, rng):
        """Draws `(symbols, targets)`: symbol ids `[batch, length]` (-1 =
        blank step) and target digits `[batch]`."""
        most = self.num_pairs
        keys = np.argsort(rng.random((batch_size, len(LETTERS))), axis=1)[:, :most]
        values = rng.integers(0, len(DIGITS), size=(batch_size, most))
        if self.min_length is None:
            pairs = np.full(batch_size, most)
        else:
            pairs = rng.integers(num_pairs(self.min_length), most + 1, size=batch_size)
        which = rng.integers(0, pairs, size=batch_size)
        symbols = np.full((batch_size, self.length), -1, dtype=np.int64)
        for count in np.unique(pairs):
            rows = np.flatnonzero(pairs == count)
            # Left-padded: the sequence ends at the last step.
            body = symbols[rows, self.length - (2 * count + 3) :]
            body[:, 0 : 2 * count : 2] = keys[rows, :count]
            body[:, 1 : 2 * count : 2] = len(LETTERS) + values[rows, :count]
            body[:, 2 * count] = QUERY
            body[:, 2 * count + 1] = QUERY
            body[:, 2 * count + 2] = keys[rows, which[rows]]
            symbols[rows, self.length - (2 * count + 3) :] = body
        rows = np.arange(batch_size)
        return symbols, values[rows, which].astype(np.int32)

    def held_out(self, num_examples, seed=12345):
        """The evaluation set, every sequence `length` characters long."""
        if self.min_length is None:
            return super().held_out(num_examples, seed)
        return AssociativeRecall(self.length).held_out(num_examples, seed)

    def generate(self, batch_size, rng):
        symbols, targets = self.generate_symbols(batch_size, rng)
        inputs = np.zeros((batch_size, self.length, self.input_dim), np.float32)
        b, t = np.nonzero(symbols >= 0)
        inputs[b, t, symbols[b, t]] = 1.0
        return inputs, targets, np.ones((batch_size,), np.float32)


def decode(symbols):
    """Symbol ids of one sequence -> its string ("_" for a blank step)."""
    return "".join("_" if s < 0 else SYMBOLS[s] for s in symbols)
