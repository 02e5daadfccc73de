"""Reporting of training runs: results table, JSON record, learning curves."""

import json
import math
import pathlib

from keras_rda.experiments.runner import metric_key


def _fmt(value, metric):
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "nan"
    if metric == "accuracy":
        return f"{value:.4f}"
    return f"{value:.4g}"


def threshold_text(task):
    """The task's criterion as text, e.g. `"accuracy > 0.99"`."""
    if task.threshold is None:
        return "threshold (the paper sets none)"
    metric, op, value = task.threshold
    return f"{metric} {op} {value:.4g}"


def results_table(results, task):
    """A Markdown table of runs on one task.

    Columns: model, steps until the task's threshold (`> N` when never met
    within the N steps run), the final held-out score, the final held-out
    loss, trainable parameters and wall-clock seconds.
    """
    metric = task.metric
    header = (
        f"| model | steps until {threshold_text(task)} | held-out {metric} "
        "| held-out loss | params | seconds |"
    )
    lines = [header, "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        reached = (
            str(r.steps_to_threshold)
            if r.steps_to_threshold is not None
            else f"> {r.steps}"
        )
        if r.diverged:
            reached += " (diverged)"
        lines.append(
            f"| {r.model} | {reached} | {_fmt(r.score(metric), metric)} "
            f"| {_fmt(r.final.get('loss'), 'loss')} | {r.params:,} "
            f"| {r.seconds:.0f} |"
        )
    if task.baseline is not None:
        lines.append("")
        lines.append(f"Naive baseline {metric}: {_fmt(task.baseline, metric)}")
    return "\n".join(lines)


def record(results, task, scale=None, command=None):
    """The JSON-serialisable record of runs on one task."""
    import keras

    return {
        "task": task.name,
        "task_params": task.config(),
        "paper": task.paper,
        "metric": task.metric,
        "baseline": task.baseline,
        "threshold": list(task.threshold) if task.threshold else None,
        "scale": scale,
        "command": command,
        "keras_version": keras.__version__,
        "backend": keras.backend.backend(),
        "runs": [r.to_dict() for r in results],
    }


def write_json(path, data):
    """Writes `data` as indented JSON (NaN written as null)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    def clean(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(v) for v in value]
        return value

    path.write_text(json.dumps(clean(data), indent=2) + "\n")
    return path


def plot_curves(results, task, path, title=None):
    """Plots held-out score against training step, one line per model.

    Like the papers' figures: the task metric (log scale for losses), the
    naive baseline dashed and the threshold dotted.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    key = "val_" + metric_key(task.metric)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for r in results:
        points = [(c["step"], c.get(key)) for c in r.curve]
        points = [(s, v) for s, v in points if v is not None and math.isfinite(v)]
        if points:
            ax.plot(*zip(*points), label=r.model, linewidth=1.6)
    if task.baseline is not None:
        ax.axhline(
            task.baseline,
            color="gray",
            linestyle="--",
            linewidth=1,
            label="naive baseline",
        )
    if task.threshold is not None and metric_key(task.threshold[0]) == metric_key(
        task.metric
    ):
        ax.axhline(
            task.threshold[2],
            color="black",
            linestyle=":",
            linewidth=1,
            label="threshold",
        )
    if task.metric != "accuracy":
        ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(f"held-out {task.metric}")
    ax.set_title(title or task.name)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
