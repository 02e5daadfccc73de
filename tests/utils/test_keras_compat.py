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


def test_float64_stays_float64_and_exact():
    """`matmul`, `maximum` and `minimum` keep float64 (Keras 3.15's own return
    float32 on PyTorch), to float64 precision: against NumPy on values whose
    float32 rounding differs."""
    import keras
    import numpy as np

    from keras_rda.utils import keras_compat
    from tests.layers.gradients import enable_float64

    enable_float64()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 5))
    c = rng.normal(size=(3, 4)) + 1e-12
    x, y, z = (keras.ops.convert_to_tensor(v, "float64") for v in (a, b, c))
    cases = {
        "matmul": (keras_compat.matmul(x, y), a @ b),
        "maximum": (keras_compat.maximum(x, z), np.maximum(a, c)),
        "minimum": (keras_compat.minimum(x, z), np.minimum(a, c)),
        "maximum with a number": (keras_compat.maximum(x, 0.1), np.maximum(a, 0.1)),
    }
    for name, (result, expected) in cases.items():
        assert keras.backend.standardize_dtype(result.dtype) == "float64", name
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(result), expected, rtol=1e-15, err_msg=name
        )
