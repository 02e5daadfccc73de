"""The record format shared by the runs that write records and the reports.

`keras_rda.lab.runs` writes one JSON record per `keras-rda train`/`compare`
(and a `result.json` per checkpointed run); `keras_rda.lab.reporting.report`
reads them back into tables and plots. Both use the helpers here, so that
this package never needs the training code to read a record.
"""

import math

# Task metric name -> key of the Keras logs (the loss of a cross-entropy task
# is its cross-entropy).
_METRIC_KEYS = {
    "crossentropy": "loss",
    "loss": "loss",
    "mse": "mse",
    "accuracy": "accuracy",
}


def metric_key(metric):
    """The Keras log name of a task metric ("crossentropy" is the loss).

    Args:
        metric: a task's metric name, e.g. "accuracy" or "crossentropy".

    Returns:
        The key of that score in Keras's logs and in a record's curve
        (held-out scores carry a `val_` prefix there).
    """
    return _METRIC_KEYS.get(metric, metric)


def json_safe(value):
    """`value` with non-finite floats as None (JSON has no NaN).

    Args:
        value: a float, or dicts, lists and tuples of them (any depth);
            other values are returned as they are.

    Returns:
        The same structure (tuples become lists) with NaN and infinities
        replaced by None.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


# What a rerun's record brings to the record whose runs it replaces.
_PROVENANCE = ("git", "versions", "machine", "created", "keras_rda_version")


def replace_runs(old, new):
    """Record `old` with the runs of every model `new` ran replaced by `new`'s.

    For a rerun of some of a comparison's models (after a fix that changes
    them, see `keras_rda.lab.reporting.fixes`): the other runs stay, each
    keeping the commit it ran at (`run["git"]`), the rerun's runs carry
    theirs, the record takes the rerun's provenance and both commands
    (joined by ` && `), and loses its `before_fixes` mark. Runs keep `old`'s
    model order, then seed order.

    Args:
        old: a run record (`"runs"` a list), e.g. `results/X.json`.
        new: the record of the rerun, of the same task and settings.

    Returns:
        The merged record (a new dict; neither argument is changed).

    Raises:
        ValueError: `new` ran a model `old` does not hold, or another task.
    """
    if new.get("task") != old.get("task"):
        raise ValueError(
            f"the rerun is of task {new.get('task')!r}, the record of "
            f"{old.get('task')!r}"
        )
    order = [run["model"] for run in old["runs"]]
    rerun = {run["model"] for run in new["runs"]}
    unknown = sorted(rerun - set(order))
    if unknown:
        raise ValueError(f"the rerun ran {unknown}, which the record does not hold")
    kept = [
        {**run, "git": run.get("git", old.get("git"))}
        for run in old["runs"]
        if run["model"] not in rerun
    ]
    added = [{**run, "git": new.get("git")} for run in new["runs"]]
    runs = sorted(
        kept + added,
        key=lambda run: (order.index(run["model"]), run["settings"]["seed"]),
    )
    merged = {k: v for k, v in old.items() if k != "before_fixes"}
    merged.update({k: new[k] for k in _PROVENANCE if k in new})
    merged["runs"] = runs
    merged["command"] = f"{old['command']} && {new['command']}"
    return merged
