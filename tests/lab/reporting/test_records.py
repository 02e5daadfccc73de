"""The record helpers shared by the runs and the reports."""

import pytest

from keras_rda.lab.reporting import claims
from keras_rda.lab.reporting.records import merge_runs
from keras_rda.lab.reporting.records import replace_runs


def _run(model, seed, accuracy):
    return {"model": model, "settings": {"seed": seed}, "final": {"accuracy": accuracy}}


def _command(*argv):
    return {"argv": ["keras-rda", "compare", "multicopy", *argv], "env": {}}


def _records():
    old = {
        "kind": "comparison",
        "task": "multicopy",
        "commands": [_command("--models", "rda,lstm", "--seeds", "0,1")],
        "git": {"commit": "aaaa111"},
        "created": "2026-01-01T00:00:00+00:00",
        "before_fixes": ["independent-initial-weights"],
        "runs": [
            _run("rda", 0, 0.5),
            _run("rda", 1, 0.6),
            _run("lstm", 0, 0.7),
            _run("lstm", 1, 0.8),
        ],
    }
    new = {
        "kind": "comparison",
        "task": "multicopy",
        "commands": [_command("--models", "rda", "--seeds", "1,0")],
        "git": {"commit": "bbbb222"},
        "created": "2026-02-01T00:00:00+00:00",
        "runs": [_run("rda", 1, 0.96), _run("rda", 0, 0.95)],
    }
    return old, new


def test_a_rerun_replaces_its_models_runs_and_keeps_the_others_commits():
    old, new = _records()
    merged = replace_runs(old, new)
    assert [(r["model"], r["settings"]["seed"]) for r in merged["runs"]] == [
        ("rda", 0),
        ("rda", 1),
        ("lstm", 0),
        ("lstm", 1),
    ]
    assert [r["final"]["accuracy"] for r in merged["runs"]] == [0.95, 0.96, 0.7, 0.8]
    assert [r["git"]["commit"] for r in merged["runs"]] == ["bbbb222"] * 2 + [
        "aaaa111"
    ] * 2
    assert merged["git"] == new["git"] and merged["created"] == new["created"]
    assert "before_fixes" not in merged
    assert merged["commands"] == old["commands"] + new["commands"]
    assert claims.provenance(merged)[1] == ["bbbb222", "aaaa111"]
    assert old["runs"][0]["final"]["accuracy"] == 0.5 and "git" not in old["runs"][0]


def test_a_rerun_of_another_model_or_task_is_refused():
    old, new = _records()
    with pytest.raises(ValueError, match=r"\['gru'\]"):
        replace_runs(old, {**new, "runs": [_run("gru", 0, 0.9)]})
    with pytest.raises(ValueError, match="'copy'"):
        replace_runs(old, {**new, "task": "copy"})


def _piece(seed, commit, created, models=("rda", "lstm"), **settings):
    """The record of one process of a comparison: `models` at one seed."""
    return {
        "kind": "comparison",
        "task": "multicopy",
        "task_params": {"copies": 10},
        "commands": [_command("--seeds", str(seed))],
        "git": {"commit": commit},
        "created": created,
        "runs": [
            {
                "model": model,
                "settings": {"seed": seed, "steps": 100, **settings},
                "final": {"accuracy": seed / 10},
            }
            for model in models
        ],
    }


def test_merging_joins_the_seeds_of_separate_processes():
    pieces = [
        _piece(2, "cccc333", "2026-03-01T00:00:00+00:00"),
        {
            **_piece(0, "aaaa111", "2026-01-01T00:00:00+00:00", ("lstm", "rda")),
            "before_fixes": ["independent-initial-weights"],
        },
        _piece(1, "bbbb222", "2026-02-01T00:00:00+00:00"),
    ]
    merged = merge_runs(pieces)
    assert [(r["model"], r["settings"]["seed"]) for r in merged["runs"]] == [
        ("rda", 0),
        ("rda", 1),
        ("rda", 2),
        ("lstm", 0),
        ("lstm", 1),
        ("lstm", 2),
    ]
    assert [r["git"]["commit"] for r in merged["runs"]] == [
        "aaaa111",
        "bbbb222",
        "cccc333",
    ] * 2
    assert merged["git"] == {"commit": "cccc333"}  # the latest piece's
    assert merged["created"] == "2026-03-01T00:00:00+00:00"
    assert merged["commands"] == [_command("--seeds", s) for s in "201"]
    assert merged["before_fixes"] == ["independent-initial-weights"]
    assert sorted(claims.provenance(merged)[2]) == [0, 1, 2]
    assert "git" not in pieces[0]["runs"][0]


def test_merging_refuses_pieces_of_different_comparisons():
    one = _piece(0, "a", "2026-01-01")
    with pytest.raises(ValueError, match="two records or more"):
        merge_runs([one])
    with pytest.raises(ValueError, match="'rda' with seed 0 is in two records"):
        merge_runs([one, _piece(0, "b", "2026-01-02", ("rda",))])
    with pytest.raises(ValueError, match=r"'rda' differ in settings \['steps'\]"):
        merge_runs([one, _piece(1, "b", "2026-01-02", steps=200)])
    with pytest.raises(ValueError, match=r"\{'copies': 10\} and \{'copies': 5\}"):
        merge_runs(
            [one, {**_piece(1, "b", "2026-01-02"), "task_params": {"copies": 5}}]
        )
    with pytest.raises(ValueError, match="not a train or compare record"):
        merge_runs([one, {**one, "kind": "enwik8", "runs": {"rda": {}}}])
