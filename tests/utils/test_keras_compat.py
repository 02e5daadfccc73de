"""Keras internals are reached through one module only."""

import ast
import pathlib

import keras_rda

PACKAGE = pathlib.Path(keras_rda.__file__).parent


def _keras_src_imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "keras.src"
        ):
            yield node.module
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("keras.src"))


def test_only_keras_compat_imports_keras_internals():
    offenders = {
        str(path.relative_to(PACKAGE)): list(_keras_src_imports(path))
        for path in PACKAGE.rglob("*.py")
        if path.name != "keras_compat.py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_keras_compat_finds_its_names():
    from keras_rda.utils import keras_compat

    for name in keras_compat.__all__:
        assert getattr(keras_compat, name) is not None
