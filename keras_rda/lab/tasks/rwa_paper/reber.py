"""The RWA paper's Reber grammar task."""

import numpy as np

from keras_rda.lab.tasks.core.registry import register_task
from keras_rda.lab.tasks.core.sequences import length_mask
from keras_rda.lab.tasks.core.sequences import one_hot
from keras_rda.lab.tasks.core.task import Task
from keras_rda.lab.tasks.rwa_paper.settings import PAPER_OPTIMISER
from keras_rda.utils import validation

SYMBOLS = "BTPSXVE"

# The standard Reber graph: node -> [(letter, next node)]; after the
# leading B the walk starts at node 0 and ends with the E leaving node 5.
REBER_GRAPH = {
    0: (("T", 1), ("P", 2)),
    1: (("S", 1), ("X", 3)),
    2: (("T", 2), ("V", 4)),
    3: (("X", 2), ("S", 5)),
    4: (("P", 3), ("V", 5)),
    5: (("E", None),),
}
# Every arrow of the graph inside a sentence (B and E excluded).
_ARROWS = tuple(
    (letter, target)
    for node, arrows in REBER_GRAPH.items()
    for letter, target in arrows
    if target is not None
)


def reber_sentence(rng, typo=False):
    """A random walk through the Reber graph, optionally with one typo.

    The typo is an invalid jump (the paper's Figure 2a): at one random step
    the walk takes an arrow that does not leave the current node (and whose
    letter is not allowed there), then continues from where that arrow ends.
    """
    letters, node, nodes = ["B"], 0, []
    while node is not None:
        nodes.append(node)
        arrows = REBER_GRAPH[node]
        letter, node = arrows[rng.integers(len(arrows))]
        letters.append(letter)
    if not typo:
        return "".join(letters)
    k = int(rng.integers(len(nodes)))  # the k-th arrow after B goes wrong
    allowed = {letter for letter, _ in REBER_GRAPH[nodes[k]]}
    wrong = [arrow for arrow in _ARROWS if arrow[0] not in allowed]
    letter, node = wrong[rng.integers(len(wrong))]
    letters = letters[: k + 1] + [letter]
    while node is not None:
        arrows = REBER_GRAPH[node]
        letter, node = arrows[rng.integers(len(arrows))]
        letters.append(letter)
    return "".join(letters)


@register_task
class Reber(Task):
    """Proofread sentences of the Reber grammar: valid (1) or one typo (0).

    About half the sentences (`typo_probability`) carry exactly one typo, an
    invalid jump between unconnected arrows. Sentences are one-hot over the
    7 letters BTPSXVE, zero-padded to `max_length` and masked; longer walks
    are redrawn.

    Both classes have the same length distribution: a typo walk, left to
    itself, is longer (it jumps, then still walks to E: 9.45 against 7.96
    letters on average), so a typo sentence is a typo walk redrawn until it
    is as long as a valid walk drawn for it, and the length carries no
    information about the label.

    Naive baseline 0.5 (`baseline`): the best rule that ignores the order
    of the letters is chance (a length-only classifier scores 0.490 here,
    0.633 on unmatched sentences: `tests/lab/tasks/rwa_paper/test_reber.py`).

    Args:
        max_length: longest sentence kept (the paper does not say; 30).
        typo_probability: share of sentences with a typo (0.5).
    """

    name = "reber"
    paper = "RWA paper, section 3.2 (Figure 2)"
    description = "valid Reber-grammar sentence or one with an invalid jump?"
    output = "classification"
    num_classes = 2
    metric = "accuracy"
    baseline = 0.5
    threshold = ("accuracy", ">", 0.5)
    paper_steps = 1000
    masked = True
    seq_len_param = "max_length"
    scales = {"small": {"max_length": 20}}
    training_scales = {"small": {"steps": 300}, "paper": PAPER_OPTIMISER}
    input_dim = len(SYMBOLS)

    def __init__(self, max_length=30, typo_probability=0.5):
        self.max_length = validation.int_at_least("max_length", max_length, 5)
        self.typo_probability = validation.in_range(
            "typo_probability", typo_probability, 0.0, 1.0
        )

    def _walk(self, rng, typo=False, length=None):
        """A walk of at most `max_length` letters (exactly `length` if given)."""
        while True:
            sentence = reber_sentence(rng, typo=typo)
            if len(sentence) == length or (
                length is None and len(sentence) <= self.max_length
            ):
                return sentence

    def sentences(self, batch_size, rng):
        """`batch_size` sentences (strings) and their labels (1 = valid), each
        as long as a valid walk drawn for it (a typo sentence is redrawn
        until it is)."""
        labels = (rng.random(batch_size) >= self.typo_probability).astype(np.int32)
        sentences = []
        for label in labels:
            sentence = self._walk(rng)
            if not label:
                sentence = self._walk(rng, typo=True, length=len(sentence))
            sentences.append(sentence)
        return sentences, labels

    def generate(self, batch_size, rng):
        sentences, labels = self.sentences(batch_size, rng)
        tokens = np.zeros((batch_size, self.max_length), np.int64)
        for i, sentence in enumerate(sentences):
            tokens[i, : len(sentence)] = [SYMBOLS.index(c) for c in sentence]
        mask = length_mask([len(s) for s in sentences], self.max_length)
        inputs = one_hot(tokens, len(SYMBOLS)) * mask[..., None]
        return inputs, labels, np.ones(batch_size, np.float32)
