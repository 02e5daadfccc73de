"""`RunSpec`: one frozen description, checked, with its names and settings."""

import dataclasses
import pathlib

import pytest

from keras_rda.lab.runs import RunSpec
from keras_rda.lab.runs import RunSpecError
from keras_rda.lab.runs.experiment import units_of
from keras_rda.lab.tasks import get_task_class


def test_defaults_names_and_paths():
    spec = RunSpec("multicopy", ["rda", "lstm"], seeds=[0, 1])
    assert spec.models == ("rda", "lstm") and spec.seeds == (0, 1)
    assert spec.out == pathlib.Path("runs") and spec.scale == "small"
    assert spec.record_name == "multicopy-compare"
    assert spec.record_path == pathlib.Path("runs/multicopy-compare.json")
    assert spec.plot_path == pathlib.Path("runs/multicopy-compare.png")
    assert spec.runs() == [("rda", 0), ("rda", 1), ("lstm", 0), ("lstm", 1)]
    assert spec.checkpoint_dir("rda", 1) == pathlib.Path(
        "runs/checkpoints/multicopy-compare/rda-seed1"
    )
    assert spec.tensorboard_run_dir("rda", 1) is None

    one = RunSpec(
        "multicopy",
        ("rda",),
        comparison=False,
        out="o",
        results_dir="r",
        tensorboard_dir="tb",
    )
    assert one.record_name == "multicopy-rda"
    assert one.record_path == pathlib.Path("r/multicopy-rda.json")
    assert one.plot_path == pathlib.Path("o/multicopy-rda.png")
    assert one.tensorboard_run_dir("rda", 0) == pathlib.Path("tb/rda-seed0")
    named = dataclasses.replace(one, name="multicopy-x")
    assert named.record_name == "multicopy-x"
    assert named.checkpoint_dir("rda", 0).parent == pathlib.Path(
        "o/checkpoints/multicopy-x"
    )


def test_is_frozen_and_keeps_its_own_mappings():
    params = {"num_copies": 2}
    spec = RunSpec("multicopy", ("rda",), task_params=params)
    params["num_copies"] = 3
    assert spec.task_params == {"num_copies": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.steps = 10


@pytest.mark.parametrize(
    "change, field",
    [
        (dict(models=()), "models"),
        (dict(seeds=(0, 0)), "seeds"),
        (dict(seeds=()), "seeds"),
        (dict(steps=0), "steps"),
        (dict(batch_size=-1), "batch_size"),
        (dict(eval_every=1.5), "eval_every"),
        (dict(model_units={"lstm": 0}), "model_units"),
        (dict(clipvalue=-1.0), "clipvalue"),
        (dict(clipnorm=0.0), "clipnorm"),
        (dict(clipnorm=5.0, clipvalue=10.0), "clipnorm"),
        (dict(global_clipnorm=0.0), "global_clipnorm"),
        (dict(global_clipnorm=float("nan")), "global_clipnorm"),
        (dict(global_clipnorm=1.0, clipvalue=1.0), "global_clipnorm"),
        (dict(global_clipnorm=1.0, clipnorm=5.0), "global_clipnorm"),
        (dict(verbose=3), "verbose"),
        (dict(name="a/b"), "name"),
        (dict(name=".hidden"), "name"),
    ],
)
def test_values_no_run_could_use_are_refused(change, field):
    with pytest.raises(RunSpecError, match=f"argument `{field}`"):
        RunSpec(**{"task": "multicopy", "models": ("rda",), **change})


def test_training_settings_are_the_scales_with_the_specs():
    cls = get_task_class("uw-copy")
    paper = cls.training_settings("paper")
    spec = RunSpec("uw-copy", ("lstm", "dnc-cuw"), scale="paper")
    assert spec.training_settings() == paper
    assert units_of(paper, "lstm") == 125  # the UW paper's Table 1 sizes

    # Units with no per-model sizes: every model the same (`--units 64`).
    spec = RunSpec("uw-copy", ("lstm",), scale="paper", units=64, model_units={})
    settings = spec.training_settings()
    assert list(settings)[: len(paper)] == list(paper)  # the scale's order
    assert units_of(settings, "lstm") == units_of(settings, "dnc-cuw") == 64

    spec = RunSpec("uw-copy", ("dnc",), scale="paper", steps=3, clipnorm=5.0)
    settings = spec.training_settings()
    assert settings["steps"] == 3 and settings["eval_every"] == 3  # at most steps
    assert settings["clipvalue"] == 0.0 and settings["clipnorm"] == 5.0
    assert "global_clipnorm" not in settings  # only when set

    spec = RunSpec("mnist", ("rda",), scale="paper", global_clipnorm=1.0)
    settings = spec.training_settings()
    assert settings["clipvalue"] == 0.0 and settings["global_clipnorm"] == 1.0
    assert "clipnorm" not in settings


def test_make_task_applies_the_scale_then_the_params():
    spec = RunSpec("multicopy", ("rda",), task_params={"num_copies": 2})
    task = spec.make_task()
    small = get_task_class("multicopy").at_scale("small")
    assert task.config() == {**small.config(), "num_copies": 2}
