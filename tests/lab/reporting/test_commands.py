"""`user_command`: the command a page shows under a table, from a record's."""

import pytest

from keras_rda.lab.reporting.commands import user_command
from keras_rda.lab.reporting.commands import without_machine_paths


def test_scratch_outputs_go_and_the_record_gets_its_own_place():
    raw = (
        "keras-rda compare addition --scale paper --steps 4000 --jit "
        "--out /work/runs/add1000 --results-dir /work/runs/add1000/rec --verbose 2"
    )
    assert user_command(raw, "rda_paper/addition-compare") == (
        "keras-rda compare addition --scale paper --steps 4000 --jit "
        "--results-dir results/rda_paper"
    )


def test_a_record_not_named_by_default_keeps_its_name():
    raw = "keras-rda compare reber --models rwa --name old-name --out /tmp/x"
    assert user_command(raw, "rwa_paper/reber-rwa-lstm") == (
        "keras-rda compare reber --models rwa --results-dir results/rwa_paper "
        "--name reber-rwa-lstm"
    )


def test_runs_of_one_record_differing_in_seeds_and_models_are_one_command():
    raw = " ; ".join(
        f"keras-rda compare mnist --models {m} --seed {s} --jit --out /tmp/r{m}{s}"
        + (" --diagnose" if m == "rda" else "")
        for m in ("gru", "rda")
        for s in (0, 1)
    )
    assert user_command("bash run.sh (runs cut at step 30): " + raw, "m/x") == (
        "keras-rda compare mnist --models gru,rda --seeds 0,1 --jit --diagnose "
        "--results-dir results/m --name x"
    )


def test_runs_that_are_not_every_model_with_every_seed_stay_apart():
    raw = (
        "keras-rda compare copy --models rda --seeds 0,1 ; "
        "keras-rda compare copy --models lstm --seeds 0"
    )
    out = user_command(raw, "copy-compare")
    # Two commands cannot both write the record: neither names it.
    assert out == (
        "keras-rda compare copy --models rda --seeds 0,1 && "
        "keras-rda compare copy --models lstm --seeds 0"
    )


def test_the_backend_of_the_record_and_a_script_record_path():
    assert user_command(
        "keras-rda compare uw-copy --out /work/o", "uw_paper/uw-copy-compare", "jax"
    ) == ("KERAS_BACKEND=jax keras-rda compare uw-copy --results-dir results/uw_paper")
    assert (
        user_command(
            "python examples/x.py --json /work/runs/a/x.json --checkpoint-dir /work/c",
            "uw_paper/ag_news",
            "jax",
        )
        == "python examples/x.py --json results/uw_paper/ag_news.json"
    )


def test_quoted_arguments_and_comments_survive():
    raw = (
        "keras-rda train mnist --model rda --model-arg "
        "'init={\"value\": 4.0}' --out runs/x  # MODEL in rda, lstm"
    )
    assert user_command(raw) == (
        "keras-rda train mnist --model rda --model-arg 'init={\"value\": 4.0}'"
        "  # MODEL in rda, lstm"
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("file /work/shared/data/ag.csv, shuffled", "file ag.csv, shuffled"),
        ("in C:\\data\\f.csv.", "in f.csv."),
        (
            "relative results/x.json and /usr/bin",
            "relative results/x.json and /usr/bin",
        ),
    ],
)
def test_notes_lose_machine_paths(text, expected):
    assert without_machine_paths(text) == expected
