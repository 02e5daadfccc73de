"""Records run before a fix (`results/fixes.json`, `before_fixes`).

A fix that changes what a command gives (today: every weight its own draw)
leaves the records made before it standing; these tests check that each
such record is marked, that nothing else is, and that every page shows the
mark where the record's numbers appear.
"""

import json

import pytest

from keras_rda.lab.reporting import claims
from keras_rda.lab.reporting import fixes
from keras_rda.lab.reporting import report
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "results"
FIX_TABLE = fixes.load_fixes(RESULTS)


def _records():
    for path in sorted(RESULTS.rglob("*.json")):
        name = path.relative_to(RESULTS).with_suffix("").as_posix()
        if name.startswith("claims/") or name == fixes.FIXES:
            continue
        record = json.loads(path.read_text())
        if isinstance(record, dict):
            yield name, record


def test_every_fix_names_zoo_models_and_explains_itself():
    from keras_rda.lab.zoo.registry import get_model_spec

    assert FIX_TABLE, "results/fixes.json holds no fix"
    for fix in FIX_TABLE.values():
        for model in fix["models"]:
            get_model_spec(model)  # raises on a name the zoo lacks
        assert fix["title"] and fix["text"] and fix["effect"] and fix["date"]


def test_a_record_is_marked_exactly_when_it_trained_a_fixed_model_before_the_fix():
    """By the record's `created` time against the fix's date (a record
    without `created` is checked only for what its mark says)."""
    wrong = []
    for name, record in _records():
        marked = set(record.get("before_fixes", ()))
        for fix_id in marked:
            fix = FIX_TABLE[fix_id]
            if not fixes.record_models(record) & set(fix["models"]):
                wrong.append(f"{name}: marked, but runs none of {fix_id}'s models")
            if record.get("created", "") >= fix["date"]:
                wrong.append(f"{name}: marked, but made after {fix_id}")
        for fix in FIX_TABLE.values():
            if (
                fix["id"] not in marked
                and record.get("created")
                and record["created"] < fix["date"]
                and fixes.record_models(record) & set(fix["models"])
                and not claims.is_timing_record(record)  # no weights' start
            ):
                wrong.append(f"{name}: made before {fix['id']}, not marked")
    assert not wrong


def _run(model, seed=0):
    return {
        "model": model,
        "steps": 100,
        "steps_to_threshold": None,
        "final": {"accuracy": 0.5},
        "curve": [{"step": 100, "val_accuracy": 0.5}],
        "settings": {"seed": seed},
        "diverged": False,
        "params": 10,
        "seconds": 1.0,
    }


FIX = {
    "id": "f",
    "date": "2026-01-02T00:00:00+00:00",
    "commit": "c" * 40,
    "models": ["rda"],
    "title": "the fix",
    "effect": "started elsewhere",
    "text": "Before it, the RDA started elsewhere.",
}


def _results(tmp_path, marked=True):
    record = {
        "kind": "comparison",
        "commands": [{"argv": ["keras-rda", "compare", "multicopy"], "env": {}}],
        "git": {"commit": "0123456789abcdef"},
        "metric": "accuracy",
        "threshold": ["accuracy", ">=", 0.99],
        "runs": [_run("rda"), _run("lstm")],
    }
    if marked:
        record["before_fixes"] = ["f"]
    report.write_json(tmp_path / "multicopy-compare.json", record)
    report.write_json(tmp_path / "fixes.json", {"kind": "fixes", "fixes": [FIX]})
    return record


def test_a_marked_records_table_says_which_of_its_runs_the_fix_changes(tmp_path):
    record = _results(tmp_path)
    text = report.render(record, "multicopy-compare", tmp_path)
    note = (
        "*Ran before the fix \u201cthe fix\u201d* (`results/fixes.json`): its runs "
        "of rda started elsewhere."
    )
    assert note in text
    unmarked = _results(tmp_path, marked=False)
    assert "Ran before" not in report.render(unmarked, "multicopy-compare", tmp_path)


def test_a_claim_is_marked_only_where_it_reads_a_model_the_fix_changes(tmp_path):
    _results(tmp_path)

    def claim(label, model):
        return {
            "id": model,
            "claim": f"{label} learns",
            "source": "s",
            "paper": "p",
            "ours": [
                {
                    "label": label,
                    "record": "multicopy-compare",
                    "model": model,
                    "value": "final",
                }
            ],
            "direction": [],
            "verdict": "not reproduced",
        }

    data = {"kind": "claims", "title": "X", "summary": "s"}
    data["claims"] = [claim("LSTM", "lstm")]
    data["claims"].append(claim("RDA", "rda"))
    text = claims.claims_markdown(data, tmp_path, "claims/x")
    notes = [line for line in text.splitlines() if line.startswith("- **")]
    assert "before the fix" not in notes[0]
    assert "*Read from runs made before the fix* \u201cthe fix\u201d" in notes[1]
    assert "Claim 2 reads runs made before a fix" in text
    assert FIX["text"] in text
    assert "| 0123456, before the fix \u201cthe fix\u201d | 0 |" in text
    assert claims.before_fixes_count(data, tmp_path) == 1
    assert "; 1 read from runs made before a fix)" in claims.paper_summary_markdown(
        data, tmp_path
    )


def test_a_record_naming_an_unknown_fix_is_an_error(tmp_path):
    record = _results(tmp_path)
    record["before_fixes"] = ["no-such-fix"]
    with pytest.raises(ValueError, match="'no-such-fix'"):
        report.render(record, "multicopy-compare", tmp_path)
