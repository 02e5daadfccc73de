"""Convergence on associative recall at length 30 (WeiNet paper, Table 1), slow.

Run with `pytest -m slow tests/lab/zoo/test_associative_convergence.py`.

The paper trains at learning rate 1e-4 for up to 35 epochs of 100K
sequences (~27,000 steps) to solve length 30. The budget here, stated and
not the paper's:
- 50 units, batch 128, the paper's clipping to [-5, 5], Adam at 3e-3;
- a mixed-length curriculum: every training sequence has its own length,
  uniform in [9, 30], left-padded with blank steps to 30
  (`get_task("associative-recall", length=30, min_length=9)`);
- scored on 2,000 held-out sequences of exactly 30 characters (13 pairs)
  every 500 steps, up to `MAX_STEPS`.

WeiNet uses the "row and col" update of the paper's Figure 3, which trains
fastest there (here, at length 9 over three seeds, it is not clearly faster
than the element-wise form; see docs/papers/weinet.md).

When WeiNet leaves the plateau near chance differs from run to run, with
the same weights too: with seed 0's weights, the stream of seed 1 kept it
at 0.21-0.25 for 20,000 steps (this test, before it ran several seeds),
where the stream of seed 0 took it past 0.8 by step 3,000 (the record
below). So the claim is over seeds: each run is `keras-rda compare`'s
(`keras_rda.lab.runs.train`, which seeds the weights and the
training stream from the seed), and WeiNet must reach 0.95 with at least
`NEEDED` of `SEEDS` (the test stops once it has). LSTM, trained the same
way with the first seed for as many steps as the slowest of those WeiNet
runs needed to first reach 0.95, must stay below 0.5 (the paper: 25.6%).

The same training as a recorded run (`keras-rda compare associative-recall
--models weinet-rc,lstm --seq-len 30 --task-arg min_length=9
--learning-rate 3e-3 --steps 15500 --eval-every 500 --eval-examples 2000
--jit --seeds 0,1,2`): `results/weinet_paper/associative-recall-compare.json`,
shown in docs/papers/weinet.md (its LSTM clips at its zoo entry's 1.0
where this test clips every model at 5, as the paper does). This test
asserts the targets above, not that record's numbers.
"""

import numpy as np
import pytest

from keras_rda.lab.runs import train
from keras_rda.lab.tasks import get_task

LENGTH = 30
SHORTEST = 9
MAX_STEPS = 20000
EVAL_EVERY = 500
LEARNING_RATE = 3e-3
SEEDS = (0, 1, 2)
NEEDED = 2
TARGET = 0.95


def _run(model, seed, steps):
    """`keras-rda compare`'s run on the curriculum, every model clipped at 5."""
    return train(
        get_task("associative-recall", length=LENGTH, min_length=SHORTEST),
        model,
        steps=steps,
        batch_size=128,
        units=50,
        eval_every=EVAL_EVERY,
        eval_examples=2000,  # exactly LENGTH characters
        seed=seed,
        learning_rate=LEARNING_RATE,
        clipvalue=5.0,
        jit_compile=True,
        verbose=2,
    )


def _first_step_at(result, target):
    return next((c["step"] for c in result.curve if c["val_accuracy"] >= target), None)


@pytest.mark.slow
def test_weinet_solves_length_30_recall_where_lstm_stays_low():
    needed_steps = {}
    for seed in SEEDS:
        step = _first_step_at(_run("weinet-rc", seed, MAX_STEPS), TARGET)
        if step is not None:
            needed_steps[seed] = step
        if len(needed_steps) == NEEDED:
            break
    assert len(needed_steps) >= NEEDED, (
        f"WeiNet reached {TARGET} with seeds {sorted(needed_steps)} of {SEEDS}"
    )

    lstm = _run("lstm", SEEDS[0], max(needed_steps.values()))
    assert np.isfinite(lstm.final["accuracy"])
    assert lstm.final["accuracy"] < 0.5
