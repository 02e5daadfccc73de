"""Tests of the task registry, presets and scales, over every registered task."""

import keras
import numpy as np
import pytest

import keras_rda.lab.tasks
from keras_rda.lab.tasks import Task
from keras_rda.lab.tasks import get_task
from keras_rda.lab.tasks import get_task_class
from keras_rda.lab.tasks import register_preset
from keras_rda.lab.tasks import task_names

PAPER_TASKS = [
    "addition",
    "adding-problem",
    "classify-length",
    "classify-by-length",
    "copy",
    "variable-copy",
    "multicopy",
    "reber",
]

# Every synthetic task (MNIST reads data, tested in tests/lab/datasets).
SYNTHETIC = [name for name in task_names() if "mnist" not in name]

# Registry name -> (public class, the paper package it lives in).
EXPECTED = {
    "addition": ("RDAAddingProblem", "rda_paper"),
    "classify-length": ("ClassifyLength", "rda_paper"),
    "copy": ("Copy", "rda_paper"),
    "multicopy": ("Multicopy", "rda_paper"),
    "mnist": ("SequentialMnist", "rda_paper"),
    "pmnist": ("PermutedMnist", "rda_paper"),
    "adding-problem": ("AddingProblem", "rwa_paper"),
    "classify-by-length": ("RWAClassifyLength", "rwa_paper"),
    "reber": ("Reber", "rwa_paper"),
    "variable-copy": ("RWACopy", "rwa_paper"),
    "uw-double": ("UWDouble", "uw_paper"),
    "uw-copy": ("UWCopy", "uw_paper"),
    "uw-reverse": ("UWReverse", "uw_paper"),
    "uw-add": ("UWAdd", "uw_paper"),
    "uw-max": ("UWMax", "uw_paper"),
    "sinusoid": ("Sinusoid", "uw_paper"),
    "sinusoid-noisy": ("NoisySinusoid", "uw_paper"),
    "associative-recall": ("AssociativeRecall", "weinet_paper"),
    "ffa-addition": ("FFAAddingProblem", "ffa_paper"),
    "ffa-multiplication": ("FFAMultiplicationProblem", "ffa_paper"),
    "ffa-addition-variable": ("FFAVariableAddingProblem", "ffa_paper"),
    "ffa-multiplication-variable": ("FFAVariableMultiplicationProblem", "ffa_paper"),
}

# Preset -> (the task whose generator it runs, its defaults there).
PRESETS = {
    "addition": ("adding-problem", {"length": 1000}),
    "classify-by-length": ("classify-length", {"min_length": 0}),
    "sinusoid-noisy": ("sinusoid", {"noise": 2.0}),
    "ffa-addition-variable": ("ffa-addition", {"max_length": 10000}),
    "ffa-multiplication-variable": ("ffa-multiplication", {"max_length": 10000}),
}


def test_names_classes_and_papers_are_stable():
    """The CLI names, the public classes and the folder of each paper."""
    assert set(task_names()) == set(EXPECTED)
    for name, (class_name, package) in EXPECTED.items():
        cls = get_task_class(name)
        assert cls is getattr(keras_rda.lab.tasks, class_name)
        assert cls.__name__ == class_name
        assert cls.__module__.startswith(f"keras_rda.lab.tasks.{package}.")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_draw_the_base_generators_sequences(name):
    """A preset is its base generator with other defaults: same batches."""
    base, defaults = PRESETS[name]
    preset = get_task(name)
    same = get_task(base, **{**preset.config(), **defaults})
    assert isinstance(preset, Task) and preset.preset_of is not None
    for key, value in defaults.items():
        assert getattr(preset, key) == value
    assert preset.preset_of == base and isinstance(preset, type(same))
    a = preset.generate(4, np.random.default_rng(0))
    b = same.generate(4, np.random.default_rng(0))
    if name == "addition":  # the RDA paper's channel order
        b = (b[0][..., ::-1], b[1], b[2])
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def test_preset_signature_positional_and_errors():
    pmnist = get_task_class("pmnist")
    assert pmnist.preset_of == "mnist" and pmnist().permuted
    assert not get_task_class("mnist")().permuted
    cls = get_task_class("classify-by-length")
    assert cls(40).max_length == 40 and cls(40).min_length == 0
    assert cls.paper_params()["max_length"] == 1000
    assert cls.scales["small"] == {"max_length": 100}
    with pytest.raises(ValueError, match="`min_length`"):
        cls(min_length=-1)
    copy = get_task_class("copy")
    with pytest.raises(ValueError, match="no argument 'size'"):

        @register_preset
        class Bad(copy):
            name = "bad"

            def __init__(self, size=3):
                super().__init__(length=size)

    with pytest.raises(ValueError, match="already registered"):

        @register_preset
        class Copy2(copy):
            name = "copy"

    with pytest.raises(ValueError, match="no `name` of its own"):

        @register_preset
        class Unnamed(copy):
            pass

    with pytest.raises(TypeError, match="class decorator"):
        register_preset(copy, "Bad", name="bad", doc="", defaults={"length": 3})
    assert "bad" not in task_names() and get_task_class("copy") is copy


def test_unknown_task_lists_the_names():
    with pytest.raises(ValueError, match="argument `task`.*addition"):
        get_task("no-such-task")


def test_all_registered():
    for name in PAPER_TASKS + ["mnist", "pmnist"]:
        assert name in task_names()


@pytest.mark.parametrize("name", PAPER_TASKS)
@pytest.mark.parametrize("scale", ["small", "paper"])
def test_shapes_and_dtypes(name, scale):
    task = get_task_class(name).at_scale(scale)
    x, y, w = task.generate(3, np.random.default_rng(0))
    assert x.dtype == np.float32 and x.ndim == 3 and x.shape[0] == 3
    assert x.shape[2] == task.input_dim
    assert w.dtype == np.float32
    if task.per_step:
        assert y.shape == x.shape[:2] and w.shape == y.shape
    else:
        assert w.shape == (3,)
    if task.output == "classification":
        assert y.dtype == np.int32 and y.min() >= 0 and y.max() < task.num_classes
    else:
        assert y.dtype == np.float32 and y.shape == (3, task.output_dim)
    assert task.baseline is not None and task.threshold is not None


@pytest.mark.parametrize("name", SYNTHETIC)
def test_seeded_streams_repeat(name):
    """A seed gives the same batches; another seed others; a fixed held-out set."""
    task = get_task_class(name).at_scale("small")
    a = next(task.batches(4, seed=3))
    b = next(task.batches(4, seed=3))
    c = next(task.batches(4, seed=4))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    held = task.held_out(6)
    np.testing.assert_array_equal(held[0], task.held_out(6)[0])
    assert not np.array_equal(held[0][:4], a[0])


@pytest.mark.parametrize("name", PAPER_TASKS)
def test_small_scale_is_shorter(name):
    cls = get_task_class(name)
    small = cls.at_scale("small").generate(1, np.random.default_rng(0))[0]
    paper = cls.at_scale("paper").generate(1, np.random.default_rng(0))[0]
    assert small.shape[1] < paper.shape[1]
    assert (
        cls.training_settings("small")["steps"]
        <= cls.training_settings("paper")["steps"]
    )
    assert cls.training_settings("paper")["units"] == 250


def test_scale_overrides_and_errors():
    task = get_task_class("multicopy").at_scale("small", num_copies=3)
    assert task.num_copies == 3 and task.block_length == 10
    with pytest.raises(ValueError, match="scale"):
        get_task_class("copy").at_scale("huge")
    with pytest.raises(ValueError, match="`length`"):
        get_task("copy", length=0)
    copy = get_task_class("copy")
    assert (copy.paper_params()["length"], copy.scales["small"]["length"]) == (1000, 50)


def test_dataset_streams_batches():
    task = get_task_class("classify-length").at_scale("small")
    x, y, w = next(iter(task.dataset(4, seed=0)))
    assert x.shape == (4, 100, 1) and y.shape == (4,) and w.shape == (4,)


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="a tf.data.Dataset only on TensorFlow",
)
def test_dataset_knows_the_inputs_width_and_leaves_batch_and_time_open():
    task = get_task_class("copy").at_scale("small")
    inputs, targets, weights = task.dataset(3).element_spec
    assert inputs.shape.as_list() == [None, None, task.input_dim]
    assert targets.shape.as_list() == [None] * targets.shape.rank
    assert weights.shape.as_list() == [None] * weights.shape.rank


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="a tf.data.Dataset only on TensorFlow",
)
def test_dataset_has_no_autotuning_thread():
    """tf.data's autotuner runs a background thread that the iterator's
    release waits for, up to a minute at the end of a `fit`; one Python
    generator has nothing to tune."""
    task = get_task_class("copy").at_scale("small")
    assert task.dataset(3).options().autotune.enabled is False


def test_dataset_is_the_seeded_stream_and_skip_resumes_it():
    """On every backend the stream holds the batches of `batches(seed)`, and
    `skip=k` starts at the k-th of them (what a resumed run must see)."""
    task = get_task_class("copy").at_scale("small")
    reference = task.batches(3, seed=7)
    expected = [next(reference) for _ in range(4)]
    streams = {
        0: iter(task.dataset(3, seed=7)),
        2: iter(task.dataset(3, seed=7, skip=2)),
    }
    for skip, stream in streams.items():
        for want in expected[skip:]:
            got = next(stream)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(np.asarray(a), b)
    with pytest.raises(ValueError, match="skip"):
        task.dataset(3, skip=-1)
