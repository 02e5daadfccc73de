"""`keras_rda.lab.diagnostics.uw_metric_baselines`: the trivial predictors'
scores under each reading of the UW paper's copy accuracy."""

import json

import numpy as np
import pytest

from keras_rda.lab.diagnostics import uw_metric_baselines
from keras_rda.lab.tasks import get_task


@pytest.mark.parametrize("reading", sorted(uw_metric_baselines.READINGS))
def test_a_predictor_that_remembers_everything_scores_one_every_way(reading):
    task = get_task("uw-copy", length=6, **uw_metric_baselines.READINGS[reading])
    x, y, w = task.generate(16, np.random.default_rng(0))
    assert uw_metric_baselines.scores(task, x, y, w, k=6) == (1.0, 1.0, 1.0)


def test_per_bit_counts_two_wrong_bits_for_each_wrong_step():
    task = get_task("uw-copy", length=6)
    x, y, w = task.generate(64, np.random.default_rng(0))
    symbol, bit, sequence = uw_metric_baselines.scores(task, x, y, w, k=2)
    decoding = y[:, task.length + 1 :]
    # Right: the first 2 outputs, and later ones whose value is class 0.
    right = np.mean(np.concatenate([np.ones((64, 2)), decoding[:, 2:] == 0], 1))
    assert symbol == pytest.approx(right)
    assert bit == pytest.approx(1 - 2 * (1 - right) / task.num_classes)
    assert sequence == pytest.approx(np.mean((decoding[:, 2:] == 0).all(1)))


def test_symbols_recalled_inverts_the_per_symbol_score():
    chance, length, k = 0.1, 50, 17
    score = (k + (length - k) * chance) / length
    assert uw_metric_baselines.symbols_recalled(score, chance, length) == (
        pytest.approx(k)
    )


def test_the_record_has_a_row_per_length_reading_and_k(tmp_path):
    path = tmp_path / "baselines.json"
    uw_metric_baselines.main(
        ["--lengths", "4", "--recalled", "0", "4", "9", "--sequences", "8",
         "--json", str(path)]
    )  # fmt: skip
    record = json.loads(path.read_text())
    assert [row[:3] for row in record["rows"]] == [
        ["4", "paper (ours)", "0"],
        ["4", "paper (ours)", "4"],
        ["4", "authors' code", "0"],
        ["4", "authors' code", "4"],
    ]
    ((argv, env),) = [(c["argv"], c["env"]) for c in record["commands"]]
    assert record["kind"] == "table" and set(env) == {"KERAS_BACKEND"}
    assert argv[0] == "python"
    assert record["seeds"] == [0] and "--recalled 0 4 9" in " ".join(argv)
