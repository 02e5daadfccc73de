"""The plain-Keras examples of the UW, WeiNet and feed-forward attention tasks.

Each runs with `--quick` and its options, so that every model and task
variant of the papers' experiments trains for a few steps with `model.fit`;
the test checks that the script built the model it was asked for, on the
task it was asked for, and that it trained and validated.
"""

import pathlib
import runpy
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run(name, options, monkeypatch, capsys):
    path = EXAMPLES / name
    monkeypatch.setattr(sys, "argv", [str(path), "--quick", *options])
    namespace = runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert namespace["model"].optimizer.iterations.numpy() > 0  # it trained
    assert "val_loss" in out
    return namespace, out


def layer_types(model):
    types = [type(layer).__name__ for layer in model.layers]
    cells = [
        type(layer.cell).__name__ for layer in model.layers if hasattr(layer, "cell")
    ]
    return types, cells


SCHEDULES = {
    "dnc": "RegularWriting",
    "dnc-uw": "UniformWriting",
    "dnc-cuw": "CachedUniformWriting",
}


@pytest.mark.parametrize(
    "task, model",
    [
        ("double", "dnc"),
        ("copy", "dnc-uw"),
        ("reverse", "dnc-cuw"),
        ("add", "dnc-uw"),
        ("max", "lstm"),
    ],
)
def test_uw_synthetic_tasks(task, model, monkeypatch, capsys):
    namespace, out = run(
        "uw_synthetic_tasks.py", ["--task", task, "--model", model], monkeypatch, capsys
    )
    assert namespace["task"].name == f"uw-{task}"
    keras_model = namespace["model"]
    if model == "lstm":
        assert layer_types(keras_model)[0] == ["LSTM", "Dense"]
    else:
        cell = keras_model.layers[0].cell
        assert type(cell).__name__ == "DNCCell"
        assert type(cell.write_schedule).__name__ == SCHEDULES[model]
    # One output per step, over the task's classes.
    assert keras_model.output_shape == (None, None, namespace["task"].num_classes)


@pytest.mark.parametrize("noisy, model", [(False, "dnc-cuw"), (True, "dnc-uw")])
def test_uw_sinusoid(noisy, model, monkeypatch, capsys):
    options = ["--model", model] + (["--noisy"] if noisy else [])
    namespace, _ = run("uw_sinusoid.py", options, monkeypatch, capsys)
    task = namespace["task"]
    assert task.name == ("sinusoid-noisy" if noisy else "sinusoid")
    assert task.noise == (2.0 if noisy else 0.0)
    cell = namespace["model"].layers[0].cell
    assert type(cell.write_schedule).__name__ == SCHEDULES[model]
    assert namespace["model"].output_shape == (None, None, 1)


@pytest.mark.parametrize(
    "model, cell",
    [("weinet", "WeiNetCell"), ("fw-ln", "FastWeightsCell"), ("lstm", "LSTMCell")],
)
def test_weinet_associative_recall(model, cell, monkeypatch, capsys):
    namespace, _ = run(
        "weinet_associative_recall.py", ["--model", model], monkeypatch, capsys
    )
    assert namespace["task"].name == "associative-recall"
    assert layer_types(namespace["model"])[1] == [cell]
    assert namespace["model"].output_shape == (None, 10)


@pytest.mark.parametrize(
    "options, task, pooling",
    [
        ([], "ffa-addition", "FeedForwardAttention"),
        (["--problem", "multiplication"], "ffa-multiplication", "FeedForwardAttention"),
        (
            ["--variable", "--pooling", "mean"],
            "ffa-addition-variable",
            "GlobalAveragePooling1D",
        ),
        (
            ["--problem", "multiplication", "--variable"],
            "ffa-multiplication-variable",
            "FeedForwardAttention",
        ),
    ],
)
def test_ffa_long_term_memory(options, task, pooling, monkeypatch, capsys):
    namespace, out = run("ffa_long_term_memory.py", options, monkeypatch, capsys)
    assert namespace["task"].name == task
    assert namespace["model"].get_layer("pooling").__class__.__name__ == pooling
    assert "val_accuracy" in out  # the paper's |error| < 0.04 score
