"""`recording`: the threshold check and the `RunResult` a record stores."""

import math

from keras_rda.lab.runs.recording import RunResult
from keras_rda.lab.runs.recording import format_scores
from keras_rda.lab.runs.recording import threshold_met


def test_threshold_met():
    assert threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.95})
    assert not threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.9})
    assert threshold_met(("loss", "<", 0.1), {"val_loss": 0.01})
    assert threshold_met(("crossentropy", "<", 0.1), {"val_loss": 0.01})
    assert not threshold_met(("loss", "<", 0.1), {"loss": 0.01})  # held-out only
    assert not threshold_met(None, {"val_loss": 0.0})


def test_run_result_round_trips_through_its_dict_without_the_model():
    result = RunResult(
        "rda",
        "multicopy",
        4,
        [{"step": 4, "val_accuracy": 0.5, "val_loss": math.nan}],
        final={"accuracy": 0.5, "loss": math.nan},
        keras_model=object(),
    )
    data = result.to_dict()
    assert "keras_model" not in data
    assert list(data) == [
        "model",
        "task",
        "steps",
        "curve",
        "steps_to_threshold",
        "final",
        "seconds",
        "cpu_seconds",
        "params",
        "settings",
        "diverged",
        "data",
    ]
    again = RunResult.from_dict({**data, "unknown_field": 1})
    assert again == result and again.keras_model is None
    assert again.score("accuracy") == 0.5
    assert math.isnan(again.score("crossentropy"))  # the loss


def test_format_scores_is_one_line():
    assert format_scores({"loss": 0.123456, "val_accuracy": 1.0}) == (
        "loss 0.1235, val_accuracy 1"
    )
