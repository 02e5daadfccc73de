"""`train` and `compare` parse the command line into one `RunSpec` and hand
it to the lab once; the lab's refusals become one-line errors."""

import pathlib

import pytest

from keras_rda.lab import runs
from keras_rda.lab.cli import main
from keras_rda.lab.cli import runs as cli_runs
from keras_rda.lab.cli.options import record_command
from keras_rda.lab.runs import RunSpec


@pytest.fixture
def handed(monkeypatch):
    """The specs `keras_rda.lab.runs.run` is called with (nothing runs)."""
    calls = []
    monkeypatch.setattr(runs, "run", calls.append)
    return calls


def test_compare_hands_one_run_spec_to_the_lab_once(handed, tmp_path):
    argv = ["compare", "multicopy", "--models", "rda,rwa", "--seeds", "0,1"]
    argv += ["--steps", "3", "--out", str(tmp_path), "--verbose", "0"]
    assert main(argv) == 0
    assert handed == [
        RunSpec(
            task="multicopy",
            models=("rda", "rwa"),
            seeds=(0, 1),
            steps=3,
            out=tmp_path,
            verbose=0,
            command=record_command(argv),
        )
    ]
    assert handed[0].record_name == "multicopy-compare"
    assert not list(tmp_path.iterdir())  # the lab writes, not the command line


def test_train_hands_every_flag_over_in_one_run_spec(handed, tmp_path):
    argv = ["train", "uw-copy", "--model", "dnc", "--scale", "paper", "--seed", "3"]
    argv += ["--seq-len", "8", "--task-arg", "num_symbols=4", "--units", "3,lstm=5"]
    argv += ["--batch-size", "4", "--eval-every", "2", "--eval-examples", "6"]
    argv += ["--learning-rate", "0.01", "--clipvalue", "0", "--clipnorm", "5"]
    argv += ["--model-arg", "controller=lstm_ln", "--jit", "--until-threshold"]
    argv += ["--name", "uw-x", "--out", str(tmp_path / "o"), "--restart"]
    argv += ["--results-dir", str(tmp_path / "r"), "--tensorboard", str(tmp_path)]
    argv += ["--verbose", "2"]
    assert main(argv) == 0
    (spec,) = handed
    assert spec == RunSpec(
        task="uw-copy",
        models=("dnc",),
        scale="paper",
        task_params={"num_symbols": 4, "length": 8},
        seeds=(3,),
        steps=None,
        batch_size=4,
        units=3,
        model_units={"lstm": 5},
        eval_every=2,
        eval_examples=6,
        learning_rate=0.01,
        clipvalue=0.0,
        clipnorm=5.0,
        model_args={"controller": "lstm_ln"},
        jit_compile=True,
        strategy="default",
        tpu=None,
        stop_at_threshold=True,
        name="uw-x",
        comparison=False,
        out=tmp_path / "o",
        results_dir=tmp_path / "r",
        tensorboard_dir=tmp_path,
        restart=True,
        verbose=2,
        command=record_command(argv),
    )
    assert spec.record_path == tmp_path / "r" / "uw-x.json"


def test_global_clipnorm_is_handed_over_in_place_of_the_other_clips(handed):
    argv = ["compare", "mnist", "--models", "rda", "--global-clipnorm", "1"]
    argv += ["--verbose", "0"]
    assert main(argv) == 0
    (spec,) = handed
    assert spec.global_clipnorm == 1.0
    assert spec.clipvalue is None and spec.clipnorm is None
    assert spec == RunSpec(
        task="mnist",
        models=("rda",),
        global_clipnorm=1.0,
        verbose=0,
        command=record_command(argv),
    )
    # Without the flag: none, the paper's clip (the zoo's or the scale's).
    assert main(["compare", "mnist", "--models", "rda"]) == 0
    assert handed[1].global_clipnorm is None


def test_train_without_a_name_is_named_after_its_model(handed):
    assert main(["train", "reber", "--model", "gru"]) == 0
    (spec,) = handed
    assert not spec.comparison and spec.record_name == "reber-gru"
    assert spec.models == ("gru",) and spec.seeds == (0,)
    # The default --out of the help text is the lab's.
    assert spec.out == pathlib.Path(cli_runs.DEFAULT_OUT) == RunSpec("t", "m").out


@pytest.mark.parametrize(
    "error, message",
    [
        (runs.RunSpecError("no such model"), "keras-rda: error: no such model\n"),
        (
            runs.StrategyUnavailable("NotFoundError: no TPU"),
            "keras-rda: error: --strategy default: NotFoundError: no TPU\n",
        ),
        (
            runs.CheckpointMismatch("holds another run"),
            "keras-rda: error: holds another run; rerun with --restart to discard it\n",
        ),
    ],
)
def test_the_labs_refusals_are_one_line_errors(monkeypatch, capsys, error, message):
    def refuse(spec):
        raise error

    monkeypatch.setattr(runs, "run", refuse)
    assert main(["compare", "reber", "--models", "gru"]) == 2
    assert capsys.readouterr().err == message


def test_a_value_the_spec_refuses_is_a_one_line_error_naming_the_flag(handed, capsys):
    # The flags parse, the spec would not hold: a negative seed. The command
    # line checks it first, so that the message names the flag.
    assert main(["compare", "reber", "--seeds", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`--seeds`" in err and not handed
    with pytest.raises(runs.RunSpecError, match="`seeds`, expected a non-negative"):
        RunSpec("reber", ("gru",), seeds=(-1,))
