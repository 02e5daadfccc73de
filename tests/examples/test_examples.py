"""Runs every script in `examples/` with `--quick` (in-process, a few seconds each).

Examples with a test module of their own (which runs them with `--quick` and
checks what they report) are not run a second time here.
"""

import pathlib
import runpy
import sys

import pytest

EXAMPLES = sorted(
    (pathlib.Path(__file__).resolve().parents[2] / "examples").glob("*.py")
)
# Run by tests/examples/test_memory_examples.py, test_associative_examples.py
# and test_paper_task_examples.py.
OWN_TESTS = {
    "document_classification",
    "mnist_dnc_cuw",
    "mnist_glimpses",
    "uw_synthetic_tasks",
    "uw_sinusoid",
    "weinet_associative_recall",
    "ffa_long_term_memory",
    "char_rda_streaming",  # tests/examples/test_streaming_example.py
}


def test_examples_exist():
    names = {p.stem for p in EXAMPLES}
    assert {
        "rda_multicopy",
        "rda_copy",
        "rda_addition",
        "rda_classify_length",
        "sequential_mnist",
        "rwa_reber",
        "rwa_variable_copy",
        "rwa_adding_problem",
        # UW paper: double/copy/reverse/add/max and sinusoid, DNC +- UW/CUW
        "uw_synthetic_tasks",
        "uw_sinusoid",
        # WeiNet paper: associative recall with WeiNet, FW-LN, LSTM
        "weinet_associative_recall",
        # Raffel & Ellis: addition/multiplication, fixed and variable length
        "ffa_long_term_memory",
    } <= names


def test_examples_with_own_tests_exist():
    assert OWN_TESTS <= {p.stem for p in EXAMPLES}


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if p.stem not in OWN_TESTS], ids=lambda p: p.stem
)
def test_example_runs_quick(path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [str(path), "--quick"])
    namespace = runpy.run_path(str(path), run_name="__main__")
    model = namespace["model"]
    assert model.optimizer.iterations.numpy() > 0  # it trained
    assert "val_loss" in capsys.readouterr().out
