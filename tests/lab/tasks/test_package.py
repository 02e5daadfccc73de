"""The tasks package's layout: one public class per file, named after it,
each a `class` statement."""

import ast
import inspect
import pathlib
import re

import pytest

import keras_rda.lab.tasks
from keras_rda.lab.tasks import Task
from keras_rda.lab.tasks import get_task_class
from keras_rda.lab.tasks import task_names

PACKAGE = pathlib.Path(keras_rda.lab.tasks.__file__).parent

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
