"""`benchmarks/gpu/classify_collect.py`: one record per run group (the runs'
`--name`), finished and cut runs told apart, each group with its commands."""

import json

from tests.benchmarks.conftest import benchmark_script

SETTINGS = {"batch_size": 100, "units": 250, "eval_every": 25, "eval_examples": 100}
TASK_PARAMS = {"max_length": 1000, "min_length": 1}


def _collector():
    with benchmark_script("gpu/classify_collect") as module:
        return module


def _curve(*accuracies):
    return [
        {"step": 25 * (i + 1), "accuracy": a, "val_accuracy": a, "val_loss": 1 - a}
        for i, a in enumerate(accuracies)
    ]


def _run(workdir, run, name, model, seed, *, finished, curve):
    """A run folder as `keras-rda compare --out WORKDIR/RUN-SEED --name NAME`
    leaves it, and the command line classify.sh writes beside it."""
    folder = workdir / f"{run}-{seed}" / "checkpoints" / name / f"{model}-seed{seed}"
    folder.mkdir(parents=True)
    settings = dict(SETTINGS, seed=seed)
    spec = {"model": model, "task": "classify-length", "task_params": TASK_PARAMS}
    (folder / "run.json").write_text(json.dumps(dict(spec, settings=settings)))
    if finished:
        result = dict(spec, steps=curve[-1]["step"], curve=curve, params=7)
        result.update(steps_to_threshold=curve[-1]["step"], settings=settings)
        (folder / "result.json").write_text(json.dumps(result))
    else:
        state = {"curve": curve, "steps_to_threshold": None, "seconds": 9.0}
        (folder / "latest.json").write_text(json.dumps(state))
    command = f"keras-rda compare classify-length --models {model} --seed {seed}"
    (workdir / f"{name}--{model}-{seed}.cmd").write_text(command + "\n")


def test_runs_are_grouped_by_name_with_their_commands(tmp_path):
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir()
    out.mkdir()
    _run(
        work,
        "length-gru",
        "classify-length",
        "gru",
        0,
        finished=True,
        curve=_curve(0.5, 1.0),
    )
    _run(
        work,
        "length-rda",
        "classify-length",
        "rda",
        1,
        finished=False,
        curve=_curve(0.5, 0.5, 0.6),
    )
    _run(
        work,
        "length-rda-discount4",
        "classify-length-discount4",
        "rda",
        0,
        finished=True,
        curve=_curve(0.9, 1.0),
    )
    _collector().main(work, out)

    plain = json.loads((out / "classify-length.json").read_text())
    assert [(r["model"], r["settings"]["seed"]) for r in plain["runs"]] == [
        ("rda", 1),
        ("gru", 0),
    ]  # the RDA first, as on the pages
    rda, gru = plain["runs"]
    assert rda["partial"] and rda["steps"] == 75 and rda["final"]["accuracy"] == 0.6
    assert rda["settings"]["steps"] == 75
    assert not gru["partial"] and gru["steps_to_threshold"] == 50
    assert plain["task"] == "classify-length" and plain["task_params"] == TASK_PARAMS
    lines = [" ".join(c["argv"]) for c in plain["commands"]]
    assert len(lines) == 2 and all(
        line.startswith("keras-rda compare") for line in lines
    )
    assert any("--models gru --seed 0" in line for line in lines)

    start4 = json.loads((out / "classify-length-discount4.json").read_text())
    assert len(start4["runs"]) == 1 and not start4["runs"][0]["partial"]
    command = "keras-rda compare classify-length --models rda --seed 0"
    assert [" ".join(c["argv"]) for c in start4["commands"]] == [command]


def test_a_group_that_never_reached_an_evaluation_says_so(tmp_path):
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir()
    out.mkdir()
    (work / "classify-by-length--rwa-0.cmd").write_text("keras-rda compare ...\n")
    (work / "by-length-rwa-0.log").write_text("Traceback ...\nValueError: boom\n")
    _collector().main(work, out)
    empty = json.loads((out / "classify-by-length.json").read_text())
    assert empty["runs"] == []
    assert empty["logs"]["by-length-rwa-0.log"][-1] == "ValueError: boom"
