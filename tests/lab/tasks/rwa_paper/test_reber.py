"""The RWA paper's Reber grammar task."""

import re

import numpy as np

from keras_rda.lab.tasks import get_task
from keras_rda.lab.tasks.rwa_paper.reber import reber_sentence

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


def _length_only_accuracy(train, test):
    """Majority class per sentence length, fit on `train`, scored on `test`.

    `train` and `test` are `(sentences, labels)`; a length unseen in
    `train` gets `train`'s majority class.
    """
    (fit_sentences, fit_labels), (sentences, labels) = train, test
    overall = int(np.mean(fit_labels) >= 0.5)
    votes = {}
    for s, label in zip(fit_sentences, fit_labels):
        votes.setdefault(len(s), []).append(label)
    rule = {
        n: int(np.mean(v) > 0.5) if np.mean(v) != 0.5 else overall
        for n, v in votes.items()
    }
    predictions = [rule.get(len(s), overall) for s in sentences]
    return float(np.mean(np.asarray(predictions) == np.asarray(labels)))


def _unmatched_sentences(count, rng, max_length):
    """The former generator: a typo walk left to its own length."""
    labels = (rng.random(count) >= 0.5).astype(np.int32)
    sentences = []
    for label in labels:
        s = reber_sentence(rng, typo=not label)
        while len(s) > max_length:
            s = reber_sentence(rng, typo=not label)
        sentences.append(s)
    return sentences, labels


# 4,000 held-out sentences: with labels independent of the length, any
# length-only rule's accuracy is Binomial(4000, 1/2) / 4000, standard
# deviation 0.5 / sqrt(4000) = 0.0079; 0.03 is 3.8 standard deviations.
_SENTENCES = 4000
_TOLERANCE = 0.03


def test_length_only_classifier_stays_at_chance():
    task = get_task("reber")
    train = task.sentences(_SENTENCES, np.random.default_rng(11))
    test = task.sentences(_SENTENCES, np.random.default_rng(12))
    accuracy = _length_only_accuracy(train, test)
    assert abs(accuracy - task.baseline) < _TOLERANCE, accuracy
    assert task.baseline == 0.5
    # The same classifier finds the shortcut of typo walks of their own
    # length (the former generator): the test can fail.
    train = _unmatched_sentences(_SENTENCES, np.random.default_rng(11), 30)
    test = _unmatched_sentences(_SENTENCES, np.random.default_rng(12), 30)
    assert _length_only_accuracy(train, test) > 0.6


def test_both_classes_share_the_length_distribution():
    task = get_task("reber", max_length=20)
    sentences, labels = task.sentences(_SENTENCES, np.random.default_rng(13))
    lengths = np.array([len(s) for s in sentences])
    valid, typo = lengths[labels == 1], lengths[labels == 0]
    assert valid.min() == typo.min() == 5 and max(lengths) <= 20
    bins = np.arange(5, 22)
    p, q = (np.histogram(x, bins)[0] / len(x) for x in (valid, typo))
    # Total variation between two samples of ~2,000 from one distribution
    # over 16 lengths: about 0.03 expected; the former generator: 0.3.
    assert 0.5 * np.abs(p - q).sum() < 0.06
