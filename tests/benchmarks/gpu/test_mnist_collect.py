"""`benchmarks/gpu/mnist_collect.py`: every run cut at the last step all runs
reached, one record per group (`compare`, `discount4`, `paper-clip`), each
with its own commands."""

import json

from tests.benchmarks.conftest import benchmark_script

SETTINGS = {"batch_size": 100, "units": 250, "eval_every": 250, "eval_examples": 100}
TASK_PARAMS = {"pool": 1, "permuted": False, "permutation_seed": 0}


def _collector():
    with benchmark_script("gpu/mnist_collect") as module:
        return module


def _curve(*accuracies):
    return [
        {"step": 250 * (i + 1), "accuracy": a, "val_accuracy": a, "val_loss": 1 - a}
        for i, a in enumerate(accuracies)
    ]


def _run(workdir, run, model, seed, *, curve, params=None, model_kwargs=None):
    """A run folder as mnist.sh leaves it (`--name mnist-RUN`), finished when
    `params` is given (a result), else cut (its last checkpoint's state),
    and the command line beside it."""
    folder = workdir / f"{run}-{seed}" / "checkpoints" / f"mnist-{run}"
    folder = folder / f"{model}-seed{seed}"
    folder.mkdir(parents=True)
    settings = dict(SETTINGS, seed=seed, model_kwargs=model_kwargs)
    spec = {"model": model, "task": "mnist", "task_params": TASK_PARAMS}
    (folder / "run.json").write_text(json.dumps(dict(spec, settings=settings)))
    state = {"curve": curve, "seconds": 30.0, "cpu_seconds": 20.0}
    if params is not None:
        state = dict(spec, settings=settings, params=params, **state)
    name = "result.json" if params is not None else "latest.json"
    (folder / name).write_text(json.dumps(state))
    command = f"keras-rda compare mnist --models {model} --seed {seed}"
    (workdir / f"{run}-{seed}.cmd").write_text(command + "\n")


def test_runs_are_cut_at_the_step_every_run_reached(tmp_path, monkeypatch):
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir()
    out.mkdir()
    _run(work, "gru", "gru", 1, curve=_curve(0.3, 0.6, 0.7))
    _run(work, "rda", "rda", 0, curve=_curve(0.05, 0.4, 0.9, 0.95), params=7)
    discount4 = {"discount_bias_initializer": {"class_name": "Constant"}}
    _run(
        work, "rda-discount4", "rda", 2, curve=_curve(0.2, 0.5), model_kwargs=discount4
    )
    collector = _collector()
    built = []  # a cut run has no parameter count: its model is built again

    def param_count(key):
        built.append(json.loads(key))
        return 11

    monkeypatch.setattr(collector, "_param_count", param_count)
    collector.main(work, out / "mnist-compare.json")

    plain = json.loads((out / "mnist-compare.json").read_text())
    assert plain["task"] == "mnist" and plain["task_params"] == TASK_PARAMS
    rda, gru = plain["runs"]  # the RDA first, as on the pages
    assert (rda["model"], gru["model"]) == ("rda", "gru")
    # The discount-4 run reached step 500 only: all runs are read there.
    assert rda["steps"] == gru["steps"] == rda["settings"]["steps"] == 500
    assert [p["step"] for p in rda["curve"]] == [250, 500]
    assert rda["trained_steps"] == 1000 and gru["trained_steps"] == 750
    assert rda["final"]["accuracy"] == 0.4 and rda["best"] == 0.4
    assert rda["steps_to_threshold"] == 500  # threshold: accuracy above 0.1
    assert gru["steps_to_threshold"] == 250
    assert rda["params"] == 7 and gru["params"] == 11
    assert plain["command_note"].startswith(
        "bash benchmarks/gpu/mnist.sh (runs cut at step 500"
    )
    lines = " && ".join(" ".join(c["argv"]) for c in plain["commands"])
    assert "--models gru --seed 1" in lines
    assert "--seed 2" not in lines  # the discount-4 run's own record

    start4 = json.loads((out / "mnist-discount4.json").read_text())
    (run,) = start4["runs"]
    assert run["settings"]["seed"] == 2 and run["steps"] == 500
    assert run["settings"]["model_kwargs"] == discount4
    (command,) = start4["commands"]
    assert " ".join(command["argv"]).endswith("compare mnist --models rda --seed 2")
    assert sorted(key[0] for key in built) == ["gru", "rda"]
    assert [key[3] for key in built] == [250, 250]  # units from run.json
    assert {"discount_bias_initializer": {"class_name": "Constant"}} in [
        key[4] for key in built
    ]
