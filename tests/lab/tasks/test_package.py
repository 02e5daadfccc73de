"""The tasks package's layout: one public class per file, named after it,
each a `class` statement, and the 0.1 class names as deprecated aliases."""

import ast
import importlib
import inspect
import pathlib
import re
import warnings

import pytest

import keras_rda.lab.tasks
from keras_rda.lab.tasks import Task
from keras_rda.lab.tasks import get_task_class
from keras_rda.lab.tasks import task_names

PACKAGE = pathlib.Path(keras_rda.lab.tasks.__file__).parent

# 0.1 class name -> (its name now, the paper package that held it).
OLD_NAMES = {
    "Addition": ("RDAAddingProblem", "rda_paper"),
    "ClassifyByLength": ("RWAClassifyLength", "rwa_paper"),
    "VariableCopy": ("RWACopy", "rwa_paper"),
    "FFAAddition": ("FFAAddingProblem", "ffa_paper"),
    "FFAAdditionVariable": ("FFAVariableAddingProblem", "ffa_paper"),
    "FFAMultiplication": ("FFAMultiplicationProblem", "ffa_paper"),
    "FFAMultiplicationVariable": ("FFAVariableMultiplicationProblem", "ffa_paper"),
    "UWDoubleTask": ("UWDouble", "uw_paper"),
    "UWCopyTask": ("UWCopy", "uw_paper"),
    "UWReverseTask": ("UWReverse", "uw_paper"),
    "UWAddTask": ("UWAdd", "uw_paper"),
    "UWMaxTask": ("UWMax", "uw_paper"),
    "SinusoidTask": ("Sinusoid", "uw_paper"),
    "NoisySinusoidTask": ("NoisySinusoid", "uw_paper"),
}

# Modules of 0.1 that held several classes, and a class name each served.
OLD_MODULES = {
    "rda_paper.addition": ("Addition", "RDAAddingProblem"),
    "rwa_paper.presets": ("ClassifyByLength", "RWAClassifyLength"),
    "rwa_paper.variable_copy": ("VariableCopy", "RWACopy"),
    "uw_paper.sequence_tasks": ("UWCopyTask", "UWCopy"),
    "uw_paper.sinusoid": ("NoisySinusoidTask", "NoisySinusoid"),
    "ffa_paper.presets": ("FFAAddition", "FFAAddingProblem"),
    "rda_paper.sequential_mnist": ("PermutedMnist", "PermutedMnist"),
}

PUBLIC_CLASSES = [
    name
    for name in keras_rda.lab.tasks.__all__
    if inspect.isclass(getattr(keras_rda.lab.tasks, name))
]


def snake_case(name):
    """`RDAAddingProblem` -> `rda_adding_problem`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def public_classes_of(path):
    """Names of the public classes a file defines with a `class` statement."""
    tree = ast.parse(path.read_text())
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    ]


def test_snake_case():
    assert snake_case("RDAAddingProblem") == "rda_adding_problem"
    assert snake_case("UWCopy") == "uw_copy"
    assert snake_case("FFAVariableAddingProblem") == "ffa_variable_adding_problem"
    assert snake_case("SequentialMnist") == "sequential_mnist"


@pytest.mark.parametrize("name", PUBLIC_CLASSES)
def test_public_class_is_a_class_statement_in_a_file_named_after_it(name):
    cls = getattr(keras_rda.lab.tasks, name)
    assert cls.__name__ == cls.__qualname__ == name
    path = pathlib.Path(inspect.getsourcefile(cls))
    assert path.name == f"{snake_case(name)}.py"
    assert public_classes_of(path) == [name]
    assert re.search(rf"^class {name}\(", path.read_text(), re.M)


def test_every_task_file_holds_at_most_one_public_class_and_no_type_factory():
    for path in sorted(PACKAGE.rglob("*.py")):
        classes = public_classes_of(path)
        assert len(classes) <= 1, (path, classes)
        if classes:
            assert path.name == f"{snake_case(classes[0])}.py", path
            assert classes[0] in keras_rda.lab.tasks.__all__, path
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "type":
                assert len(node.args) < 3, f"{path}: a class built with type()"


def test_every_registered_task_is_public():
    for name in task_names():
        cls = get_task_class(name)
        assert issubclass(cls, Task) and cls.__name__ in PUBLIC_CLASSES
        assert vars(cls)["name"] == name


def test_presets_are_subclasses_of_what_they_preset():
    for name in task_names():
        cls = get_task_class(name)
        if cls.preset_of is None:
            continue
        parent = cls.__mro__[1]
        assert cls.preset_of in (parent.name, parent.__name__)
        ours = inspect.signature(cls.__init__).parameters
        assert set(ours) <= set(inspect.signature(parent.__init__).parameters)


def test_all_lists_no_old_name_and_star_import_does_not_warn():
    assert not set(OLD_NAMES) & set(keras_rda.lab.tasks.__all__)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        exec("from keras_rda.lab.tasks import *", {})  # noqa: S102


@pytest.mark.parametrize("old", sorted(OLD_NAMES))
def test_old_name_warns_and_is_the_new_class(old):
    new, package = OLD_NAMES[old]
    cls = getattr(keras_rda.lab.tasks, new)
    with pytest.warns(DeprecationWarning, match=f"{old}` was renamed {new}"):
        assert getattr(keras_rda.lab.tasks, old) is cls
    paper = importlib.import_module(f"keras_rda.lab.tasks.{package}")
    with pytest.warns(DeprecationWarning, match=f"{package}.{old}` was renamed"):
        assert getattr(paper, old) is cls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old_package = importlib.import_module("keras_rda.tasks")  # 0.1's path
    with pytest.warns(DeprecationWarning, match=f"{old}` was renamed"):
        assert getattr(old_package, old) is cls


@pytest.mark.parametrize("module", sorted(OLD_MODULES))
def test_old_module_serves_its_old_names(module):
    old, new = OLD_MODULES[module]
    cls = getattr(keras_rda.lab.tasks, new)
    for prefix in ("keras_rda.lab.tasks", "keras_rda.tasks"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loaded = importlib.import_module(f"{prefix}.{module}")
        with pytest.warns(DeprecationWarning, match=old):
            assert getattr(loaded, old) is cls


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchTask"):
        keras_rda.lab.tasks.NoSuchTask  # noqa: B018
