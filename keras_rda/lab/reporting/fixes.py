"""Fixes that change what a record's command gives, and the records run before them.

A fix of the library can change the numbers a command gives without changing
the command: an initialisation, a default. `results/fixes.json` names each
such fix once, with the date it landed, the zoo models whose runs it changes
and the sentence a reader needs::

    {"fixes": [{"id": "independent-initial-weights",
                "date": "2026-11-26T20:06:31+00:00", "commit": "ab8a105...",
                "models": ["rda", "rwa", ...],
                "title": "independent initial weights",
                "effect": "started with some weights equal ...",
                "text": "Before it, ... started equal or proportional."}]}

A record that ran before a fix and holds a run of one of its models lists
the fix's id in its `before_fixes`, and the reports mark it wherever it
shows, so that a page never shows it as what today's code gives.
"""

import json
import pathlib

from keras_rda.lab.reporting.records import runs_of

# `results/fixes.json`.
FIXES = "fixes"


def load_fixes(results_dir):
    """`{id: fix}` of `results_dir/fixes.json` (empty without the file)."""
    path = pathlib.Path(results_dir) / f"{FIXES}.json"
    if not path.is_file():
        return {}
    return {fix["id"]: fix for fix in json.loads(path.read_text())["fixes"]}


def record_models(record):
    """The zoo models a record ran: its runs' `model` (`records.runs_of`),
    and a table record's trials' and `model` column's."""
    models = {run["model"] for run in runs_of(record)}
    if record["kind"] in ("table", "timing"):
        models |= {trial["model"] for trial in record.get("trials", ())}
        if "model" in record["columns"]:
            index = record["columns"].index("model")
            models |= {row[index] for row in record["rows"]}
    return models


def fixes_before(record, fixes, model=None):
    """The fixes (of `fixes`, `{id: fix}`) that `record` ran before, in its
    order; with `model`, only those that change that model's runs
    (`ValueError` for a fix `fixes` does not hold)."""
    found = []
    for fix_id in record.get("before_fixes", ()):
        if fix_id not in fixes:
            raise ValueError(
                f"record names the fix {fix_id!r}, which results/{FIXES}.json "
                f"does not hold (it holds {sorted(fixes)})"
            )
        fix = fixes[fix_id]
        if model is None or model in fix["models"]:
            found.append(fix)
    return found


def fix_note(fix, record=None):
    """The note on runs made before `fix`: with `record`, the line under its
    table, naming its runs the fix changes (`fix["effect"]`); without, the
    whole explanation (`fix["text"]`), once under a paper's verdict table."""
    head = f"*Ran before the fix \u201c{fix['title']}\u201d* (`results/{FIXES}.json`)"
    if record is None:
        return f"{head}: {fix['text']}"
    models = sorted(record_models(record) & set(fix["models"]))
    return f"{head}: its runs of {', '.join(models)} {fix['effect']}."
