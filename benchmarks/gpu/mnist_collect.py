"""Builds the sequential-MNIST records from the checkpoint folders of
benchmarks/gpu/mnist.sh.

Usage: python3 benchmarks/gpu/mnist_collect.py WORKDIR OUT_JSON

WORKDIR holds one folder per (name, seed) run, `NAME-SEED/checkpoints/mnist-NAME/
MODEL-seedS/{run.json, latest.json | result.json}`, and `NAME-SEED.cmd`, the
command of each. Every run's curve, in every record, is cut at the largest
evaluated step that all runs found (of all records together) reached
(`steps`; `final` is the held-out score there), so that the models are
compared after the same number of training steps; `trained_steps` and
`seconds` are what the run did before the time limit stopped it. `params`
is the run's trainable parameter count: a finished run's own, else (a run
cut before its end, whose checkpoint holds none) that of the zoo model
built again from the run's `run.json` (model, task, units, model_kwargs),
as the run loop builds it. Writes, in the format of `keras-rda compare`
records (so `keras-rda report` reads them), one record per group whose runs
reached an evaluation: OUT_JSON (the runs of rda, rwa, lstm, gru) and,
beside it, OUT_JSON with `-compare` replaced by `-paper-clip` (the RDA
under the paper's clipvalue 1, "rda-paper-clip") and by `-discount4` (the
same with the discount bias started at 4, "rda-discount4").
"""

import functools
import glob
import json
import pathlib
import shlex
import sys

from keras_rda.lab.reporting import report
from keras_rda.lab.tasks import get_task_class

ORDER = {"rda": 0, "rwa": 1, "lstm": 2, "gru": 3}
# Run names of mnist.sh with a record of their own (the group's name
# replaces "compare" in OUT_JSON); every other run goes to "compare".
GROUPS = {"rda-paper-clip": "paper-clip", "rda-discount4": "discount4"}


def run_of(folder):
    """`(fingerprint, curve, state)` of one run folder, or None without a curve."""
    folder = pathlib.Path(folder)
    spec = json.loads((folder / "run.json").read_text())
    for name in ("result.json", "latest.json"):
        path = folder / name
        if path.is_file():
            state = json.loads(path.read_text())
            if state.get("curve"):
                return spec, state["curve"], state
    return None


@functools.cache
def _param_count(key):
    """Trainable parameters of the zoo model that `key` (JSON of model,
    task, task parameters, units and model_kwargs) describes, built as
    `keras_rda.lab.runs.run_loop.build_model` builds it (first output)."""
    import keras
    import numpy as np

    from keras_rda.lab.zoo.registry import get_model_spec

    model_name, task_name, task_params, units, model_kwargs = json.loads(key)
    task = get_task_class(task_name)(**task_params)
    model = get_model_spec(model_name).build(task, units=units, **model_kwargs)
    if len(model.outputs) > 1:
        model = keras.Model(model.inputs, model.outputs[0], name=model.name)
    return int(sum(np.prod(w.shape) for w in model.trainable_weights))


def param_count(spec, state):
    """The run's trainable parameter count: from its finished state, else
    from its model built again from `run.json` (`spec`)."""
    if state.get("params"):
        return int(state["params"])
    settings = spec["settings"]
    key = json.dumps(
        [
            spec["model"],
            spec["task"],
            spec["task_params"],
            settings["units"],
            settings.get("model_kwargs") or {},
        ],
        sort_keys=True,
    )
    return _param_count(key)


def cut(spec, curve, state, task, steps):
    """The run's result dict with its curve cut at `steps`."""
    kept = [point for point in curve if point["step"] <= steps]
    last = kept[-1]
    settings = dict(spec["settings"], steps=steps)
    op, value = task.threshold[1], task.threshold[2]
    reached = [
        p["step"]
        for p in kept
        if (
            p["val_" + task.metric] > value
            if op == ">"
            else p["val_" + task.metric] < value
        )
    ]
    return {
        "model": spec["model"],
        "task": spec["task"],
        "steps": steps,
        "trained_steps": curve[-1]["step"],
        "curve": kept,
        "steps_to_threshold": reached[0] if reached else None,
        "final": {k[4:]: v for k, v in last.items() if k.startswith("val_")},
        "best": max(p["val_" + task.metric] for p in kept),
        "seconds": state.get("seconds", 0.0),
        "cpu_seconds": state.get("cpu_seconds", 0.0),
        "params": param_count(spec, state),
        "settings": settings,
        "diverged": bool(state.get("diverged", False)),
    }


def group_of(name):
    """The record group of mnist.sh's run `name`."""
    return GROUPS.get(name, "compare")


def record_commands(lines):
    """The structured commands (`keras_rda.lab.cli.options.record_command`)
    of the `.cmd` files' `keras-rda ...` lines."""
    from keras_rda.lab.cli.options import record_command

    return [record_command(shlex.split(line)[1:]) for line in lines]


def main(workdir, out):
    groups = {}
    for folder in sorted(glob.glob(f"{workdir}/*/checkpoints/mnist-*/*-seed*")):
        found = run_of(folder)
        if found is None:
            print(f"{folder}: no evaluation yet")
            continue
        name = pathlib.Path(folder).parent.name[len("mnist-") :]
        groups.setdefault(group_of(name), []).append(found)
    if not groups:
        print("no run reached an evaluation")
        return
    steps = min(curve[-1]["step"] for runs in groups.values() for _, curve, _ in runs)
    print(f"every run is cut at step {steps}")
    for group, runs in groups.items():
        spec = runs[0][0]
        task = get_task_class(spec["task"])(**spec["task_params"])
        results = [cut(s, c, st, task, steps) for s, c, st in runs]
        results.sort(key=lambda r: (ORDER.get(r["model"], 9), r["settings"]["seed"]))
        # NAME-SEED.cmd: the run's name is all before the last "-".
        commands = sorted(
            path.read_text().strip()
            for path in pathlib.Path(workdir).glob("*.cmd")
            if group_of(path.stem.rsplit("-", 1)[0]) == group
        )
        data = report.record(results, task, "paper")
        data["commands"] = record_commands(commands)
        data["command_note"] = (
            f"bash benchmarks/gpu/mnist.sh (runs cut at step {steps}, the "
            "last every run reached in the time limit)"
        )
        path = pathlib.Path(out)
        if group != "compare":
            path = path.with_name(path.name.replace("-compare", f"-{group}"))
        report.write_json(path, data)
        print(f"wrote {path}: {len(results)} runs at step {steps}")
        for r in results:
            print(
                f"  {r['model']} seed {r['settings']['seed']}: "
                f"{task.metric} {r['final'].get(task.metric)} (best {r['best']:.3f}, "
                f"trained {r['trained_steps']} steps in {r['seconds']:.0f} s, "
                f"{r['params']} parameters)"
            )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
