"""The library and the lab: which may import which.

- The library (`keras_rda` minus `keras_rda.lab`) never imports the lab, and
  at import time imports only Keras, NumPy, the standard library and itself
  (TensorFlow only inside a TensorFlow-only function; matplotlib never).
- The lab uses the library through its public API only: the names in the
  library packages' `__all__`, the `keras_rda.ops` modules and the argument
  checks of `keras_rda.utils.validation`.
- Inside the lab no import runs both ways between subpackages, and nothing
  imports the command line or the diagnostics (both are entry points).
- At run time, `import keras_rda` loads nothing beyond what `import keras`
  loads but the library itself: no lab module, no TensorFlow on JAX or
  PyTorch, no matplotlib.

Read from the source (AST), every import counted, also those inside
functions, unless a test says "module level".
"""

import ast
import itertools
import pathlib
import subprocess
import sys

import pytest

import keras_rda

PACKAGE = pathlib.Path(keras_rda.__file__).resolve().parent
LIBRARY_PACKAGES = ("cells", "layers", "memory", "ops", "utils")
#: Library modules the lab may import as modules (besides `__all__` names).
PUBLIC_MODULES = {"keras_rda.utils.validation"} | {
    f"keras_rda.ops.{name}" for name in keras_rda.ops.__all__
}
ALLOWED_AT_IMPORT = {"keras", "numpy", "keras_rda"} | set(sys.stdlib_module_names)


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_lab(module):
    return module == "keras_rda.lab" or module.startswith("keras_rda.lab.")


def library_files():
    return [p for p in PACKAGE.rglob("*.py") if not is_lab(module_name(p))]


def lab_files():
    return sorted((PACKAGE / "lab").rglob("*.py"))


def imports(path, module_level=False):
    """`[(module, names)]` imported by the file at `path`.

    `names` is the tuple of names of a `from module import names`, else ().
    With `module_level`, imports inside functions are left out.
    """
    tree = ast.parse(path.read_text())
    nodes = tree.body if module_level else ast.walk(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, ()) for alias in node.names)
    return found


def test_the_library_never_imports_the_lab():
    offenders = [
        (module_name(path), module)
        for path in library_files()
        for module, names in imports(path)
        if is_lab(module) or any(is_lab(f"{module}.{name}") for name in names)
    ]
    assert not offenders, offenders


def tensorflow_only(module):
    """TensorFlow-only library modules are named `tf_*` (e.g. `ops.tf_scan`)."""
    return module.rpartition(".")[2].startswith("tf_")


#: What a backend's kernel module may import at its own import time: the
#: Pallas modules JAX, the Triton modules PyTorch and Triton.
KERNEL_IMPORTS = {"pallas": {"jax"}, "triton": {"torch", "triton"}}


def kernel_backend(module):
    """`"pallas"` or `"triton"` for a kernel module of `keras_rda.ops.kernels`
    (`pallas_*`, `triton_*`, `_triton_*`), else None. These modules are
    imported only when their backend asks for a kernel (the dispatch in
    `keras_rda.ops.kernels` imports them inside its functions)."""
    package, _, name = module.rpartition(".")
    if package != "keras_rda.ops.kernels":
        return None
    return next((k for k in KERNEL_IMPORTS if name.lstrip("_").startswith(k)), None)


def test_the_library_imports_only_keras_and_numpy_at_import_time():
    offenders = [
        (module_name(path), module)
        for path in library_files()
        if not tensorflow_only(module_name(path))
        for module, names in imports(path, module_level=True)
        if (
            module.split(".")[0] not in ALLOWED_AT_IMPORT
            and module.split(".")[0]
            not in KERNEL_IMPORTS.get(kernel_backend(module_name(path)), ())
        )
        or tensorflow_only(module)
        or any(tensorflow_only(name) for name in names)
    ]
    assert not offenders, offenders


def test_kernel_modules_are_imported_only_by_the_dispatch_inside_functions():
    """No library module imports a kernel module at its import time, and
    only the dispatch (`keras_rda.ops.kernels`) and other kernel modules of
    the same backend import one at all, so `import keras_rda` never loads
    JAX's Pallas or Triton (which aborts a process that loaded TensorFlow)."""
    offenders = []
    for path in library_files():
        importer = module_name(path)
        for module, names in imports(path):
            targets = [module] + [f"{module}.{name}" for name in names]
            for target in targets:
                backend = kernel_backend(target)
                if backend is None or importer == "keras_rda.ops.kernels":
                    continue
                if kernel_backend(importer) != backend:
                    offenders.append((importer, target))
        for module, names in imports(path, module_level=True):
            targets = [module] + [f"{module}.{name}" for name in names]
            if importer == "keras_rda.ops.kernels" and any(
                kernel_backend(t) for t in targets
            ):
                offenders.append((importer, module))
    assert not offenders, offenders


def test_the_library_never_imports_matplotlib():
    offenders = [
        module_name(path)
        for path in library_files()
        for module, _ in imports(path)
        if module.split(".")[0] == "matplotlib"
    ]
    assert not offenders, offenders


def _public(module, name):
    full = f"{module}.{name}"
    if full in PUBLIC_MODULES or module in PUBLIC_MODULES:
        return True
    try:
        package = __import__(module, fromlist=["__all__"])
    except ImportError:
        return False
    return name in getattr(package, "__all__", ()) or (
        module == "keras_rda" and name in LIBRARY_PACKAGES
    )


def test_the_lab_uses_the_library_through_its_public_api():
    offenders = []
    for path in lab_files():
        for module, names in imports(path):
            if not module.startswith("keras_rda") or is_lab(module):
                continue
            if not names:  # `import keras_rda[.x]`
                if module not in ("keras_rda", *PUBLIC_MODULES):
                    offenders.append((module_name(path), module))
                continue
            for name in names:
                if not is_lab(f"{module}.{name}") and not _public(module, name):
                    offenders.append((module_name(path), f"{module}.{name}"))
    assert not offenders, offenders


def lab_subpackage_edges():
    """`{(importer, imported)}` between subpackages of keras_rda.lab."""
    edges = set()
    for path in lab_files():
        parts = module_name(path).split(".")
        if path.stem == "__main__" or len(parts) < 4:
            continue  # entry shims; the lab's top-level modules
        for module, names in imports(path):
            for full in (module, *(f"{module}.{name}" for name in names)):
                target = full.split(".")
                if target[:2] == ["keras_rda", "lab"] and len(target) > 2:
                    if target[2] != parts[2]:
                        edges.add((parts[2], target[2]))
    return edges


def test_no_import_runs_both_ways_inside_the_lab():
    edges = lab_subpackage_edges()
    assert ("cli", "runs") in edges and ("enwik8", "zoo") in edges
    both_ways = sorted(
        (a, b)
        for a, b in itertools.combinations(sorted({*sum(edges, ())}), 2)
        if (a, b) in edges and (b, a) in edges
    )
    assert not both_ways, both_ways


def test_nothing_imports_the_command_line():
    assert not [a for a, b in lab_subpackage_edges() if b == "cli"]


def test_nothing_imports_the_diagnostics():
    """The analyses (`python -m keras_rda.lab.diagnostics.NAME`) read the
    tasks, data and zoo and write records; no other part depends on them."""
    edges = lab_subpackage_edges()
    assert ("diagnostics", "reporting") in edges
    assert not [a for a, b in edges if b == "diagnostics"]


_LOADED = """
import sys
import keras
before = set(sys.modules)
import keras_rda
added = sorted(set(sys.modules) - before)
print("\\n".join(added))
"""


@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_import_keras_rda_loads_the_library_alone(backend):
    env = {"KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, "-c", _LOADED],
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, **env},
        timeout=300,
    )
    added = result.stdout.split()
    assert "keras_rda.cells" in added and "keras_rda.ops" in added
    foreign = [
        m
        for m in added
        if m.split(".")[0] not in ("keras_rda", *sys.stdlib_module_names) or is_lab(m)
    ]
    assert not foreign, foreign
