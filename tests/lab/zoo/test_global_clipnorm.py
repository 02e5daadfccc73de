"""A zoo entry's `global_clipnorm` (Keras's clip of the gradient's global
norm) applies where no clip is asked for, and records say which clip ran."""

import dataclasses

import pytest

from keras_rda.lab.runs.run_loop import train
from keras_rda.lab.tasks import get_task
from keras_rda.lab.zoo import get_model_spec
from keras_rda.lab.zoo import registry

TINY = dict(steps=2, batch_size=4, units=3, eval_every=2, eval_examples=8, verbose=0)


@pytest.fixture
def rda_with_global_clip(monkeypatch):
    spec = dataclasses.replace(get_model_spec("rda"), global_clipnorm=1.0)
    monkeypatch.setitem(registry._REGISTRY, "rda", spec)
    return spec


@pytest.mark.parametrize(
    "asked, expected",
    [
        ({}, {"global_clipnorm": 1.0}),
        ({"clipvalue": 1.0}, {"clipvalue": 1.0}),
        ({"clipvalue": 0.0}, {}),
        ({"clipvalue": 0.0, "clipnorm": 5.0}, {"clipnorm": 5.0}),
    ],
)
def test_global_clip_unless_a_clip_is_asked(rda_with_global_clip, asked, expected):
    assert rda_with_global_clip.gradient_clip(**asked) == expected


def test_the_zoo_keeps_the_papers_clips():
    assert get_model_spec("rda").gradient_clip() == {"clipvalue": 1.0}
    assert get_model_spec("lstm").gradient_clip() == {"clipvalue": 1.0}
    assert get_model_spec("rwa").gradient_clip() == {}


def test_the_recorded_settings_say_which_clip_ran(rda_with_global_clip):
    task = get_task("adding-problem", length=6)
    result = train(task, "rda", **TINY)
    assert result.keras_model.optimizer.global_clipnorm == 1.0
    assert result.keras_model.optimizer.clipvalue is None
    assert result.settings["clipvalue"] == 0.0
    assert result.settings["global_clipnorm"] == 1.0
    paper = train(task, "rda", clipvalue=1.0, **TINY)
    assert paper.keras_model.optimizer.global_clipnorm is None
    assert paper.keras_model.optimizer.clipvalue == 1.0
    assert "global_clipnorm" not in paper.settings
