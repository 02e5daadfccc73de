"""`user_command`: the command a page shows under a table, from a record's
structured commands; `record_command`: the structured command a run writes."""

import keras
import pytest

from keras_rda.lab.cli.options import record_command
from keras_rda.lab.reporting import provenance
from keras_rda.lab.reporting.commands import user_command
from keras_rda.lab.reporting.commands import without_machine_paths


def _run(*argv, backend=None):
    return provenance.command(["keras-rda", *argv], backend)


def test_a_run_writes_its_command_without_scratch_outputs():
    """Where a run's outputs went decides nothing it measures: the record's
    command has no `--out`, `--verbose`, `--results-dir`, `--name`."""
    argv = "compare addition --steps 40 --out /work/runs/a --verbose=2 --name n"
    command = record_command([*argv.split(), "--results-dir", "/tmp/rec", "--jit"])
    backend = keras.backend.backend()
    env = {} if backend == "tensorflow" else {"KERAS_BACKEND": backend}
    assert command == {
        "argv": ["keras-rda", "compare", "addition", "--steps", "40", "--jit"],
        "env": env,
    }


def test_paths_in_the_checkout_or_the_data_directory_become_relative(monkeypatch):
    monkeypatch.setenv("KERAS_RDA_DATA_DIR", "/data/shared")
    words = ["--data", "/data/shared/enwik8", "--x=/data/shared/a=b", "--y=/tmp/y"]
    command = provenance.command(["keras-rda", "enwik8", *words])
    data, option, elsewhere = command["argv"][3:]
    assert data.endswith("data/shared/enwik8") and not data.startswith("/")
    assert option.startswith("--x=..") and option.endswith("data/shared/a=b")
    assert elsewhere == "--y=/tmp/y"  # outside both: as given


def test_the_record_gets_its_own_place():
    command = _run("compare", "addition", "--steps", "4000")
    assert user_command([command], "rda_paper/addition-compare") == (
        "keras-rda compare addition --steps 4000 --results-dir results/rda_paper"
    )


def test_a_record_not_named_by_default_keeps_its_name():
    train = _run("train", "reber", "--model", "rwa")
    assert user_command([train], "rwa_paper/reber-rwa") == (
        "keras-rda train reber --model rwa --results-dir results/rwa_paper"
    )
    assert user_command([_run("compare", "reber")], "rwa_paper/reber-rwa-lstm") == (
        "keras-rda compare reber --results-dir results/rwa_paper --name reber-rwa-lstm"
    )


def test_commands_that_write_one_record_together_name_no_place():
    commands = [
        _run("compare", "copy", "--models", "rda", "--seeds", "0,1"),
        _run("compare", "copy", "--models", "lstm", "--seeds", "0", backend="jax"),
    ]
    assert user_command(commands, "copy-compare") == (
        "keras-rda compare copy --models rda --seeds 0,1 && "
        "KERAS_BACKEND=jax keras-rda compare copy --models lstm --seeds 0"
    )


def test_a_scripts_json_is_the_record_path():
    commands = [
        provenance.command(["python", "x.py", "--json", "/w/a.json"], "jax"),
        provenance.command(["python", "x.py", "--json", "/w/a.json", "--append"]),
    ]
    assert user_command(commands, "uw_paper/ag_news") == (
        "KERAS_BACKEND=jax python x.py --json results/uw_paper/ag_news.json && "
        "python x.py --json results/uw_paper/ag_news.json --append"
    )


def test_quoted_arguments_and_notes_survive():
    command = _run("train", "mnist", "--model", "MODEL", "--model-arg", 'i={"v": 4}')
    command["note"] = "MODEL in rda, lstm"
    assert user_command([command]) == (
        "keras-rda train mnist --model MODEL --model-arg 'i={\"v\": 4}'"
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
