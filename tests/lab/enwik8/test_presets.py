"""Presets: the paper's values, overrides, and fields checked on creation."""

import dataclasses

import numpy as np
import pytest

from keras_rda.lab.enwik8.presets import PRESETS
from keras_rda.lab.enwik8.presets import get_preset


def test_paper_preset_is_section_6_1():
    p = PRESETS["paper"]
    assert (p.units, p.bptt, p.embedding_dim) == (1800, 250, 64)
    assert (p.learning_rate, p.clipvalue) == (1e-3, 1.0)


def test_overrides_replace_only_given_fields():
    p = get_preset("small", units=np.int64(64), bptt=None, learning_rate=1)
    assert p.units == 64 and p.bptt == PRESETS["small"].bptt
    assert type(p.units) is int and type(p.learning_rate) is float  # JSON-able


@pytest.mark.parametrize(
    "field,value",
    [
        ("units", 0),
        ("bptt", -1),
        ("batch_size", 2.5),
        ("steps", True),
        ("log_every", 0),
        ("checkpoint_every", 0),
        ("eval_every", -1),
        ("learning_rate", 0.0),
        ("learning_rate", float("nan")),
        ("clipvalue", -1.0),
        ("clipvalue", None),
    ],
)
def test_bad_fields(field, value):
    with pytest.raises(ValueError, match=f"argument `{field}`"):
        dataclasses.replace(PRESETS["tiny"], **{field: value})


def test_unknown_preset():
    with pytest.raises(ValueError, match="argument `preset`, expected one of"):
        get_preset("huge")
