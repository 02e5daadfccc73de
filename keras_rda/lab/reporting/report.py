"""Reporting of training runs: results table, JSON record, learning curves."""

import json
import math
import pathlib
import re
import statistics

from keras_rda.lab.files import read_json
from keras_rda.lab.files import replacing
from keras_rda.lab.files import write_atomically
from keras_rda.lab.reporting import claims
from keras_rda.lab.reporting import fixes
from keras_rda.lab.reporting.benchmark_tables import RENDERERS
from keras_rda.lab.reporting.commands import user_command
from keras_rda.lab.reporting.commands import without_machine_paths
from keras_rda.lab.reporting.records import json_safe
from keras_rda.lab.reporting.records import load
from keras_rda.lab.reporting.records import metric_key
from keras_rda.lab.reporting.records import runs_of
from keras_rda.utils import validation


def _fmt(value, metric):
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "nan"
    if metric == "accuracy":
        return f"{value:.4f}"
    return f"{value:.4g}"


def threshold_text(threshold):
    """A `(metric, op, value)` criterion as text, e.g. `"accuracy > 0.99"`."""
    if threshold is None:
        return "threshold (the paper sets none)"
    metric, op, value = threshold
    return f"{metric} {op} {value:.4g}"


def _steps_text(steps_to_threshold, steps, diverged=False):
    text = str(steps_to_threshold) if steps_to_threshold is not None else f"> {steps}"
    return text + (" (diverged)" if diverged else "")


def _median(values):
    """Median of numbers (inf for "never" stays inf); None for no values."""
    return statistics.median(values) if values else None


def _group(runs):
    """Runs grouped by model, in first-seen order."""
    groups = {}
    for run in runs:
        groups.setdefault(run["model"], []).append(run)
    return groups


def _score(run, metric):
    return run["final"].get(metric_key(metric))


def results_table(data):
    """A Markdown table of the runs in record `data` (see `record`): per model
    the steps until the task's threshold (`> N`: not met in the N steps run),
    the final held-out score and loss, the parameters and the seconds; over
    several seeds, the median and range `[min, max]` of the first two."""
    metric = data["metric"]
    groups = _group(data["runs"])
    criterion = threshold_text(data["threshold"])
    if all(len(runs) == 1 for runs in groups.values()):
        lines = [
            f"| model | steps until {criterion} | held-out {metric} "
            "| held-out loss | params | seconds |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for (run,) in groups.values():
            steps = _steps_text(
                run["steps_to_threshold"], run["steps"], run["diverged"]
            )
            lines.append(
                f"| {run['model']} | {steps} "
                f"| {_fmt(_score(run, metric), metric)} "
                f"| {_fmt(run['final'].get('loss'), 'loss')} | {run['params']:,} "
                f"| {run['seconds']:.0f} |"
            )
    else:
        lines = [
            f"| model | seeds | steps until {criterion}: median [range] "
            f"| held-out {metric}: median [range] | params | seconds (median) |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, runs in groups.items():
            lines.append(
                f"| {name} | {len(runs)} | {_steps_summary(runs)} "
                f"| {_score_summary(runs, metric)} | {runs[0]['params']:,} "
                f"| {_median([r['seconds'] for r in runs]):.0f} |"
            )
    if data.get("baseline") is not None:
        lines.append("")
        lines.append(f"Naive baseline {metric}: {_fmt(data['baseline'], metric)}")
    return "\n".join(lines)


def _steps_summary(runs):
    def value(run):
        s = run["steps_to_threshold"]
        return math.inf if s is None else s

    values = [value(r) for r in runs]
    most = max(r["steps"] for r in runs)

    def text(v):
        return f"> {most}" if math.isinf(v) else f"{v:g}"

    reached = sum(not math.isinf(v) for v in values)
    diverged = sum(bool(r["diverged"]) for r in runs)
    out = f"{text(_median(values))} [{text(min(values))}, {text(max(values))}]"
    if reached < len(runs):
        out += f" ({reached}/{len(runs)} met it)"
    if diverged:
        out += f" ({diverged} diverged)"
    return out


def _score_summary(runs, metric):
    values = [_score(r, metric) for r in runs]
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return "nan"
    out = (
        f"{_fmt(_median(finite), metric)} "
        f"[{_fmt(min(finite), metric)}, {_fmt(max(finite), metric)}]"
    )
    if len(finite) < len(values):
        out += f" ({len(values) - len(finite)} nan)"
    return out


def record(results, task, scale=None, command=None):
    """The JSON-serialisable record of runs on one task (kind `"comparison"`):
    the runs, the command and the provenance (`provenance.provenance`).

    Args:
        results: the runs, as `RunResult`s or as their dicts (a collector
            that reads runs back from their checkpoints).
        task: the `Task` they ran.
        scale: the scale name (`"paper"`, `"small"`, ...).
        command: the command that made them, structured
            (`keras_rda.lab.reporting.provenance.command`).
    """
    from keras_rda.lab.reporting import provenance

    return {
        "kind": "comparison",
        "task": task.name,
        "task_params": task.config(),
        "paper": task.paper,
        "metric": task.metric,
        "baseline": task.baseline,
        "threshold": list(task.threshold) if task.threshold else None,
        "scale": scale,
        "commands": [command] if command else [],
        **provenance.provenance(),
        "runs": [r if isinstance(r, dict) else r.to_dict() for r in results],
    }


def write_json(path, data):
    """Writes `data` as indented JSON (NaN written as null), atomically."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, json.dumps(json_safe(data), indent=2) + "\n")


def write_table_record(path, table, command, append=False, kind="table", **lists):
    """Writes a script's table record to `path` (returned): `table`
    (`{"benchmark", "columns", "rows"}`, optionally `align` and `notes`), the
    structured `command` that measured it and further per-row or per-trial
    `lists` (e.g. `trials`); of `kind` `"table"`, or `"timing"` for times or
    counts (no seeded training behind them). With `append`, the rows, lists
    and command join those of the record already at `path`."""
    from keras_rda.lab.reporting import provenance

    path = pathlib.Path(path)
    old = read_json(path) if append and path.is_file() else {}
    record = {"kind": kind, **old, **table, **provenance.provenance()}
    record["kind"] = kind
    record["commands"] = old.get("commands", []) + [command]
    record["rows"] = old.get("rows", []) + list(table["rows"])
    for key, values in lists.items():
        record[key] = old.get(key, []) + list(values)
    return write_json(path, record)


def write_script_table(path, benchmark, columns, rows, notes, argv, **record):
    """Writes a diagnostic script's table record to `path` and prints where.

    Args:
        path: the `--json` path, or None to write nothing.
        benchmark, columns, rows, notes: the table (`align` goes in `record`).
        argv: the script's arguments (`provenance.script_command`).
        **record: `align`, then `write_table_record`'s `append` and lists.
    """
    from keras_rda.lab.reporting.provenance import script_command

    if path is None:
        return None
    table = {"benchmark": benchmark, "columns": columns}
    if "align" in record:
        table["align"] = record.pop("align")
    table.update(rows=rows, notes=notes)
    written = write_table_record(path, table, script_command(argv), **record)
    print("record:", written)
    return written


def merged_history(history):
    """History lines merged by step, the last value of each scalar kept (a
    resumed run logs the steps after its checkpoint again), in step order."""
    steps = {}
    for line in history:
        line = dict(line)
        steps.setdefault(line.pop("step"), {}).update(line)
    return [{"step": step, **steps[step]} for step in sorted(steps)]


def add_enwik8_run(path, run):
    """Adds one finished `keras-rda enwik8` run to the record at `path`
    (`{"kind": "enwik8", "runs": {model: run}}`, a rerun of a model replacing
    its run; each run keeps its own command, seed, provenance and history).

    `run` is the trainer's result (`model`, `step`, `valid_bpc`, `test_bpc`,
    `preset`, ...) with its structured `command`, `seed`, `data` and
    `history` (the lines of `history.jsonl`); returns the path written.
    """
    from keras_rda.lab.reporting import provenance

    path = pathlib.Path(path)
    data = read_json(path) if path.is_file() else {}
    history = merged_history(run["history"])
    speeds = [h["train/chars_per_sec"] for h in history if "train/chars_per_sec" in h]
    run = {
        **run,
        **provenance.provenance(),
        "history": history,
        # The first logging interval includes XLA's compilation.
        "median_chars_per_sec": _median(speeds[1:] or speeds),
    }
    data.setdefault("kind", "enwik8")
    data.setdefault("runs", {})[run["model"]] = run
    return write_json(path, data)


def enwik8_table(data):
    """The Markdown table of an enwik8 record (see `add_enwik8_run`): per
    model the validation BPC at each evaluation (the last in bold), the
    test BPC and the median training characters per second."""
    runs = data["runs"]
    evaluations = {
        model: {h["step"]: h["valid/bpc"] for h in run["history"] if "valid/bpc" in h}
        for model, run in runs.items()
    }
    steps = sorted({step for points in evaluations.values() for step in points})
    lines = [
        "| model | valid BPC at "
        + " / ".join(f"{s:,}" for s in steps)
        + " steps | test BPC | training characters / s |",
        "|---|---|---:|---:|",
    ]
    for model, run in runs.items():
        points = evaluations[model]
        cells = [f"{points[s]:.3f}" if s in points else "-" for s in steps]
        last = max(i for i, s in enumerate(steps) if s in points)
        cells[last] = f"**{cells[last]}**"
        lines.append(
            f"| {model} | {' / '.join(cells)} | {run['test_bpc']:.3f} "
            f"| {run['median_chars_per_sec']:,.0f} |"
        )
    return "\n".join(lines)


def _points(run, key):
    points = [(c["step"], c.get(key)) for c in run["curve"]]
    return [(s, v) for s, v in points if v is not None and math.isfinite(v)]


def plot_curves(data, path, title=None):
    """Plots held-out score against training step for the runs in record `data`
    (log scale for losses, the naive baseline dashed, the threshold dotted);
    a model run over several seeds is one faint line per seed and its median
    (at the steps every seed reached) in bold."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = data["metric"]
    key = "val_" + metric_key(metric)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for index, (name, runs) in enumerate(_group(data["runs"]).items()):
        color = f"C{index % 10}"
        curves = [dict(_points(run, key)) for run in runs]
        if len(runs) == 1:
            if curves[0]:
                ax.plot(*zip(*curves[0].items()), color=color, label=name, lw=1.6)
            continue
        for curve in curves:
            if curve:
                ax.plot(*zip(*curve.items()), color=color, alpha=0.25, lw=0.8)
        common = sorted(set.intersection(*(set(c) for c in curves)))
        if common:
            median = [_median([c[s] for c in curves]) for s in common]
            ax.plot(common, median, color=color, lw=2.2, label=f"{name} (median)")
    if data.get("baseline") is not None:
        ax.axhline(
            data["baseline"],
            color="gray",
            linestyle="--",
            linewidth=1,
            label="naive baseline",
        )
    threshold = data.get("threshold")
    if threshold is not None and metric_key(threshold[0]) == metric_key(metric):
        ax.axhline(
            threshold[2], color="black", linestyle=":", linewidth=1, label="threshold"
        )
    if metric != "accuracy":
        ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(f"held-out {metric}")
    ax.set_title(title or data["task"])
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)


def save_figure(fig, path):
    """Writes matplotlib figure `fig` to `path` (a PNG, replaced whole, its
    folder made), closes it and returns the path."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)
    return path


# --- Tables in the docs, rebuilt from records (`keras-rda report`) ---------

# A marker starts a line (an indented one, as in a docs example, is text).
MARKER = re.compile(
    r"^(<!-- keras-rda report: (?P<name>[^\s]+) -->\n)(?P<body>.*?)"
    r"^(<!-- /keras-rda report -->)",
    re.DOTALL | re.MULTILINE,
)


def table_record_markdown(data):
    """The Markdown table of a table record (`{"columns": [...], "rows": [...]}`)."""
    columns = data["columns"]
    align = data.get("align") or ["---"] + ["---:"] * (len(columns) - 1)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(align) + "|"]
    for row in data["rows"]:
        if len(row) != len(columns):
            raise validation.invalid_value("rows", f"rows of {len(columns)} cells", row)
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines)


#: A record's `kind` -> the renderer of its table (a claims record aside).
TABLES = {
    "comparison": results_table,
    "enwik8": enwik8_table,
    "table": table_record_markdown,
    "timing": table_record_markdown,
    **RENDERERS,
}


def render(data, name, results_dir="results"):
    """The Markdown a record stands for in the docs: its table (by its `kind`,
    `TABLES`, or a `"claims"` record's verdict table, read from the records in
    `results_dir`), its notes and its command.

    Raises:
        ValueError: a record of no kind that has a table.
    """
    kind = data.get("kind")
    if kind == "claims":
        return claims.claims_markdown(data, results_dir, name) + "\n"
    if kind not in TABLES:
        raise validation.invalid_value(
            "kind",
            f"a record kind with a table in {name!r}, one of {sorted(TABLES)}",
            kind,
        )
    lines = [TABLES[kind](data), ""]
    for note in data.get("notes", ()):
        lines += [without_machine_paths(note), ""]
    for fix in fixes.fixes_before(data, fixes.load_fixes(results_dir)):
        lines += [fixes.fix_note(fix, data), ""]
    return "\n".join([*lines, _command_line(data, name)]) + "\n"


def _command_line(data, name):
    """The line under a table: the record's command, an enwik8 record's
    runs' commands (one per run) or, without any, the record's path."""
    source = f"`results/{name}.json`"
    runs = [r["command"] for r in runs_of(data) if "command" in r]
    if data["kind"] == "enwik8" and runs:
        lines = [user_command([c]) for c in runs]
        return "\n".join([f"Commands (record {source}):", "", "```", *lines, "```"])
    if data.get("commands"):
        return f"Command: `{user_command(data['commands'], name)}` (record {source})."
    return f"Record: {source}."


def rebuild_tables(text, results_dir):
    """`text` with every marked table rebuilt from its record: the text between
    `<!-- keras-rda report: NAME -->` and `<!-- /keras-rda report -->` (each at
    the start of a line), NAME a record's path in `results_dir` without
    `.json`, `claims` (`claims.summary_markdown`) or `claims/PAPER:summary`
    (`claims.paper_summary_markdown`).

    Returns:
        `(new_text, names)`: the rebuilt text and the record names used.
    """
    names = []

    def replace(match):
        name = match.group("name")
        names.append(name)
        if name == claims.SUMMARY:
            body = claims.summary_markdown(results_dir) + "\n"
        elif name.endswith(claims.PAPER_SUMMARY):
            record = load(results_dir, name.removesuffix(claims.PAPER_SUMMARY))
            body = claims.paper_summary_markdown(record, results_dir) + "\n"
        else:
            body = render(load(results_dir, name), name, results_dir)
        return match.group(1) + body + match.group(4)

    return MARKER.sub(replace, text), names


def documents(root):
    """The Markdown files whose tables `keras-rda report` rebuilds: the
    README and every page under docs/ (docs/papers/ included)."""
    root = pathlib.Path(root)
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
