"""End-to-end tests of the runner, the report and the `keras-rda` CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

from keras_rda.experiments import report
from keras_rda.experiments.cli import main
from keras_rda.experiments.runner import RunResult
from keras_rda.experiments.runner import threshold_met
from keras_rda.experiments.runner import train
from keras_rda.tasks import get_task

TINY = [
    "--steps",
    "4",
    "--eval-every",
    "2",
    "--batch-size",
    "4",
    "--units",
    "3",
    "--eval-examples",
    "6",
    "--verbose",
    "0",
]


def test_threshold_met():
    assert threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.95})
    assert not threshold_met(("accuracy", ">", 0.9), {"val_accuracy": 0.9})
    assert threshold_met(("loss", "<", 0.1), {"val_loss": 0.01})
    assert threshold_met(("crossentropy", "<", 0.1), {"val_loss": 0.01})
    assert not threshold_met(("loss", "<", 0.1), {"loss": 0.01})  # held-out only
    assert not threshold_met(None, {"val_loss": 0.0})


def test_train_records_curve_and_threshold():
    task = get_task("reber", max_length=12)
    result = train(
        task,
        "gru",
        steps=6,
        batch_size=4,
        units=3,
        eval_every=2,
        eval_examples=8,
        verbose=0,
    )
    assert [c["step"] for c in result.curve] == [2, 4, 6]
    assert set(result.final) >= {"loss", "accuracy"}
    # Accuracy is a multiple of 1/8 on 8 held-out sentences.
    assert result.final["accuracy"] * 8 == pytest.approx(
        round(result.final["accuracy"] * 8)
    )
    first = [c for c in result.curve if c["val_accuracy"] > 0.5]
    assert result.steps_to_threshold == (first[0]["step"] if first else None)
    assert result.params > 0 and not result.diverged


def test_stop_at_threshold():
    task = get_task("addition", length=5)
    task.threshold = ("loss", "<", 1e9)  # met at the first evaluation
    result = train(
        task,
        "lstm",
        steps=10,
        batch_size=4,
        units=3,
        eval_every=2,
        eval_examples=8,
        verbose=0,
        stop_at_threshold=True,
    )
    assert result.steps_to_threshold == 2 and result.steps == 2


def test_report_table_json_png(tmp_path):
    task = get_task("multicopy")
    runs = [
        RunResult(
            "rda",
            "multicopy",
            400,
            [{"step": 200, "val_accuracy": 0.995, "val_loss": 0.02}],
            200,
            {"accuracy": 0.995, "loss": 0.02},
            3.0,
            10,
        ),
        RunResult(
            "rwa",
            "multicopy",
            400,
            [{"step": 200, "val_accuracy": 0.7, "val_loss": float("nan")}],
            None,
            {"accuracy": 0.7},
            2.0,
            9,
            diverged=True,
        ),
    ]
    table = report.results_table(runs, task)
    lines = table.splitlines()
    assert "accuracy > 0.99" in lines[0]
    assert lines[2].startswith("| rda | 200 | 0.9950 |")
    assert lines[3].startswith("| rwa | > 400 (diverged) | 0.7000 |")
    path = report.write_json(tmp_path / "r.json", report.record(runs, task, "small"))
    data = json.loads(path.read_text())
    assert data["runs"][1]["curve"][0]["val_loss"] is None  # NaN -> null
    assert data["threshold"] == ["accuracy", ">", 0.99]
    png = report.plot_curves(runs, task, tmp_path / "c.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_train_writes_records(tmp_path, capsys):
    code = main(
        [
            "train",
            "classify-length",
            "--model",
            "rda",
            "--seq-len",
            "10",
            "--out",
            str(tmp_path),
        ]
        + TINY
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| rda |" in out and "max_length 1000 -> 10" in out
    data = json.loads((tmp_path / "classify-length-rda.json").read_text())
    assert data["task_params"]["max_length"] == 10
    assert data["runs"][0]["settings"]["units"] == 3
    assert [c["step"] for c in data["runs"][0]["curve"]] == [2, 4]
    assert (tmp_path / "classify-length-rda.png").stat().st_size > 0


def test_cli_saves_memory_heatmap_for_memory_models(tmp_path, capsys):
    code = main(
        [
            "train",
            "uw-copy",
            "--model",
            "dnc-uw",
            "--seq-len",
            "8",
            "--out",
            str(tmp_path),
        ]
        + TINY
    )
    assert code == 0
    assert "memory write/read weights" in capsys.readouterr().out
    assert (tmp_path / "uw-copy-dnc-uw-memory.png").stat().st_size > 0
    # Models without memory get no heat map.
    assert not list(tmp_path.glob("*lstm*memory*"))


def test_cli_compare(tmp_path, capsys):
    code = main(
        [
            "compare",
            "multicopy",
            "--models",
            "rda,rwa",
            "--task-arg",
            "num_copies=2",
            "--out",
            str(tmp_path),
        ]
        + TINY
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| rda |" in out and "| rwa |" in out
    data = json.loads((tmp_path / "multicopy-compare.json").read_text())
    assert [r["model"] for r in data["runs"]] == ["rda", "rwa"]
    assert data["task_params"]["num_copies"] == 2
    assert (tmp_path / "multicopy-compare.png").exists()


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
    ],
)
def test_cli_errors_are_one_line(argv, fragment, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("keras-rda: error:")
    assert fragment in err
    assert not list(tmp_path.iterdir())


def test_cli_lists(capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    for name in ["multicopy", "reber", "variable-copy", "pmnist"]:
        assert name in out
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "rda-exp-tanh" in out and "clip none" in out


def test_console_entry_point_subprocess():
    result = subprocess.run(
        [sys.executable, "-m", "keras_rda.experiments.cli", "models"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert all(m in result.stdout for m in ["rda", "rwa", "lstm", "gru"])
    assert np.sum([line.startswith("rda ") for line in result.stdout.splitlines()]) == 1
