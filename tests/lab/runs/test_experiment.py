"""`experiment.run`: a `RunSpec` resolved, run over its models and seeds,
described and reported."""

import json

import pytest

from keras_rda.lab.runs import RunSpec
from keras_rda.lab.runs import RunSpecError
from keras_rda.lab.runs import describe
from keras_rda.lab.runs import run
from keras_rda.lab.runs.experiment import resolve
from keras_rda.lab.runs.experiment import units_of
from keras_rda.lab.tasks import get_task_class

TINY = dict(steps=4, eval_every=2, batch_size=4, units=3, eval_examples=6, verbose=0)


def test_paper_scale_sizes_lstm_and_cuw_to_match_table_1():
    settings = get_task_class("uw-copy").training_settings("paper")
    assert [units_of(settings, m) for m in ("dnc", "dnc-uw", "dnc-cuw", "lstm")] == [
        100,
        100,
        95,
        125,
    ]


def test_summary_names_the_task_as_built_not_the_scales_preset():
    """`--seq-len 50` at small scale runs length 50: the summary must say so."""
    cls = get_task_class("associative-recall")
    task = cls.at_scale("small", length=50, min_length=9)
    settings = dict(cls.training_settings("small"), steps=40000)
    line = next(
        x for x in describe(task, settings, "small").splitlines() if "differs" in x
    )
    assert "length 50 ->" not in line
    assert "min_length" in line
    assert f"steps {cls.training_settings('paper')['steps']} -> 40000" in line

    paper_task = cls.at_scale("paper")
    paper = cls.training_settings("paper")
    assert "differs" not in describe(paper_task, paper, "paper")


def test_summary_says_each_model_keeps_its_own_optimiser_where_the_paper_has_none():
    """RDA-paper tasks train each model with its zoo optimiser; the summary
    line must not read as if one zoo value applied to every model."""
    cls = get_task_class("multicopy")
    assert "learning_rate" not in cls.training_settings("paper")
    settings = dict(cls.training_settings("paper"), learning_rate=3e-3)
    line = next(
        x
        for x in describe(cls.at_scale("paper"), settings, "paper").splitlines()
        if "differs" in x
    )
    assert "learning_rate each model's own -> 0.003" in line


def test_run_trains_every_model_over_every_seed_then_reports(tmp_path, capsys):
    spec = RunSpec(
        "reber",
        ("gru", "lstm"),
        seeds=(0, 1),
        task_params={"max_length": 12},
        out=tmp_path / "out",
        results_dir=tmp_path / "results",
        command={"argv": ["a", "test"], "env": {}},
        **TINY,
    )
    results = run(spec)
    assert [(r.model, r.settings["seed"]) for r in results] == spec.runs()
    assert spec.record_path == tmp_path / "results" / "reber-compare.json"
    data = json.loads(spec.record_path.read_text())
    assert data["kind"] == "comparison" and data["scale"] == "small"
    assert data["commands"] == [spec.command]
    assert data["task_params"]["max_length"] == 12
    assert [(r["model"], r["settings"]["seed"]) for r in data["runs"]] == [
        ("gru", 0),
        ("gru", 1),
        ("lstm", 0),
        ("lstm", 1),
    ]
    assert spec.plot_path.stat().st_size > 0
    for model, seed in spec.runs():
        assert (spec.checkpoint_dir(model, seed) / "result.json").exists()
    out = capsys.readouterr().out
    assert out.startswith("task ") and "| gru | 2 |" in out
    # Run again: every run is finished, none is retrained.
    again = run(spec)
    assert [r.curve for r in again] == [r.curve for r in results]


@pytest.mark.parametrize(
    "change, fragment",
    [
        (dict(task="no-such-task"), "no-such-task"),
        (dict(models=("gru", "no-such-model")), "no-such-model"),
        (dict(model_units={"no-such-model": 4}), "no-such-model"),
        (dict(task_params={"colour": 3}), "colour"),
    ],
)
def test_run_refuses_what_cannot_run_before_writing(tmp_path, change, fragment):
    spec = RunSpec(**{"task": "reber", "models": ("gru",), "out": tmp_path, **change})
    with pytest.raises(RunSpecError, match=fragment):
        resolve(spec)
    with pytest.raises(RunSpecError, match=fragment):
        run(spec)
    assert not list(tmp_path.iterdir())
