"""The papers' claims against our records: the verdict tables of docs/papers.

A claims record (`results/claims/PAPER.json`) is data, not prose: for each
claim of a paper, where the paper makes it, the paper's number, the setting
we ran, how to read *our* number from which record (`ours`), the verdict
and, where it was measured, its cause. `keras-rda report` renders it where
a page has `<!-- keras-rda report: claims/PAPER -->`, reading every number
of the "ours" column from the records it names, so the table cannot drift
from `results/`.

A claim::

    {
      "id": "multicopy-3x",
      "claim": "The RDA learns multicopy 3x faster than the LSTM and the GRU",
      "source": "section 6.4, Table 6",
      "paper": "RDA-sigmoid-id 1,316 steps; GRU 3,984; LSTM 4,048",
      "setting": "50 copies in 1,000 steps, 250 units, seed 0",
      "ours": [{"label": "RDA", "record": "rda_paper/multicopy-compare",
                "model": "rda", "value": "steps_to_threshold"}, ...],
      "direction": [{"left": "GRU", "op": ">=", "right": "RDA", "times": 3}],
      "magnitude": [{"left": "RDA", "op": "<=", "right": 1974}],
      "verdict": "reproduced",
      "cause": ""
    }

A reading (one entry of `ours`) names a record (or a list of records whose
runs are pooled) and what to read from it (`value`):

- run records (`keras-rda train`/`compare`), the runs of `model` (and
  `seeds`, if given): `steps_to_threshold` (a run that never met the
  threshold reads "more than the steps it ran"), `final` (the held-out
  score at the end; `metric` to read another, e.g. `"loss"`), `best`,
  `largest_drop` (the largest fall of the held-out score between two
  evaluations), `first_step` (the first evaluated step whose `key`
  satisfies `op` `at`, e.g. `val_accuracy >= 0.99`), `steps_run`,
  `seconds`; with `up_to` (a step), each run is read as if it had stopped
  there, so that runs of different lengths compare after the same training;
- table and benchmark records (with `rows`): `row`, the row whose cells
  equal `where`, its `column`/`field`;
- trial records (with `trials`, e.g. `keras_rda.lab.diagnostics
  .attention_table1`'s): `epochs_to_100` (fewest epochs to 100% over the
  matching trials; never reaching it reads "more than the epochs run") or
  `best_accuracy`;
- enwik8 records: `enwik8`, the `field` of `model`'s run.

Several runs are combined by `aggregate` (`median` by default, `mean`,
`min`, `max`).

A value that is only bounded ("more than 3,600 steps") is an interval, and a
condition holds only when it holds for every value in the intervals, so
"more than 3,600" is at least 3 x 850 but not known to be at least
3 x 2,000. Conditions (`left` `op` `right`, `times` scaling the right side):
`<`, `<=`, `>`, `>=`, `~` (within `tol` of the right side), `met` and
`never` (the left value is exact / only a lower bound, e.g. a threshold not
met within the run). `check_verdict` says whether a claim's verdict agrees
with its conditions:

- reproduced: every direction and magnitude condition holds;
- direction only: every direction condition holds (and not every
  magnitude condition, unless the claim gives none);
- inconclusive (budget): the runs stopped short of the paper's budget and
  some condition fails (a direction condition, or a magnitude condition of
  a claim without direction conditions), but none is contradicted;
- not reproduced: some condition fails, and, where the runs stopped short
  of the paper's budget, some condition is contradicted;
- not run: no readings and no conditions.

A failed condition is *contradicted* when its reverse holds for every run
the two sides read, beyond the seeds' spread and the condition's `tie` (a
margin within which the sides count as equal): `A < B` (or `<=`) when the
lowest of A's runs exceeds the highest of B's by more than `tie`, `>` and
`>=` the other way round, `~` when every run is farther than `tol` + `tie`
from the right side, `never` when it was met; `met` never is (a run stopped
short may meet it later).

A claim's `budget` is the paper's (a dict, or a list of dicts for parts of
different budgets), each citing its `source`, naming the `readings` it
applies to (default: every run and trial reading) and any of `steps`,
`epochs` (with `steps_per_epoch` for run records), `seeds` and `scale` (the
paper's sizes in words; `part` names the entry in the note); `unstated`
says what a paper that states none of them leaves out. The runs fall short
(`shortfalls`) where one stopped before the paper's steps or epochs (other
than at its threshold under `--until-threshold`, or a trial at 100%), where
fewer seeds ran, or, where the entry states a `scale`, where a record ran
at another preset. Every claim's note says what its runs took (`ran`):
steps or epochs, seeds and CPU-hours, against the paper's budget.
"""

import dataclasses
import math
import pathlib
import statistics

from keras_rda.lab.reporting import fixes
from keras_rda.lab.reporting.benchmark_tables import RENDERERS
from keras_rda.lab.reporting.records import COMPARISONS
from keras_rda.lab.reporting.records import held_out
from keras_rda.lab.reporting.records import load
from keras_rda.lab.reporting.records import metric_key
from keras_rda.lab.reporting.records import runs_of

INCONCLUSIVE = "inconclusive (budget)"
VERDICTS = ("reproduced", "direction only", INCONCLUSIVE, "not reproduced", "not run")
AGGREGATES = {
    "median": statistics.median,
    "mean": statistics.fmean,
    "min": min,
    "max": max,
}
OPS = ("<", "<=", ">", ">=", "~", "met", "never")


@dataclasses.dataclass(frozen=True)
class Value:
    """A number known to lie in `[low, high]` (`high` is inf for "more than
    `low`", with `low` itself excluded)."""

    low: float
    high: float

    @classmethod
    def exact(cls, value):
        return cls(float(value), float(value))

    @classmethod
    def more_than(cls, value):
        return cls(float(value), math.inf)

    @property
    def is_exact(self):
        return self.low == self.high

    def scaled(self, factor):
        return Value(self.low * factor, self.high * factor)


# --- Reading numbers from records -----------------------------------------


def _names(reading):
    """The records a reading reads: one name, or a list whose runs pool."""
    names = reading["record"]
    return [names] if isinstance(names, str) else list(names)


def _records(reading, results_dir):
    return [(name, load(results_dir, name)) for name in _names(reading)]


def _higher_is_better(metric):
    return metric == "accuracy"


def _runs(reading, results_dir):
    """The runs of `reading["model"]` (and its seeds) in its records, each
    with the record it came from (cut at `reading["up_to"]` where given)."""
    seeds = reading.get("seeds")
    runs = []
    for name, data in _records(reading, results_dir):
        if data["kind"] != "comparison":
            raise ValueError(f"record {name!r} is a {data['kind']!r} record, no runs")
        for run in data["runs"]:
            if run["model"] != reading["model"]:
                continue
            if seeds is not None and run["settings"]["seed"] not in seeds:
                continue
            if reading.get("up_to") is not None:
                run = _cut(run, int(reading["up_to"]), name)
            runs.append((data, run))
    if not runs:
        raise ValueError(
            f"no run of model {reading['model']!r}"
            + (f" with seeds {seeds}" if seeds is not None else "")
            + f" in {reading['record']!r}"
        )
    return runs


def _cut(run, step, name):
    """`run` as if it had stopped at `step`: its curve up to it, `final` the
    held-out scores of the last evaluation kept (`ValueError` if none is)."""
    curve = [point for point in run["curve"] if point["step"] <= step]
    if not curve:
        raise ValueError(
            f"up_to: a run of {run['model']!r} in {name!r} has no evaluation "
            f"at or before step {step}"
        )
    reached = run.get("steps_to_threshold")
    return dict(
        run,
        curve=curve,
        steps=min(step, run["steps"]),
        steps_to_threshold=reached if reached is not None and reached <= step else None,
        final=held_out(curve[-1]),
    )


def _run_value(kind, reading, data, run):
    metric = reading.get("metric", data["metric"])
    if kind == "steps_to_threshold":
        steps = run["steps_to_threshold"]
        return Value.more_than(run["steps"]) if steps is None else Value.exact(steps)
    if kind == "steps_run":
        return Value.exact(run["steps"])
    if kind == "seconds":
        return Value.exact(run["seconds"])
    if kind == "final":
        value = run["final"].get(metric_key(metric))
        if value is None:
            raise ValueError(f"run {run['model']!r} has no final {metric!r}")
        return Value.exact(value)
    if kind in ("best", "largest_drop"):
        key = "val_" + metric_key(metric)
        values = [c[key] for c in run["curve"] if c.get(key) is not None]
        sign = 1 if _higher_is_better(metric) else -1
        if kind == "best":
            return Value.exact(max(values) if sign > 0 else min(values))
        falls = [sign * (a - b) for a, b in zip(values, values[1:])]
        return Value.exact(max([0.0, *falls]))  # a curve that only rises: 0
    if kind == "first_step":
        key, op, at = reading["key"], reading["op"], reading["at"]
        for point in run["curve"]:
            value = point.get(key)
            if value is not None and COMPARISONS[op](value, at):
                return Value.exact(point["step"])
        return Value.more_than(run["curve"][-1]["step"] if run["curve"] else 0)
    raise ValueError(f"unknown value {kind!r} for a run record")


def _number(cell):
    """A table cell as a Value: a number, "N (...)" as N, "not in N" as more
    than N."""
    if isinstance(cell, (int, float)):
        return Value.exact(cell)
    text = str(cell).strip().replace(",", "")
    if text.startswith("not in "):
        return Value.more_than(float(text.split()[2]))
    head = text.split()[0].rstrip("%x")
    return Value.exact(float(head))


def _matches(item, where):
    """Whether a row or trial has every value of `where`."""
    return all(item.get(k) == v for k, v in where.items())


def _rows(data):
    """A record's rows as dicts (a table record's lists keyed by `columns`)."""
    if data["kind"] in ("table", "timing"):
        return [dict(zip(data["columns"], row)) for row in data["rows"]]
    return data["rows"]


def _row_values(reading, results_dir):
    out = []
    for name, data in _records(reading, results_dir):
        where = reading["where"]
        matches = [r for r in _rows(data) if _matches(r, where)]
        if len(matches) != 1:
            raise ValueError(
                f"{len(matches)} rows of {name!r} match {where!r} (expected one)"
            )
        field = reading.get("column") or reading["field"]
        out.append(_number(matches[0][field]))
    return out


def _trial_values(reading, results_dir):
    out = []
    for name, data in _records(reading, results_dir):
        where = reading["where"]
        trials = [t for t in data["trials"] if _matches(t, where)]
        if not trials:
            raise ValueError(f"no trial of {name!r} matches {where!r}")
        if reading["value"] == "best_accuracy":
            out.append(
                Value.exact(max(a for t in trials for a in t["accuracy_per_epoch"]))
            )
            continue
        solved = [t["epochs_to_100"] for t in trials if t["epochs_to_100"]]
        if solved:
            out.append(Value.exact(min(solved)))
        else:
            out.append(
                Value.more_than(max(len(t["accuracy_per_epoch"]) for t in trials))
            )
    return out


def _enwik8_values(reading, results_dir):
    out = []
    for name, data in _records(reading, results_dir):
        run = data["runs"].get(reading["model"])
        if run is None:
            raise ValueError(f"no run of {reading['model']!r} in {name!r}")
        out.append(Value.exact(run[reading["field"]]))
    return out


def aggregate(values, how="median"):
    """Several Values as one: the aggregate of the low ends and of the high
    ends (each is monotone, so the true aggregate lies between them)."""
    if how not in AGGREGATES:
        raise ValueError(
            f"unknown aggregate {how!r}; expected one of {tuple(AGGREGATES)}"
        )
    if len(values) == 1:
        return values[0]
    combine = AGGREGATES[how]
    return Value(combine([v.low for v in values]), combine([v.high for v in values]))


@dataclasses.dataclass(frozen=True)
class Reading:
    """One number of the "ours" column: its value, how many runs it
    combines, and how to print it."""

    label: str
    value: Value
    count: int
    aggregate: str
    format: str
    unit: str = ""
    spread: Value = None  # the runs' range, lowest low to highest high

    @property
    def range(self):
        """The range of the values this reading combines (its value where
        it combines one)."""
        return self.value if self.spread is None else self.spread

    def text(self):
        out = f"{self.label}: {format_value(self.value, self.format)}"
        if self.unit:
            out += f" {self.unit}"
        if self.count > 1:
            out += f" ({self.aggregate} of {self.count})"
        return out


def read(reading, results_dir):
    """The `Reading` a claim's `ours` entry stands for."""
    kind = reading["value"]
    if kind == "row":
        values = _row_values(reading, results_dir)
    elif kind in ("epochs_to_100", "best_accuracy"):
        values = _trial_values(reading, results_dir)
    elif kind == "enwik8":
        values = _enwik8_values(reading, results_dir)
    else:
        values = [
            _run_value(kind, reading, data, run)
            for data, run in _runs(reading, results_dir)
        ]
    how = reading.get("aggregate", "median")
    return Reading(
        label=reading["label"],
        value=aggregate(values, how),
        count=len(values),
        aggregate=how,
        format=reading.get("format", _default_format(kind)),
        unit=reading.get("unit", ""),
        spread=Value(min(v.low for v in values), max(v.high for v in values)),
    )


def _default_format(kind):
    if kind in ("steps_to_threshold", "steps_run", "first_step", "epochs_to_100"):
        return "int"
    return "3f"


def format_value(value, fmt):
    """`value` as text: `int` (thousands separated), `3f`/`2f` (decimals),
    `pct` (a fraction as a percentage), `1f%` (a percentage already), `x` (a
    ratio), `4g`; a lower bound as "> N"."""

    def one(x):
        if fmt.endswith("%") and fmt != "pct":  # a percentage already, e.g. "1f%"
            return format_value(Value.exact(x), fmt[:-1]) + "%"
        if fmt == "int":
            return f"{x:,.0f}"
        if fmt == "pct":
            return f"{100 * x:.1f}%"
        if fmt == "x":
            return f"{x:.2f}x"
        if fmt.endswith("f") and fmt[:-1].isdigit():
            return f"{x:.{int(fmt[:-1])}f}"
        if fmt == "4g":
            return f"{x:.4g}"
        raise ValueError(f"unknown format {fmt!r}")

    if value.is_exact:
        return one(value.low)
    if math.isinf(value.high):
        return f"> {one(value.low)}"
    return f"{one(value.low)} to {one(value.high)}"


# --- Budgets: what the runs took, against the paper's ----------------------


def _reads_runs(reading):
    return reading.get("value") not in ("row", "enwik8", None)


def _pieces(claim, results_dir, labels=None):
    """`{key: (kind, record, item, reading)}`: every run (kind "run") and
    trial ("trial") the claim's readings (those of `labels`, if given)
    read, once each, keyed by record, model and seed (or trial index)."""
    pieces = {}
    for reading in claim.get("ours", []):
        if labels is not None and reading["label"] not in labels:
            continue
        if not _reads_runs(reading):
            continue
        if reading["value"] in ("epochs_to_100", "best_accuracy"):
            for name, data in _records(reading, results_dir):
                where = reading["where"]
                for index, trial in enumerate(data["trials"]):
                    if _matches(trial, where):
                        pieces[(name, index)] = ("trial", data, trial, reading)
            continue
        for name, data in _records(reading, results_dir):
            try:
                runs = _runs(dict(reading, record=name), results_dir)
            except ValueError:  # pooled records: the model is in another
                continue
            for _, run in runs:
                key = (name, run["model"], run["settings"]["seed"])
                pieces.setdefault(key, ("run", data, run, reading))
    return pieces


@dataclasses.dataclass(frozen=True)
class Ran:
    """What the runs a claim reads took: their steps and epochs (each
    `(fewest, most)` or None), seeds, hours of CPU time (a CPU machine's
    `cpu_seconds`), of wall clock on an accelerator and of wall clock only
    (a record that keeps no CPU time), and how many runs."""

    steps: tuple
    epochs: tuple
    seeds: tuple
    cpu_hours: float
    gpu_hours: float
    wall_hours: float
    runs: int


def _accelerated(data):
    return bool((data.get("machine") or {}).get("accelerators"))


def ran(claim, results_dir, labels=None):
    """The `Ran` of the runs and trials a claim's readings (those of
    `labels`, if given) read; None where they read none."""
    pieces = _pieces(claim, results_dir, labels)
    if not pieces:
        return None
    steps, epochs, seeds = [], [], set()
    cpu = gpu = wall = 0.0
    for kind, data, item, _ in pieces.values():
        if kind == "run":
            steps.append(item["steps"])
            seeds.add(item["settings"]["seed"])
        else:
            epochs.append(len(item["accuracy_per_epoch"]))
            seeds.update(provenance(data)[2])
        if _accelerated(data):
            gpu += item.get("seconds") or 0.0
        elif item.get("cpu_seconds") is not None:
            cpu += item["cpu_seconds"]
        else:
            wall += item.get("seconds") or 0.0

    def span(values):
        return (min(values), max(values)) if values else None

    return Ran(
        steps=span(steps),
        epochs=span(epochs),
        seeds=tuple(sorted(seeds)),
        cpu_hours=cpu / 3600,
        gpu_hours=gpu / 3600,
        wall_hours=wall / 3600,
        runs=len(pieces),
    )


def _hours(hours):
    return f"{hours:.2f}" if hours < 0.1 else f"{hours:,.1f}"


def ran_text(took):
    """E.g. "3,600 steps, seed 0, 6.9 CPU-hours (4 runs)"."""

    def span(values, unit):
        low, high = values
        text = f"{low:,}" if low == high else f"{low:,} to {high:,}"
        return f"{text} {unit}" + ("" if (low, high) == (1, 1) else "s")

    parts = []
    if took.steps:
        parts.append(span(took.steps, "step"))
    if took.epochs:
        parts.append(span(took.epochs, "epoch"))
    if took.seeds:
        several = len(took.seeds) > 1
        parts.append(
            ("seeds " if several else "seed ") + ", ".join(map(str, took.seeds))
        )
    hours = [
        f"{_hours(took.cpu_hours)} CPU-hours" if took.cpu_hours else "",
        f"{_hours(took.gpu_hours)} GPU-hours" if took.gpu_hours else "",
        f"{_hours(took.wall_hours)} hours of wall clock" if took.wall_hours else "",
    ]
    parts.append(" and ".join(h for h in hours if h) or "time not recorded")
    runs = f"{took.runs} run" + ("s" if took.runs > 1 else "")
    return ", ".join(parts) + f" ({runs})"


def budgets(claim):
    """A claim's `budget` entries, as a list (none where it gives none)."""
    budget = claim.get("budget") or []
    return [budget] if isinstance(budget, dict) else list(budget)


BUDGET_KEYS = (
    "source",
    "part",
    "readings",
    "scale",
    "steps",
    "epochs",
    "steps_per_epoch",
    "seeds",
    "unstated",
)
# The keys of a budget entry that say what the paper ran.
BUDGET_AMOUNTS = ("scale", "steps", "epochs", "seeds")


def _percent(fraction):
    return f"{100 * fraction:.0f}%" if fraction >= 0.01 else f"{100 * fraction:.1f}%"


def _entry_shortfalls(claim, entry, results_dir):
    unknown = sorted(set(entry) - set(BUDGET_KEYS))
    if unknown:
        raise ValueError(f"claim {claim.get('id')!r}: unknown budget keys {unknown}")
    labels = entry.get("readings") or [
        r["label"] for r in claim.get("ours", []) if _reads_runs(r)
    ]
    known = {r["label"] for r in claim.get("ours", [])}
    missing = [label for label in labels if label not in known]
    if missing:
        raise ValueError(f"claim {claim.get('id')!r}: the budget names {missing}")
    pieces = list(_pieces(claim, results_dir, labels).values())
    if not pieces:
        raise ValueError(f"claim {claim.get('id')!r}: the budget reads no run")
    out = []
    # A record's scale is its preset's name; flags may set the paper's sizes
    # (e.g. `--seq-len`), so only an entry that states the paper's sizes
    # says that a record at another scale falls short of them.
    scales = sorted({d["scale"] for _, d, _, _ in pieces if d.get("scale")} - {"paper"})
    if scales and entry.get("scale"):
        out.append(
            f"at the {' and '.join(scales)} scale (the paper's: {entry['scale']})"
        )
    runs = [item for kind, _, item, _ in pieces if kind == "run"]
    # A run that stopped at its threshold is done; any other ran its steps.
    unmet = [
        run
        for run in runs
        if run.get("steps_to_threshold") is None
        or not run["settings"].get("stop_at_threshold")
    ]
    if entry.get("steps"):
        short = [run["steps"] for run in unmet if run["steps"] < entry["steps"]]
        if short:
            out.append(
                f"{min(short):,} of the paper's {entry['steps']:,} steps "
                f"({_percent(min(short) / entry['steps'])})"
            )
    if entry.get("epochs"):
        # A reading's trials are the paper's learning rates, of which it
        # reports the best: one at 100% settles the reading.
        solved = {
            reading["label"]
            for kind, _, trial, reading in pieces
            if kind == "trial" and trial.get("epochs_to_100")
        }
        done = [
            len(trial["accuracy_per_epoch"])
            for kind, _, trial, reading in pieces
            if kind == "trial" and reading["label"] not in solved
        ]
        if unmet and not entry.get("steps_per_epoch"):
            raise ValueError(
                f"claim {claim.get('id')!r}: a budget in epochs over runs "
                "needs steps_per_epoch"
            )
        done += [run["steps"] / entry["steps_per_epoch"] for run in unmet]
        short = [epochs for epochs in done if epochs < entry["epochs"]]
        if short:
            out.append(
                f"{min(short):,.0f} of the paper's {entry['epochs']:,} epochs "
                f"({_percent(min(short) / entry['epochs'])})"
            )
    if entry.get("seeds"):
        counts = []
        for label in labels:
            took = ran(claim, results_dir, [label])
            if took is not None:
                counts.append(len(took.seeds))
        fewest = min(counts) if counts else 0
        if fewest < entry["seeds"]:
            seeds = "seed" if fewest == 1 else "seeds"
            out.append(f"{fewest} {seeds} of the paper's {entry['seeds']}")
    if out and entry.get("part"):
        out = [f"{entry['part']}: {', '.join(out)}"]
    return out


def shortfalls(claim, results_dir):
    """How the runs a claim reads stopped short of the paper's budget (its
    `budget`), as phrases ("3,600 of the paper's 20,000 steps (18%)", "1
    seed of the paper's 3", "at the small scale"); empty where they did not
    or the claim gives no budget.

    Raises:
        ValueError: a budget with an unknown key, naming a label no reading
            has, reading no run, or in epochs over runs without
            `steps_per_epoch`.
    """
    entries = budgets(claim)
    return [s for e in entries for s in _entry_shortfalls(claim, e, results_dir)]


def budget_text(claim, results_dir):
    """The note's words on the budget: what the runs took and, against the
    paper's budget, how far short (or that they are at it)."""
    took = ran(claim, results_dir)
    if took is None:
        return ""
    text = f" *Ran:* {ran_text(took)}."
    entries = budgets(claim)
    stated = [e for e in entries if any(e.get(k) for k in BUDGET_AMOUNTS)]
    sources = list(dict.fromkeys(e["source"] for e in stated if e.get("source")))
    cite = f" ({'; '.join(sources)})" if sources else ""
    short = shortfalls(claim, results_dir)
    if short:
        text += f" *Short of the paper's budget{cite}:* " + "; ".join(short) + "."
    elif stated:
        text += f" *At the paper's budget{cite}.*"
    for entry in entries:
        if entry.get("unstated"):
            where = f" ({entry['source']})" if entry.get("source") else ""
            text += f" *Not stated in the paper{where}:* {entry['unstated']}."
    return text


# --- Conditions and verdicts ----------------------------------------------


def _side(side, readings, spread=False):
    """A condition's side: a number, or the value (or with `spread`, the
    range of the runs) of the reading it names."""
    if isinstance(side, (int, float)):
        return Value.exact(side)
    if side not in readings:
        raise ValueError(f"a condition names {side!r}, which no reading has")
    return readings[side].range if spread else readings[side].value


def _operator(condition):
    op = condition["op"]
    if op not in OPS:
        raise ValueError(f"unknown operator {op!r}; expected one of {OPS}")
    return op


def holds(condition, readings):
    """Whether `condition` holds for every value within the readings'
    intervals (False when it is not known to hold)."""
    op = _operator(condition)
    left = _side(condition["left"], readings)
    if op == "met":
        return left.is_exact
    if op == "never":
        return math.isinf(left.high)
    right = _side(condition["right"], readings).scaled(condition.get("times", 1))
    if op == "~":
        tol = condition["tol"]
        return left.low >= right.high - tol and left.high <= right.low + tol
    if op in (">", ">="):
        left, right = right, left
        op = "<" if op == ">" else "<="
    # left < right for every value: left's highest below right's lowest (a
    # lower bound "more than N" excludes N itself).
    if op == "<":
        return left.high < right.low or (left.high == right.low and not right.is_exact)
    return left.high <= right.low


def contradicts(condition, readings):
    """Whether the readings contradict `condition`: its reverse holds for
    every run of both sides, beyond the seeds' spread and the condition's
    `tie`. A failed condition that is not contradicted (a tie, a threshold
    not yet met) is one a longer run could still meet."""
    op = _operator(condition)
    left = _side(condition["left"], readings, spread=True)
    if op == "met":
        return False
    if op == "never":
        return left.is_exact
    right = _side(condition["right"], readings, True).scaled(condition.get("times", 1))
    tie = condition.get("tie", 0)
    if op == "~":
        tol = condition["tol"] + tie
        return left.low > right.high + tol or left.high < right.low - tol
    if op in (">", ">="):
        left, right = right, left
    return left.low > right.high + tie


def condition_text(condition):
    """A condition as text, e.g. `GRU >= 3 x RDA`."""
    op = condition["op"]
    if op in ("met", "never"):
        return f"{condition['left']} {op}"
    right = condition["right"]
    if condition.get("times", 1) != 1:
        right = f"{condition['times']:g} x {right}"
    if op == "~":
        return f"{condition['left']} within {condition['tol']:g} of {right}"
    return f"{condition['left']} {op} {right}"


def check_verdict(claim, readings, short=()):
    """The ways `claim`'s verdict disagrees with its conditions (empty when
    it agrees); `readings` maps each label to its `Reading`, `short` says
    how its runs stopped short of the paper's budget (`shortfalls`; empty:
    at the budget, or the claim gives none)."""
    verdict = claim["verdict"]
    direction = claim.get("direction", [])
    magnitude = claim.get("magnitude", [])
    if verdict not in VERDICTS:
        return [f"unknown verdict {verdict!r}"]
    if verdict == "not run":
        if claim.get("ours") or direction or magnitude:
            return ["a claim not run has no readings and no conditions"]
        return []
    if not claim.get("ours"):
        return [f"a claim {verdict!r} needs readings"]
    failed_direction = [c for c in direction if not holds(c, readings)]
    failed_magnitude = [c for c in magnitude if not holds(c, readings)]
    problems = []
    if verdict == "reproduced":
        if not direction and not magnitude:
            problems.append("a reproduced claim needs at least one condition")
        for c in failed_direction + failed_magnitude:
            problems.append(f"reproduced, but {condition_text(c)} does not hold")
    elif verdict == "direction only":
        if not direction:
            problems.append("a direction-only claim needs a direction condition")
        for c in failed_direction:
            problems.append(f"direction only, but {condition_text(c)} does not hold")
        if magnitude and not failed_magnitude:
            problems.append(
                "direction only, but every magnitude condition holds: reproduced"
            )
    failed = failed_direction + failed_magnitude
    contradicted = [c for c in failed if contradicts(c, readings)]
    # Short, and what fails could still hold after the paper's budget.
    undecided = bool(
        short and failed and not contradicted and (failed_direction or not direction)
    )
    if verdict == INCONCLUSIVE:
        if not short:
            problems.append(
                "inconclusive (budget), but no run stopped short of the "
                "paper's budget (or the claim gives none)"
            )
        if not failed:
            problems.append("inconclusive (budget), but every condition holds")
        elif direction and not failed_direction:
            problems.append(
                "inconclusive (budget), but every direction condition holds: "
                "direction only"
            )
        for c in contradicted:
            problems.append(
                f"inconclusive (budget), but {condition_text(c)} is contradicted"
            )
    elif verdict == "not reproduced":
        if not failed:
            problems.append("not reproduced, but every condition holds")
        elif undecided:
            problems.append(
                "not reproduced on runs short of the paper's budget ("
                + "; ".join(short)
                + ") that contradict no condition: inconclusive (budget)"
            )
    return problems


# --- Provenance of the records --------------------------------------------


def record_names(data):
    """Every record a claims record reads, in first-named order."""
    readings = [r for claim in data["claims"] for r in claim.get("ours", [])]
    return list(dict.fromkeys(name for r in readings for name in _names(r)))


def claim_fixes(claim, results_dir, fix_table):
    """The fixes (of `fix_table`, `{id: fix}`; see
    `keras_rda.lab.reporting.fixes`) that a record the claim reads ran
    before, counting a reading only where the fix changes the model it
    reads (a reading without a model: any fix of its record), in order."""
    found = []
    for reading in claim.get("ours", []):
        model = reading.get("model") or (reading.get("where") or {}).get("model")
        for name in _names(reading):
            record = load(results_dir, name)
            for fix in fixes.fixes_before(record, fix_table, model):
                if fix not in found:
                    found.append(fix)
    return found


# Kinds of records that time or count: no seeded training behind them.
TIMING_KINDS = ("timing", *RENDERERS)


def is_timing_record(record):
    """Whether `record` times or counts (a `benchmarks/` speed, cost or
    profile record, or a `"timing"` table): its numbers come from no seeded
    training, so it has no seed."""
    return record["kind"] in TIMING_KINDS


def _commits(record):
    """The git commits a record names: its own, its environments' and its
    runs', in that order, each once."""
    gits = [
        record.get("git"),
        *(env.get("git") for env in (record.get("environments") or {}).values()),
        *(run.get("git") for run in runs_of(record)),
    ]
    commits = [(git or {}).get("commit") for git in gits]
    return list(dict.fromkeys(c for c in commits if c))


def _seeds(record):
    """The seeds of a record's runs (by its kind), else its own `seed`,
    `settings.seed` or `seeds`."""

    def seed(run):  # an enwik8 run has its own; a comparison's is a setting
        return run.get("seed", run.get("settings", {}).get("seed"))

    seeds = {seed(run) for run in runs_of(record)} - {None}
    if not seeds:
        seeds = {record.get("seed", (record.get("settings") or {}).get("seed"))}
        seeds |= set(record.get("seeds") or ())
    return sorted(s for s in seeds if s is not None)


def provenance(record):
    """`(commands, commits, seeds)` of a record: its structured commands
    (and its runs'), the git commits it names (`_commits`) and the seeds of
    its runs (`_seeds`). Missing ones are empty."""
    runs = [run["command"] for run in runs_of(record) if "command" in run]
    return record.get("commands", []) + runs, _commits(record), _seeds(record)


def _escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_markdown(data, results_dir, name="claims"):
    """The verdict table of the claims record `data` (`results_dir/NAME.json`),
    every "ours" number read from its record; under it a note per claim (its
    setting, budget and cause), the verdict counts and rules, the claims that
    read runs made before a fix (`keras_rda.lab.reporting.fixes`) and each
    record's commit and seeds.

    Raises:
        ValueError: a record, run or row a reading names is missing.
    """
    lines = ["| # | claim | paper | ours | verdict |", "|---|---|---|---|---|"]
    notes = []
    fix_table = fixes.load_fixes(results_dir)
    before = {}  # fix id -> the claims (numbers) reading runs made before it
    for index, claim in enumerate(data["claims"], 1):
        readings = [read(r, results_dir) for r in claim.get("ours", [])]
        ours = "; ".join(r.text() for r in readings) or "-"
        cells = [
            str(index),
            f"{claim['claim']} ({claim['source']})",
            claim["paper"],
            ours,
            f"**{claim['verdict']}**",
        ]
        lines.append("| " + " | ".join(_escape(c) for c in cells) + " |")
        note = f"- **{index}.** *Setting:* {claim.get('setting') or '-'}"
        note += budget_text(claim, results_dir)
        if claim.get("cause"):
            note += f" *Cause:* {claim['cause']}"
        found = claim_fixes(claim, results_dir, fix_table)
        for fix in found:
            before.setdefault(fix["id"], []).append(str(index))
        if found:
            titles = ", ".join(f"\u201c{fix['title']}\u201d" for fix in found)
            note += f" *Read from runs made before the fix* {titles} (below)."
        notes.append(_escape(note))
    lines += ["", "Settings and causes, by claim:", "", *notes]
    lines += [
        "",
        "Verdicts: "
        + verdict_counts_text(verdict_counts(data))
        + f". Each verdict's conditions on the numbers are in"
        f" `results/{name}.json`. {INCONCLUSIVE_RULE}"
        + (f" {data['rules']}" if data.get("rules") else ""),
    ]
    for fix_id, numbers in before.items():
        several = len(numbers) > 1
        subject = ("Claims " if several else "Claim ") + ", ".join(numbers)
        verb = "read" if several else "reads"
        lines += [
            "",
            f"{subject} {verb} runs made before a fix, so their numbers are "
            f"the code's before it. {fixes.fix_note(fix_table[fix_id])}",
        ]
    names = record_names(data)
    if names:
        lines += ["", "| record | commit | seeds |", "|---|---|---|"]
        for name in names:
            record = load(results_dir, name)
            _, commits, seeds = provenance(record)
            commit = ", ".join(c[:7] for c in commits) or "not recorded"
            if (record.get("git") or {}).get("determined_by"):
                commit += " (determined afterwards, see the record)"
            for fix in fixes.fixes_before(record, fix_table):
                commit += f", before the fix \u201c{fix['title']}\u201d"
            seed_text = ", ".join(str(s) for s in seeds) or "not recorded"
            if seeds and record.get("seed_determined_by"):
                seed_text += " (determined afterwards, see the record)"
            if not seeds and is_timing_record(record):
                seed_text = "none (a timing)"
            lines.append(f"| `results/{name}.json` | {commit} | {seed_text} |")
    return "\n".join(lines)


# The rule of the fifth verdict, as the pages state it under each table.
INCONCLUSIVE_RULE = (
    "Inconclusive (budget): the runs stopped short of the paper's budget (the "
    "claim's note says how far) and their outcome does not contradict the "
    "paper: what fails is a tie within the seeds' spread or the held-out "
    "noise, or a threshold not yet met, which a run to the paper's budget "
    "could still meet."
)


def verdict_counts(data):
    """`{verdict: number of claims}` of a claims record, every verdict of
    `VERDICTS` in order (zero included)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for claim in data["claims"]:
        counts[claim["verdict"]] += 1
    return counts


def verdict_counts_text(counts):
    """E.g. "3 reproduced, 9 direction only, 2 inconclusive (budget), 3 not
    reproduced, 3 not run"."""
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS)


# --- The README's summary of every paper -----------------------------------

# The marker name of the summary (`<!-- keras-rda report: claims -->`).
SUMMARY = "claims"


# The marker suffix of one paper's summary, for a guide:
# `<!-- keras-rda report: claims/uw:summary -->`.
PAPER_SUMMARY = ":summary"


def before_fixes_count(data, results_dir):
    """How many claims of a claims record read runs made before a fix."""
    fix_table = fixes.load_fixes(results_dir)
    return sum(
        bool(claim_fixes(claim, results_dir, fix_table)) for claim in data["claims"]
    )


def paper_summary_markdown(data, results_dir):
    """One paper's summary for a guide: its title, verdict counts (and how
    many claims read runs made before a fix) and `summary` (its README line).

    Raises:
        ValueError: a claims record without `summary`.
    """
    if not data.get("summary"):
        raise ValueError(f"claims record of {data.get('title')!r} has no summary")
    counts = verdict_counts_text(verdict_counts(data))
    total = len(data["claims"])
    before = before_fixes_count(data, results_dir)
    if before:
        counts += f"; {before} read from runs made before a fix"
    return (
        f"**{data['title']}**, what our runs show ({total} claims: {counts}): "
        f"{data['summary']}"
    )


def claims_records(results_dir):
    """`[(name, record)]` of every claims record in `results_dir/claims/`,
    in file-name order."""
    folder = pathlib.Path(results_dir) / "claims"
    return [
        (f"claims/{path.stem}", load(results_dir, f"claims/{path.stem}"))
        for path in sorted(folder.glob("*.json"))
    ]


def summary_markdown(results_dir):
    """The README's "papers, reproduced or not": per paper (linking its
    `page`) the number of claims of each verdict, then its `summary` line.

    Raises:
        ValueError: a claims record without `title`, `page` or `summary`.
    """
    lines = [
        "| paper | " + " | ".join(VERDICTS) + " | read from runs before a fix |",
        "|---|" + "---:|" * (len(VERDICTS) + 1),
    ]
    summaries = []
    for name, data in claims_records(results_dir):
        missing = [k for k in ("title", "page", "summary") if not data.get(k)]
        if missing:
            raise ValueError(f"claims record {name!r} has no {', '.join(missing)}")
        counts = verdict_counts(data)
        link = f"[{data['title']}]({data['page']})"
        cells = [str(counts[v]) for v in VERDICTS]
        cells.append(str(before_fixes_count(data, results_dir)))
        lines.append(f"| {link} | " + " | ".join(cells) + " |")
        summaries.append(f"- **{data['title']}**: {data['summary']}")
    lines += [
        "",
        "Claims per paper by verdict, from `results/claims/`, and how many "
        "of them read runs made before a fix that changes what their command "
        "gives today (`results/fixes.json`); each paper's page has its "
        "verdict table and marks those claims.",
        "",
        *summaries,
    ]
    return "\n".join(lines)
