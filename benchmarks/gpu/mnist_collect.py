"""Builds the sequential-MNIST records from the checkpoint folders of
benchmarks/gpu/mnist.sh.

Usage: python3 benchmarks/gpu/mnist_collect.py WORKDIR OUT_JSON

WORKDIR holds one folder per (name, seed) run, `NAME-SEED/checkpoints/mnist-NAME/
MODEL-seedS/{run.json, latest.json | result.json}`, and `NAME-SEED.cmd`, the
command of each. Every run's curve is cut at the largest evaluated step that
all runs reached (`steps`; `final` is the held-out score there), so that the
models are compared after the same number of training steps; `trained_steps`
and `seconds` are what the run did before the time limit stopped it. Writes
OUT_JSON (the runs of rda, rwa, lstm, gru) and, beside it, OUT_JSON with
`-compare` replaced by `-paper-clip` (the RDA under the paper's clipvalue 1),
in the format of `keras-rda compare` records, so `keras-rda report` reads them.
"""

import glob
import json
import pathlib
import sys

from keras_rda.lab.reporting import provenance
from keras_rda.lab.tasks import get_task_class

ORDER = {"rda": 0, "rwa": 1, "lstm": 2, "gru": 3}


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
        "params": state.get("params", 0),
        "settings": settings,
        "diverged": bool(state.get("diverged", False)),
    }


def main(workdir, out):
    groups = {}
    for folder in sorted(glob.glob(f"{workdir}/*/checkpoints/mnist-*/*-seed*")):
        found = run_of(folder)
        if found is None:
            print(f"{folder}: no evaluation yet")
            continue
        name = pathlib.Path(folder).parent.name[len("mnist-"):]
        group = "paper-clip" if name == "rda-paper-clip" else "compare"
        groups.setdefault(group, []).append(found)
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
        names = ["rda-paper-clip"] if group == "paper-clip" else list(ORDER)
        commands = sorted(
            pathlib.Path(p).read_text().strip()
            for n in names
            for p in glob.glob(f"{workdir}/{n}-[0-9]*.cmd")
        )
        record = {
            "task": task.name,
            "task_params": task.config(),
            "paper": task.paper,
            "metric": task.metric,
            "baseline": task.baseline,
            "threshold": list(task.threshold) if task.threshold else None,
            "scale": "paper",
            "command": (
                f"bash benchmarks/gpu/mnist.sh (runs cut at step {steps}, the "
                "last every run reached in the time limit): " + " ; ".join(commands)
            ),
            **provenance.provenance(),
            "runs": results,
        }
        path = pathlib.Path(out)
        if group == "paper-clip":
            path = path.with_name(path.name.replace("-compare", "-paper-clip"))
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {path}: {len(results)} runs at step {steps}")
        for r in results:
            print(
                f"  {r['model']} seed {r['settings']['seed']}: "
                f"{task.metric} {r['final'].get(task.metric)} (best {r['best']:.3f}, "
                f"trained {r['trained_steps']} steps in {r['seconds']:.0f} s)"
            )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
