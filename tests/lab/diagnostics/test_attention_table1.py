"""`keras_rda.lab.diagnostics.attention_table1`: the table's cells and the
trial it keeps for each learning rate."""

import json

from keras_rda.lab.diagnostics import attention_table1


def test_a_cell_is_the_epochs_to_100_or_the_accuracy_after_each_epoch():
    assert attention_table1.outcome(1, [1.0], 3) == "1"
    assert attention_table1.outcome(2, [0.5, 1.0], 3) == "2 (50.0% after 1)"
    assert attention_table1.outcome(None, [0.25, 0.5], 2) == "not in 2 (25.0, 50.0%)"


def test_the_record_keeps_every_trial_and_the_papers_number(tmp_path):
    path = tmp_path / "table1.json"
    attention_table1.main(
        ["--tasks", "ffa-addition", "--models", "ffmean", "--lengths", "50",
         "--learning-rates", "1e-3", "1e-2", "--max-epochs", "1",
         "--steps-per-epoch", "1", "--batch-size", "4", "--eval-examples", "8",
         "--no-jit", "--json", str(path)]
    )  # fmt: skip
    record = json.loads(path.read_text())
    (row,) = record["rows"]
    assert row[:4] == ["addition", "unweighted", "50", "1"]
    assert [t["learning_rate"] for t in record["trials"]] == [1e-3, 1e-2]
    assert all(len(t["accuracy_per_epoch"]) == 1 for t in record["trials"])
    ((argv, env),) = [(c["argv"], c["env"]) for c in record["commands"]]
    assert record["kind"] == "table" and set(env) == {"KERAS_BACKEND"}
    assert argv[0] == "python"
    assert record["seeds"] == [0] and "--learning-rates 1e-3 1e-2" in " ".join(argv)
