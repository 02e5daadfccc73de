"""Convergence runs of the RDA paper's claims (slow: `pytest -m slow`).

Both run the `--scale small` settings of `keras-rda` (64 units, batches of
32, CPU-sized tasks, learning rate 3e-3), i.e. what
`keras-rda train/compare TASK --jit` does by default.
"""

import pytest

from keras_rda.lab.runs import train
from keras_rda.lab.tasks import get_task_class

pytestmark = pytest.mark.slow


def _run(task_name, model, **overrides):
    cls = get_task_class(task_name)
    settings = cls.training_settings("small")
    settings.update(overrides)
    return train(
        cls.at_scale("small"),
        model,
        steps=settings["steps"],
        batch_size=settings["batch_size"],
        units=settings["units"],
        eval_every=settings["eval_every"],
        eval_examples=settings["eval_examples"],
        learning_rate=settings.get("learning_rate"),
        jit_compile=True,
        verbose=0,
    )


def test_rda_learns_classify_length():
    """RDA paper Table 2: the RDA classifies length perfectly (here >= 0.99)."""
    result = _run("classify-length", "rda")  # learns its initial state
    assert max(c["val_accuracy"] for c in result.curve) >= 0.99


def test_multicopy_rda_solves_rwa_cannot():
    """RDA paper Table 6: the RDA passes 0.99 accuracy, the RWA stays far below.

    10 consecutive copies of 3 symbols (out of 4) in 100 steps, 400 steps of
    training: the RWA cannot discount the copies it has already answered.
    """
    rda = _run("multicopy", "rda")
    rwa = _run("multicopy", "rwa")
    assert rda.steps_to_threshold is not None
    assert rda.final["accuracy"] > 0.99
    assert max(c["val_accuracy"] for c in rwa.curve) < 0.95
