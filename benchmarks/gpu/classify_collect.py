"""Builds the records of benchmarks/gpu/classify.sh from its checkpoint folders.

Usage: python3 benchmarks/gpu/classify_collect.py WORKDIR OUT

WORKDIR holds one folder per (run, seed), each with
`checkpoints/NAME/MODEL-seedS/{run.json, latest.json | result.json}`, and
`NAME--MODEL-SEED.cmd`, the command of each; NAME (the runs' `--name`) is the
group: `classify-length`, `classify-length-discount4`, `classify-by-length`.
A run that finished gives its `result.json`; one cut by the time limit gives
the curve of its last checkpoint (`"partial": true`, `steps` = its last
evaluated step). Writes OUT/NAME.json per group, in the format of
`keras-rda compare` records, so `keras-rda report` reads it.
"""

import glob
import json
import pathlib
import shlex
import sys

from keras_rda.lab.reporting import report
from keras_rda.lab.tasks import get_task_class


def run_of(folder):
    """`(spec, result)` of one run folder: its finished result, else one
    made from its last checkpoint (`partial`), else None before the first
    evaluation."""
    folder = pathlib.Path(folder)
    spec = json.loads((folder / "run.json").read_text())
    done = folder / "result.json"
    if done.is_file():
        result = json.loads(done.read_text())
        result["partial"] = False
        return spec, result
    latest = folder / "latest.json"
    if not latest.is_file():
        return spec, None
    state = json.loads(latest.read_text())
    curve = state.get("curve") or []
    if not curve:
        return spec, None
    last = curve[-1]
    settings = dict(spec["settings"])
    settings["steps"] = last["step"]
    result = {
        "model": spec["model"],
        "task": spec["task"],
        "steps": last["step"],
        "curve": curve,
        "steps_to_threshold": state.get("steps_to_threshold"),
        "final": {k[4:]: v for k, v in last.items() if k.startswith("val_")},
        "seconds": state.get("seconds", 0.0),
        "cpu_seconds": state.get("cpu_seconds", 0.0),
        "params": 0,
        "settings": settings,
        "diverged": False,
        "partial": True,
    }
    return spec, result


def record_commands(lines):
    """The structured commands (`keras_rda.lab.cli.options.record_command`)
    of the `.cmd` files' `keras-rda ...` lines."""
    from keras_rda.lab.cli.options import record_command

    return [record_command(shlex.split(line)[1:]) for line in lines]


def main(workdir, out):
    commands = {}
    for path in sorted(glob.glob(f"{workdir}/*.cmd")):
        name = pathlib.Path(path).name.split("--")[0]
        commands.setdefault(name, []).append(pathlib.Path(path).read_text().strip())
    groups = {}
    for folder in sorted(glob.glob(f"{workdir}/*/checkpoints/*/*-seed*")):
        spec, result = run_of(folder)
        if result is not None:
            name = pathlib.Path(folder).parent.name
            groups.setdefault(name, (spec, []))[1].append(result)
    for name in sorted(set(commands) - set(groups)):  # nothing trained: show the logs
        tails = {}
        for log in sorted(glob.glob(f"{workdir}/*.log")):
            lines = pathlib.Path(log).read_text(errors="replace").splitlines()
            tails[pathlib.Path(log).name] = [
                line for line in lines if not line.startswith(("I0000", "WARNING"))
            ][-8:]
        path = pathlib.Path(out) / f"{name}.json"
        path.write_text(json.dumps({"name": name, "runs": [], "logs": tails}, indent=2))
        print(f"wrote {path}: no run reached its first evaluation")
    order = {"rda": 0, "rwa": 1, "lstm": 2, "gru": 3}
    for name, (spec, runs) in sorted(groups.items()):
        task = get_task_class(spec["task"])(**spec["task_params"])
        runs.sort(key=lambda r: (order.get(r["model"], 9), r["settings"]["seed"]))
        data = report.record(runs, task, "paper")
        data["commands"] = record_commands(commands.get(name, []))
        path = pathlib.Path(out) / f"{name}.json"
        report.write_json(path, data)
        cut = sum(r["partial"] for r in runs)
        print(f"wrote {path}: {len(runs)} runs, {cut} cut by the time limit")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
