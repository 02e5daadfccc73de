"""The record format shared by the runs that write records and the reports
that read them, so that reading a record needs no training code."""

import math
import operator
import pathlib

from keras_rda.lab.files import read_json

# Task metric name -> key of the Keras logs (the loss of a cross-entropy task
# is its cross-entropy).
_METRIC_KEYS = {
    "crossentropy": "loss",
    "loss": "loss",
    "mse": "mse",
    "accuracy": "accuracy",
}


def metric_key(metric):
    """The key of a task metric ("accuracy", "crossentropy", ...) in Keras's
    logs and a record's curve ("crossentropy" is the loss; held-out scores
    carry a `val_` prefix)."""
    return _METRIC_KEYS.get(metric, metric)


# A threshold's or a reading's comparison operators.
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def held_out(point):
    """The held-out scores of a curve point (its `val_*` keys), unprefixed:
    what a run records as `final`."""
    return {k[4:]: v for k, v in point.items() if k.startswith("val_")}


def load(results_dir, name):
    """The record `results_dir/NAME.json` (`name` as a report marker or a
    claim names it, e.g. `rda_paper/addition-compare`).

    Raises:
        FileNotFoundError: there is no such record.
    """
    path = pathlib.Path(results_dir) / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no record {path}")
    return read_json(path)


def runs_of(record):
    """A record's runs, by its kind: an `"enwik8"` record's (one per model)
    or a `"comparison"`'s; none for the other kinds."""
    kind = record["kind"]
    if kind == "enwik8":
        return list(record["runs"].values())
    return record["runs"] if kind == "comparison" else []


def json_safe(value):
    """`value` (floats in dicts, lists and tuples, any depth) with NaN and
    infinities as None (JSON has no NaN), tuples as lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


# What a later record brings to the record it joins or replaces runs in.
_PROVENANCE = ("git", "versions", "machine", "created", "keras_rda_version")


def _check_same_task(records):
    """Raises ValueError unless every record is a comparison of one task."""
    for record in records:
        if record.get("kind") != "comparison":
            raise ValueError(
                f"record of {record.get('task')!r} is not a train or compare "
                f"record (its kind is {record.get('kind')!r})"
            )
        for key in ("task", "task_params"):
            if record.get(key) != records[0].get(key):
                raise ValueError(
                    f"the records are of {key} {records[0].get(key)!r} and "
                    f"{record.get(key)!r}"
                )


def _joined(base, runs, records, order):
    """`base` with `runs` (by model as in `order`, then seed), the latest
    record's provenance and every record's commands (each once)."""
    latest = max(records, key=lambda record: record.get("created", ""))
    joined = dict(base)
    joined.update({k: latest[k] for k in _PROVENANCE if k in latest})
    joined["runs"] = sorted(
        runs, key=lambda run: (order.index(run["model"]), run["settings"]["seed"])
    )
    commands = [c for record in records for c in record["commands"]]
    joined["commands"] = [c for i, c in enumerate(commands) if c not in commands[:i]]
    return joined


def _own_commits(record):
    """`record`'s runs, each naming the commit it ran at."""
    return [{**run, "git": run.get("git", record.get("git"))} for run in record["runs"]]


def merge_runs(records):
    """One record holding the runs of several records of the same comparison
    (seeds or models run in separate processes): every run keeps the commit
    it ran at (`run["git"]`); the record takes the latest record's provenance,
    every command once and the union of the `before_fixes` marks. Runs are
    ordered by model, as the records first name them, then by seed.

    Args:
        records: run records (`"runs"` a list) of one task with the same
            task parameters, e.g. `results/X-seed0.json`, `X-seed1.json`.

    Returns:
        The merged record (a new dict; no argument is changed).

    Raises:
        ValueError: fewer than two records; records of different tasks or
            task parameters; a model and seed run in two records; or a
            model's runs with different settings (other than the seed).
    """
    records = list(records)
    if len(records) < 2:
        raise ValueError(f"merging needs two records or more, got {len(records)}")
    _check_same_task(records)
    runs, settings = [], {}
    for record in records:
        for run in _own_commits(record):
            model, seed = run["model"], run["settings"]["seed"]
            others = {k: v for k, v in run["settings"].items() if k != "seed"}
            if any(r["model"] == model and r["settings"]["seed"] == seed for r in runs):
                raise ValueError(f"model {model!r} with seed {seed} is in two records")
            if settings.setdefault(model, others) != others:
                differ = sorted(
                    k
                    for k in set(others) | set(settings[model])
                    if others.get(k) != settings[model].get(k)
                )
                raise ValueError(
                    f"the runs of model {model!r} differ in settings {differ}"
                )
            runs.append(run)
    order = list(dict.fromkeys(run["model"] for run in runs))
    merged = _joined(records[0], runs, records, order)
    marks = sorted({fix for r in records for fix in r.get("before_fixes", ())})
    merged.pop("before_fixes", None)
    if marks:
        merged["before_fixes"] = marks
    return merged


def replace_runs(old, new):
    """Record `old` with the runs of every model `new` ran replaced by `new`'s
    (a rerun after a fix): every run keeps the commit it ran at, the record
    takes the later provenance and both commands, and loses its
    `before_fixes` mark. Runs keep `old`'s model order, then seed order.

    Args:
        old: a run record (`"runs"` a list), e.g. `results/X.json`.
        new: the record of the rerun, of the same task and settings.

    Returns:
        The merged record (a new dict; neither argument is changed).

    Raises:
        ValueError: `new` ran a model `old` does not hold, or another task
            or other task parameters.
    """
    _check_same_task([old, new])
    order = [run["model"] for run in old["runs"]]
    rerun = {run["model"] for run in new["runs"]}
    unknown = sorted(rerun - set(order))
    if unknown:
        raise ValueError(f"the rerun ran {unknown}, which the record does not hold")
    kept = [run for run in _own_commits(old) if run["model"] not in rerun]
    replaced = _joined(old, kept + _own_commits(new), [old, new], order)
    replaced.pop("before_fixes", None)
    return replaced
