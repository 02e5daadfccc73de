"""The library packages export the same way: `__all__`, sorted, naming
exactly what the package's `__init__` imports, each name importable."""

import ast
import importlib
import inspect

import pytest

PACKAGES = ("keras_rda.cells", "keras_rda.layers", "keras_rda.ops", "keras_rda.utils")


def imported_names(package):
    """The names the package's `__init__` binds with `from ... import`."""
    tree = ast.parse(inspect.getsource(package))
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_names_what_the_package_imports(name):
    package = importlib.import_module(name)
    assert package.__all__ == sorted(package.__all__)
    assert set(package.__all__) == imported_names(package)
    for exported in package.__all__:
        assert getattr(package, exported) is not None


def test_classes_from_cells_and_layers_modules_from_ops_and_utils():
    for name in PACKAGES:
        package = importlib.import_module(name)
        kinds = {
            inspect.ismodule(getattr(package, exported)) for exported in package.__all__
        }
        assert kinds == {name.endswith(("ops", "utils"))}, name
