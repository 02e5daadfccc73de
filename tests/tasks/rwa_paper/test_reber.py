"""The RWA paper's Reber grammar task."""

import re

import numpy as np

from keras_rda.tasks import get_task
from keras_rda.tasks.rwa_paper.reber import reber_sentence

# The Reber language as a regular expression, derived by hand from the
# graph (independent of the task's walk): from node 3 either "SE" or
# "XT*V" to node 4; from node 4 either "VE" or "P" back to node 3.
_L3 = "(XT*VP)*(SE|XT*VVE)"
REBER_RE = re.compile(f"^B(TS*X{_L3}|PT*V(VE|P{_L3}))$")


def test_reber_labels_match_grammar():
    task = get_task("reber")
    rng = np.random.default_rng(6)
    sentences, labels = task.sentences(2000, rng)
    for s, label in zip(sentences, labels):
        assert bool(REBER_RE.match(s)) == bool(label), s
        assert len(s) <= task.max_length
    assert 0.45 < labels.mean() < 0.55
    # A typo is one invalid jump: the sentence still starts with B, ends with E.
    typos = [s for s, label in zip(sentences, labels) if not label]
    assert all(s[0] == "B" and s[-1] == "E" for s in typos)


def test_reber_encoding():
    task = get_task("reber")
    x, y, _ = task.generate(50, np.random.default_rng(7))
    sentences, _ = task.sentences(50, np.random.default_rng(7))
    for row, s in zip(x, sentences):
        assert "".join("BTPSXVE"[i] for i in row[: len(s)].argmax(-1)) == s
        assert np.all(row[len(s) :] == 0)


def test_reber_walk_is_valid_without_typo():
    rng = np.random.default_rng(8)
    assert all(REBER_RE.match(reber_sentence(rng)) for _ in range(500))
