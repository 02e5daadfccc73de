"""The `keras-rda` console script: the command line is parsed, and its
arguments checked, before Keras and its backend are imported.

`keras_rda/__init__.py` imports the library, hence Keras, hence the backend
(TensorFlow: seconds, and its log lines), and Python runs it before any
module of the lab, the command line included. So the console script enters
here, outside the package: `main` puts `keras_rda` (and `keras_rda.utils`,
the package of the argument checks) in `sys.modules` with their
`__init__` not yet run, then hands over to `keras_rda.lab.cli.main`. The
first time anything asks one of them for a name it does not hold yet
(`keras_rda.__version__`, `from keras_rda import RDA`), its `__init__` runs
as a plain import would have run it; modules imported from the packages
(`keras_rda.layers`, `keras_rda.lab.runs`) are the same modules either
way. So `keras-rda --help`, `tasks`, `models` and a flag's error answer
without importing Keras, and a run imports it when it first needs it.

Before TensorFlow is imported, `main` also sets `TF_CPP_MIN_LOG_LEVEL`
where the user has not (`quiet_tensorflow`): TensorFlow's C++ log lines at
INFO and WARNING say nothing about a run, and on a machine without an
NVIDIA driver neither does its `failed call to cuInit: ... UNKNOWN ERROR
(303)` (that machine has no GPU to find).

`python -m keras_rda.lab.cli` is the same command without this: it imports
the package, and Keras, first. Nothing imports this module.
"""

import importlib
import importlib.util
import os
import sys

# Packages whose `__init__` waits for the first name asked of them, parents
# first.
DEFERRED = ("keras_rda", "keras_rda.utils")


# Present where an NVIDIA driver is loaded (Linux): there a failed cuInit
# is worth seeing.
NVIDIA_DRIVER = "/proc/driver/nvidia/version"


def quiet_tensorflow(environ=None, driver=NVIDIA_DRIVER):
    """Sets `TF_CPP_MIN_LOG_LEVEL` in `environ` (default `os.environ`)
    unless it is set: "2" (errors only), or "3" (none) where there is no
    NVIDIA driver at `driver`, whose only C++ error is TensorFlow's failed
    `cuInit`. Errors that stop a run still raise in Python."""
    environ = os.environ if environ is None else environ
    if "TF_CPP_MIN_LOG_LEVEL" not in environ:
        environ["TF_CPP_MIN_LOG_LEVEL"] = "2" if os.path.exists(driver) else "3"


def main(argv=None):
    """The `keras-rda` entry point; returns the exit code."""
    quiet_tensorflow()
    for name in DEFERRED:
        if name not in sys.modules:
            _defer(name)
    from keras_rda.lab.cli import main as command_main

    return command_main(argv)


def _defer(name):
    """Puts package `name` in `sys.modules` with its `__init__` not yet run.

    A name the package does not hold yet is looked up as its submodule
    first (`from keras_rda.utils import validation` imports that module
    alone); any other name runs the `__init__`, then is looked up again.
    """
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)

    def __getattr__(attribute):
        if not attribute.startswith("__"):
            try:
                return importlib.import_module(f"{name}.{attribute}")
            except ModuleNotFoundError as error:
                if error.name != f"{name}.{attribute}":
                    raise
        del module.__getattr__
        spec.loader.exec_module(module)
        return getattr(module, attribute)

    module.__getattr__ = __getattr__
    sys.modules[name] = module


if __name__ == "__main__":
    sys.exit(main())
