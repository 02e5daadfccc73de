"""Every public class's docstring `Example` runs.

A public class is one that `keras_rda` or one of its public subpackages
exports (`keras_rda.RDA`, `keras_rda.memory.UniformWriting`, ...). Each
```python block of its docstring is executed in a namespace that holds
`keras`, `keras_rda`, `np` and the names of the module that defines the
class (so an example may say `UniformWriting(...)` as its own module does);
every model the example builds then runs a forward pass on ones. `>>>`
doctests anywhere in the package run with `doctest`.
"""

import doctest
import importlib
import inspect
import pkgutil
import re

import keras
import numpy as np
import pytest

import keras_rda

PUBLIC_MODULES = (
    "keras_rda",
    "keras_rda.cells",
    "keras_rda.layers",
    "keras_rda.memory",
    "keras_rda.lab.tasks",
    "keras_rda.lab.datasets",
    "keras_rda.lab.zoo",
)
# Exported at the top level but without an `Example` section yet. The test
# below fails when one gains an example (remove it here) or another loses it.
NO_EXAMPLE_YET = {"CachedUniformWriting", "RandomWriting"}


def public_classes():
    classes = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if (
                not name.startswith("_")
                and inspect.isclass(obj)
                and obj.__module__.startswith("keras_rda")
            ):
                classes.setdefault(obj, f"{module_name}.{name}")
    return sorted(classes.items(), key=lambda item: item[1])


def python_blocks(cls):
    return re.findall(r"```python\n(.*?)```", inspect.getdoc(cls) or "", re.S)


EXAMPLES = [
    pytest.param(cls, block, id=f"{path}-{i}")
    for cls, path in public_classes()
    for i, block in enumerate(python_blocks(cls))
]


def test_top_level_classes_have_examples():
    top_level = [
        name
        for name, obj in vars(keras_rda).items()
        if inspect.isclass(obj) and obj.__module__.startswith("keras_rda")
    ]
    assert len(top_level) >= 15
    without = {
        name for name in top_level if not python_blocks(getattr(keras_rda, name))
    }
    assert without == NO_EXAMPLE_YET


def _ones_like_input(model):
    shapes = model.input_shape
    if isinstance(shapes, list):
        return None  # several inputs: not guessed
    shape = [2] + [3 if d is None else d for d in shapes[1:]]
    return np.ones(shape, "float32")


#: `name = ...  # [2, 50]`: an example's claim of the shape of what it made.
SHAPE_COMMENT = re.compile(r"^(\w+) = .*#\s*\[([\d, ]+)\]", re.M)


def shape_claims(block):
    """`{name: shape}` of the `# [d0, d1, ...]` comments of an example."""
    return {
        name: tuple(int(d) for d in dims.split(","))
        for name, dims in SHAPE_COMMENT.findall(block)
    }


def test_shape_claims_are_read_from_the_comments():
    block = "y = layer(x)   # [2, 50]\nz = 1  # a number\nw = f()  # [3]\n"
    assert shape_claims(block) == {"y": (2, 50), "w": (3,)}


@pytest.mark.parametrize("cls, block", EXAMPLES)
def test_docstring_example_runs(cls, block):
    """The example runs; every tensor it says the shape of (`# [2, 50]`) has
    that shape; every single-input model it builds maps ones of its input
    shape to finite outputs of the shape it declares."""
    module = importlib.import_module(cls.__module__)
    namespace = dict(vars(module))
    namespace.update(keras=keras, keras_rda=keras_rda, np=np)
    exec(compile(block, f"<{cls.__name__} example>", "exec"), namespace)  # noqa: S102
    for name, shape in shape_claims(block).items():
        assert tuple(keras.ops.shape(namespace[name])) == shape, name
    models = [v for v in namespace.values() if isinstance(v, keras.Model)]
    for model in models:
        x = _ones_like_input(model)
        if x is not None:
            y = keras.ops.convert_to_numpy(model(x))
            assert np.all(np.isfinite(y))
            declared = model.output_shape
            if isinstance(declared, tuple):
                assert y.shape[1:] == tuple(
                    y.shape[i + 1] if d is None else d
                    for i, d in enumerate(declared[1:])
                )


#: The backend whose process may import each family of kernel modules.
_KERNEL_BACKENDS = {"pallas": "jax", "triton": "torch"}


def _kernel_module_of_this_backend(name):
    """False for a kernel module of `keras_rda.ops.kernels` written for
    another backend (`pallas_*` outside JAX, `triton_*` and `_triton_*`
    outside PyTorch), True for every other module."""
    package, _, module = name.rpartition(".")
    if package != "keras_rda.ops.kernels":
        return True
    family = next(
        (f for f in _KERNEL_BACKENDS if module.lstrip("_").startswith(f)), None
    )
    return family is None or _KERNEL_BACKENDS[family] == keras.backend.backend()


def _doctests():
    finder = doctest.DocTestFinder()
    tests = []
    for info in pkgutil.walk_packages(keras_rda.__path__, "keras_rda."):
        if info.name.startswith("keras_rda.lab.enwik8"):
            continue  # TensorFlow-only; none has doctests
        if info.name.endswith(".__main__"):
            continue  # command-line entry points, not library modules
        if not _kernel_module_of_this_backend(info.name):
            continue  # e.g. Triton's, which aborts a TensorFlow process
        module = importlib.import_module(info.name)
        tests += [t for t in finder.find(module) if t.examples]
    return tests


@pytest.mark.parametrize("test", _doctests(), ids=lambda t: t.name)
def test_doctest(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
