"""The parser: subcommands, shared options, help texts and one-line errors."""

import argparse

import pytest

from keras_rda.lab.cli import build_parser
from keras_rda.lab.cli import main
from keras_rda.lab.cli.command import SUBCOMMANDS
from tests.lab.cli.conftest import run_cli

COMMON = ("--seed", "--out", "--verbose", "--strategy", "--tpu", "--scale")


def _subparsers(parser):
    action = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    )
    return action.choices


def test_one_module_per_subcommand():
    names = [module.NAME for module in SUBCOMMANDS]
    assert names == [
        "train",
        "compare",
        "tasks",
        "models",
        "enwik8",
        "report",
        "merge",
    ]
    assert sorted(_subparsers(build_parser())) == sorted(names)


@pytest.mark.parametrize("command", ["train", "compare", "enwik8"])
def test_training_subcommands_share_the_common_options(command):
    sub = _subparsers(build_parser())[command]
    flags = {s for a in sub._actions for s in a.option_strings}
    assert set(COMMON) <= flags
    assert ("--jit" in flags) == (command != "enwik8")  # enwik8 always compiles
    strategy = next(a for a in sub._actions if "--strategy" in a.option_strings)
    assert strategy.choices == (
        "default",
        "data-parallel",
        "mirrored",
        "multi-worker",
        "tpu",
    )


def test_every_flag_has_help():
    for name, sub in _subparsers(build_parser()).items():
        for action in sub._actions:
            if action.help == argparse.SUPPRESS:  # deprecated aliases
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}"


def test_enwik8_deprecated_spellings_still_work(capsys):
    sub = _subparsers(build_parser())["enwik8"]
    args = sub.parse_args(["--preset", "tiny", "--bptt", "7", "--quiet"])
    assert (args.scale, args.seq_len, args.verbose) == ("tiny", 7, 0)
    err = capsys.readouterr().err
    assert "--preset is deprecated, use --scale" in err
    assert "--bptt is deprecated, use --seq-len" in err
    assert "--quiet is deprecated, use --verbose 0" in err


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["train", "nope"], "expected one of adding-problem, addition,"),
        (["train", "copy", "--model", "nope"], "expected one of "),
        (["compare", "copy", "--models", "rda,nope"], "got 'nope'"),
        (["train", "mnist", "--seq-len", "5"], "--seq-len"),
        (["train", "copy", "--task-arg", "length"], "KEY=VALUE"),
        (["train", "copy", "--task-arg", "colour=3"], "colour"),
        (["train", "copy", "--steps", "0"], "--steps"),
        (["compare", "copy", "--seeds", "0,x"], "--seeds"),
        (["train", "copy", "--strategy", "gpu"], "invalid choice: 'gpu'"),
        (["train", "copy", "--strategy", "tpu"], "--strategy tpu: "),  # no TPU here
        (["train", "copy", "--bogus"], "unrecognized arguments: --bogus"),
        (["enwik8", "--data", "/nonexistent/enwik8"], "--data"),
        (["enwik8", "--steps", "0"], "--steps"),
        (["nope"], "invalid choice: 'nope'"),
    ],
)
def test_user_errors_are_one_line_with_status_2(argv, fragment, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path)] if argv != ["nope"] else argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("keras-rda"), err
    assert "error:" in err and fragment in err
    assert not list(tmp_path.iterdir())


def test_lists(capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    for name in ["multicopy", "reber", "variable-copy", "pmnist"]:
        assert name in out
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "rda-exp-tanh" in out and "clip none" in out


def test_module_entry_points_subprocess():
    result = run_cli(["models"])
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert all(m in result.stdout for m in ["rda", "rwa", "lstm", "gru"])
    assert sum(line.startswith("rda ") for line in lines) == 1


def test_the_console_script_quiets_tensorflow_unless_the_user_chose(tmp_path):
    import _keras_rda_cli

    driver = tmp_path / "version"
    environ = {}
    _keras_rda_cli.quiet_tensorflow(environ, driver=driver)
    assert environ == {"TF_CPP_MIN_LOG_LEVEL": "3"}  # no driver: cuInit fails
    driver.write_text("NVRM version: 550\n")
    environ = {}
    _keras_rda_cli.quiet_tensorflow(environ, driver=driver)
    assert environ == {"TF_CPP_MIN_LOG_LEVEL": "2"}  # a driver: errors stay
    environ = {"TF_CPP_MIN_LOG_LEVEL": "0"}
    _keras_rda_cli.quiet_tensorflow(environ, driver=tmp_path / "none")
    assert environ == {"TF_CPP_MIN_LOG_LEVEL": "0"}


def _tensorflow_warning(message):
    import logging

    return logging.LogRecord("tensorflow", logging.WARNING, "", 0, message, (), None)


def test_new_models_traces_are_not_reported_as_retracing():
    from keras_rda.lab.cli.command import NewModelTraces

    keep = NewModelTraces().filter
    assert not keep(
        _tensorflow_warning(
            "5 out of the last 13 calls to <function TensorFlowTrainer."
            "_make_function.<locals>.multi_step_on_iterator at 0x7f> triggered "
            "tf.function retracing. Tracing is expensive"
        )
    )
    assert keep(
        _tensorflow_warning(
            "6 out of the last 6 calls to <function rda_step at 0x7f> triggered "
            "tf.function retracing. Tracing is expensive"
        )
    )
    assert keep(_tensorflow_warning("another warning"))


def test_a_comparison_prints_no_cuinit_error_and_no_retracing(tmp_path):
    """`keras-rda compare` as a user runs it (their TF_CPP_MIN_LOG_LEVEL
    unset): three models, each traced once, are no retracing (TensorFlow
    warned of it from the third model on), and a machine
    without a GPU says nothing of its failed cuInit. (TensorFlow 2.21's
    import still prints its INFO lines from before its logging starts.)"""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT
    from tests.lab.cli.conftest import TINY

    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    result = subprocess.run(
        [sys.executable, "-m", "_keras_rda_cli", "compare", "addition"]
        + ["--models", "rda,rwa,lstm", "--out", str(tmp_path), *TINY],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "retracing" not in result.stderr, result.stderr
    if not os.path.exists("/proc/driver/nvidia/version"):
        assert "cuInit" not in result.stderr, result.stderr
